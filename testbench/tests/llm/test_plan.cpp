// Parallel plans, rank groups, placements, the memory ledger and the GEMM tiler: plain C++,
// no SystemC.
#include <catch2/catch.hpp>
#include <set>

#include "firmware/llm/GemmTiler.h"
#include "firmware/llm/MemoryLedger.h"
#include "firmware/llm/OpShard.h"
#include "firmware/model/LayerGraph.h"
#include "firmware/placement/ExplicitPlacement.h"
#include "firmware/placement/Placement.h"
#include "firmware/placement/RingPlacement.h"
#include "firmware/plan/ParallelPlan.h"
#include "firmware/plan/RankGrid.h"
#include "hw/ModelConfigLoader.h"

using namespace wsc::firmware;
using Catch::Matchers::Contains;
using plan::Dim;
using plan::ParallelPlan;
using plan::RankGrid;

TEST_CASE("plans parse, print and refuse bad items", "[llm][plan]") {
    const ParallelPlan p = ParallelPlan::parse("dp=2,tp=4,pp=4,mb=8");
    CHECK(p.dp == 2);
    CHECK(p.tp == 4);
    CHECK(p.pp == 4);
    CHECK(p.microBatches() == 8);
    CHECK(p.dies() == 32);
    CHECK(p.str() == "dp=2,tp=4,pp=4,mb=8");
    CHECK(ParallelPlan::parse(p.str()) == p);
    CHECK(p.arithmetic() == "dp=2 x tp=4 x pp=4 = 32 dies");
    CHECK(ParallelPlan::parse("tp=8,seqpar").seqpar);
    CHECK(ParallelPlan::parse("pp=4").microBatches() == 4);  // default: one per stage
    CHECK_THROWS_WITH(ParallelPlan::parse("dp=2,tp=x"), Contains("'tp=x'") && Contains("whole"));
    CHECK_THROWS_WITH(ParallelPlan::parse("dp=0"), Contains("[1, 65536]"));
    CHECK_THROWS_WITH(ParallelPlan::parse("dp=-2"), Contains("whole number"));
    CHECK_THROWS_WITH(ParallelPlan::parse("dq=2"), Contains("unknown key 'dq'"));
    CHECK_THROWS_WITH(ParallelPlan::parse("tp=2,tp=4"), Contains("'tp' is given twice"));
    CHECK_THROWS_WITH(ParallelPlan::parse("tp=2,,dp=2"), Contains("empty item"));
    CHECK_THROWS_WITH(ParallelPlan::parse("seqpar"), Contains("needs tp > 1"));
    CHECK_THROWS_WITH(ParallelPlan::parse("tp4"), Contains("KEY=DEGREE"));
}

TEST_CASE("rank groups follow tp-fastest order", "[llm][plan]") {
    const RankGrid g(ParallelPlan::parse("dp=2,tp=4,pp=2"));
    REQUIRE(g.ranks() == 16);
    CHECK(g.group(5, {Dim::TP}) == std::vector<uint32_t>{4, 5, 6, 7});
    CHECK(g.group(5, {Dim::DP}) == std::vector<uint32_t>{1, 5});
    CHECK(g.group(5, {Dim::PP}) == std::vector<uint32_t>{5, 13});
    CHECK(g.group(5, {Dim::TP, Dim::DP}) == std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(g.groups({Dim::TP}).size() == 4);
    const auto c = g.coord(13);
    CHECK((c.tp == 1 && c.dp == 1 && c.pp == 1));
    CHECK(g.rank(c) == 13);
    CHECK(g.stage(1).front() == 8);
    const RankGrid e(ParallelPlan::parse("dp=4,tp=4,ep=8"));
    CHECK(e.epGroup(9) == std::vector<uint32_t>{8, 9, 10, 11, 12, 13, 14, 15});
    CHECK_THROWS_WITH(RankGrid(ParallelPlan::parse("dp=3,tp=2,ep=4")), Contains("must divide"));
}

namespace {

bool isPermutation(const std::vector<uint32_t>& v, uint32_t n) {
    std::set<uint32_t> s(v.begin(), v.end());
    return v.size() == n && s.size() == n && *s.rbegin() == n - 1;
}

}  // namespace

TEST_CASE("placements put groups where their policy says", "[llm][placement]") {
    using namespace placement;
    const DieArray a{4, 8};
    const RankGrid g(ParallelPlan::parse("dp=8,tp=4"));
    for (const auto& name : Placement::names()) {
        INFO(name);
        // ring-<dim> along a dimension dp=8,tp=4 does not split has nothing to lay: refused.
        if (name == "ring-tatp" || name == "ring-sp" || name == "ring-fsdp")
            CHECK_THROWS_WITH(Placement::byName(name)->place(g, a), Catch::Contains("= 1"));
        else
            CHECK(isPermutation(Placement::byName(name)->place(g, a), 32));
    }
    // Row-major: a TP group of 4 fills a row of 4; its ring closes with a 3-hop segment.
    const auto rm = Placement::byName("row-major")->place(g, a);
    std::vector<uint32_t> grp;
    for (uint32_t r : g.group(0, {Dim::TP})) grp.push_back(rm[r]);
    CHECK(ringHops(a, grp) == std::vector<uint32_t>{1, 1, 1, 3});
    // Snake: consecutive ranks are neighbours.
    const auto sn = Placement::byName("snake")->place(g, a);
    for (uint32_t r = 0; r + 1 < 32; ++r) CHECK(a.hops(sn[r], sn[r + 1]) == 1);
    // Ring: every TP group is a physical ring (2 x 2 block).
    const auto rg = Placement::byName("ring")->place(g, a);
    for (const auto& group : g.groups({Dim::TP})) {
        std::vector<uint32_t> dies;
        for (uint32_t r : group) dies.push_back(rg[r]);
        CHECK(ringHops(a, dies) == std::vector<uint32_t>{1, 1, 1, 1});
    }
    // ring-dp: the DP groups of 8 on the rings instead (a 2 x 4 or 4 x 2 block each).
    const auto rd = Placement::byName("ring-dp")->place(g, a);
    CHECK(Placement::byName("ring-dp")->name() == "ring-dp");
    for (const auto& group : g.groups({Dim::DP})) {
        std::vector<uint32_t> dies;
        for (uint32_t r : group) dies.push_back(rd[r]);
        for (uint32_t h : ringHops(a, dies)) CHECK(h == 1);
    }
    // A group of 8 on 4 x 8: a 2 x 4 (or 4 x 2) block whose cycle is physical.
    const RankGrid g8(ParallelPlan::parse("dp=4,tp=8"));
    const auto r8 = RingPlacement().place(g8, a);
    for (const auto& group : g8.groups({Dim::TP})) {
        std::vector<uint32_t> dies;
        for (uint32_t r : group) dies.push_back(r8[r]);
        for (uint32_t h : ringHops(a, dies)) CHECK(h == 1);
    }
    // Every cycle the ring policy builds is Hamiltonian and physical.
    for (uint32_t w = 2; w <= 6; ++w)
        for (uint32_t h = 2; h <= 6; ++h) {
            if (w % 2 && h % 2) continue;
            const auto c = RingPlacement::cycle(w, h);
            REQUIRE(isPermutation(c, w * h));
            const DieArray blk{w, h};
            for (uint32_t x : ringHops(blk, c)) CHECK(x == 1);
        }
    CHECK_THROWS_WITH(RingPlacement().place(RankGrid(ParallelPlan::parse("dp=3,tp=3")), {3, 3}),
                      Contains("physical ring"));
    CHECK_THROWS_WITH(Placement::byName("zigzag"), Contains("row-major, snake, ring"));
    CHECK_THROWS_WITH(Placement::byName("snake")->place(g, {4, 4}), Contains("32 ranks"));
    CHECK_THROWS_WITH(
        ExplicitPlacement({0, 1, 1, 3}).place(RankGrid(ParallelPlan::parse("tp=4")), {2, 2}),
        Contains("die 1 is given to rank 1 and rank 2"));
    CHECK_THROWS_WITH(
        ExplicitPlacement({0, 1, 2, 9}).place(RankGrid(ParallelPlan::parse("tp=4")), {2, 2}),
        Contains("rank 3 is on die 9"));
}

TEST_CASE("the memory ledger tracks peaks, reuses freed ranges and names an overflow",
          "[llm][ledger]") {
    using llm::MemKind;
    llm::MemoryLedger l(2, 1000 * 256);
    const uint64_t w = l.alloc(0, MemKind::Weights, 300 * 256, "weights");
    const uint64_t a1 = l.alloc(0, MemKind::Activations, 200 * 256, "mb0");
    const uint64_t a2 = l.alloc(0, MemKind::Activations, 200 * 256, "mb1");
    CHECK(w == 0);
    CHECK(a1 == 300 * 256);
    CHECK(l.peak(0) == 700 * 256);
    l.free(0, a1);
    const uint64_t a3 = l.alloc(0, MemKind::Activations, 100 * 256, "mb2");
    CHECK(a3 == a1);  // first fit reuses the freed range
    CHECK(l.used(0, MemKind::Activations) == 300 * 256);
    l.free(0, a2);
    l.free(0, a3);
    CHECK(l.used(0) == 300 * 256);
    CHECK(l.peak(0) == 700 * 256);
    CHECK(l.peakBreakdown(0)[size_t(MemKind::Activations)] == 400 * 256);
    CHECK_NOTHROW(l.check());
    l.alloc(1, MemKind::Optimizer, 900 * 256, "adam");
    l.alloc(1, MemKind::Activations, 200 * 256, "mb0 layer 1");
    CHECK(l.overflowed());
    CHECK_THROWS_AS(l.check(), llm::OutOfMemoryError);
    CHECK_THROWS_WITH(l.check(), Contains("die 1 needs") && Contains("optimizer states") &&
                                     Contains("'adam'") && Contains("'mb0 layer 1'"));
}

TEST_CASE("the GEMM tiler keeps the cheapest tiling that fits", "[llm][tiler]") {
    using llm::GemmTiler;
    // Everything fits: one tile, every operand read once.
    auto t = GemmTiler::choose(256, 256, 256, 2, 1 << 30);
    CHECK(t.tiles() == 1);
    CHECK(t.hbm_bytes() == 3 * 256 * 256 * 2);
    // A budget that holds B resident and small A tiles: B read once, A once, C once.
    t = GemmTiler::choose(65536, 4096, 1024, 2, 64ull << 20);
    CHECK(t.sram_bytes <= (64ull << 20));
    CHECK(t.b_resident);
    CHECK(t.hbm_bytes() == (65536ull * 4096 + 4096ull * 1024 + 65536ull * 1024) * 2);
    // The closed form of a chosen tiling.
    const auto e = GemmTiler::evaluate(1000, 300, 500, 2, 250, 300, 250);
    CHECK(e.mt == 4);
    CHECK(e.nt == 2);
    CHECK(e.a_bytes == 1000 * 300 * 2 * 2);  // once per n-tile
    CHECK(e.b_bytes == 300 * 500 * 2);       // resident over m
    CHECK(e.c_bytes == 1000 * 500 * 2);
    CHECK_THROWS_WITH(GemmTiler::choose(4096, 4096, 4096, 2, 100), Contains("SRAM budget"));
}

TEST_CASE("the LM head's vocabulary is padded to a multiple of tp (GPT-3's 50257 over tp=4)",
          "[llm][shard]") {
    using namespace wsc::firmware;
    const auto m = wsc::hw::ModelConfigLoader::loadFile(std::string(WSC_SOURCE_DIR) +
                                                        "/configs/models/gpt3-6.7b.json");
    model::GraphShape g;
    g.sequences = 1;
    g.seq_len = 2048;
    const model::LayerGraph lg = model::LayerGraph::build(m, g);
    const model::Operator* head = nullptr;
    for (const auto& o : lg.head().ops)
        if (o.name == "head.lm") head = &o;
    REQUIRE(head != nullptr);
    REQUIRE(head->out == 50257);
    const llm::OpShard s = llm::shardOf(*head, plan::ParallelPlan::parse("dp=8,tp=4"));
    CHECK(s.op.out == 12565);  // ceil(50257 / 4): 50260 rows over the group, 3 of them padding
    CHECK(s.weight_elems == 12565ull * 4096);
    // Any other column split still has to divide.
    model::Operator qkv = *head;
    qkv.name = "attn.qkv";
    CHECK_THROWS_WITH(llm::shardOf(qkv, plan::ParallelPlan::parse("dp=8,tp=4")),
                      Catch::Contains("tp=4 does not divide its output features (50257)"));
}
