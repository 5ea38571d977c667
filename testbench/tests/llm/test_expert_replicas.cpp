// More dies than experts (Mixtral's 8 experts over 16 dies): each die holds one expert whole and
// the ep / E replicas of an expert split its tokens; and experts that do not divide over the
// dies (128 on 36): dies hold floor or ceil of E / ep. Shards, FLOPs, weights and routing checked
// against closed forms. Plain C++, no SystemC.
#include <algorithm>
#include <catch2/catch.hpp>

#include "firmware/llm/ExpertRouter.h"
#include "firmware/llm/OpShard.h"
#include "firmware/llm/RoutingSource.h"
#include "firmware/llm/StepBuilder.h"
#include "firmware/model/LayerGraph.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/RankGrid.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/tests/llm/TestDies.h"

using namespace wsc;
using namespace wsc::firmware;
using Catch::Matchers::Contains;
using plan::ParallelPlan;

namespace {

// tiny-moe: 4 experts of width 128, top-2, hidden 64, 2 layers.
model::ModelConfig tiny() {
    return hw::ModelConfigLoader::loadFile(std::string(WSC_SOURCE_DIR) +
                                           "/configs/models/tiny-moe.json");
}

}  // namespace

TEST_CASE(
    "replicated experts: with ep = 4 x E every die holds one expert and a quarter of its "
    "rows, and the dies' expert FLOPs add up to the model's",
    "[llm][ep][replicas]") {
    const auto m = tiny();
    const auto p = ParallelPlan::parse("dp=4,tp=4,ep=16");
    const placement::DieArray a{4, 4};
    const auto dies = placement::Placement::byName("er")->place(plan::RankGrid(p), a);
    llm::StepSpec s;
    s.mode = llm::StepSpec::Mode::Prefill;
    s.batch = 16, s.seq = 64;  // 1024 tokens, 2048 picks, 512 per expert, 128 per replica
    const llm::StepBuilder b(m, p, dies, a, wsc::test::b200Die(), s);
    uint32_t experts_ops = 0;
    for (const auto& o : b.graph().layer(0).ops) {
        if (o.ffn != model::FfnRole::RoutedExpert) continue;
        ++experts_ops;
        const llm::OpShard sh = llm::shardOf(o, p);
        CHECK(sh.op.instances == 1);
        REQUIRE(o.extra_rows == 0);
        // The graph holds one data-parallel group's micro-batch (256 tokens): 128 rows per
        // expert; an EP group of 16 over 4 TP groups of 4 routes 4 x 128 / 4 = 128 to a replica.
        CHECK(o.instances == 4);
        CHECK(sh.op.rows * 16 == o.rows * o.instances * 4);
        CHECK(sh.flops_fwd * 16 == o.fwd_flops * o.instances * 4);
        if (o.kind == model::OpKind::Linear) CHECK(sh.weight_elems == o.params);
    }
    CHECK(experts_ops == 3);
    // The same work as ep = 4 (one expert per die, EP groups of one TP group each): every
    // expert die computes as many rows either way, so the model's and the busiest die's FLOPs
    // agree.
    const llm::StepProgram prog = b.build(0, /*emit=*/false);
    const auto p4 = ParallelPlan::parse("dp=4,tp=4,ep=4");
    const llm::StepProgram four =
        llm::StepBuilder(m, p4, placement::Placement::byName("er")->place(plan::RankGrid(p4), a), a,
                         wsc::test::b200Die(), s)
            .build(0, /*emit=*/false);
    CHECK(prog.model_flops == four.model_flops);
    CHECK(prog.die_flops_max == four.die_flops_max);
    CHECK_THROWS_WITH(llm::StepBuilder(m, ParallelPlan::parse("dp=2,tp=3,ep=6"),
                                       std::vector<uint32_t>{0, 1, 2, 3, 4, 5},
                                       placement::DieArray{3, 2}, wsc::test::b200Die(), s),
                      Contains("ep=6 is more than the 4 experts and not a multiple of them"));
}

TEST_CASE("replicated experts: routing sends token t's pick to replica t mod R",
          "[llm][ep][replicas]") {
    const auto p = ParallelPlan::parse("dp=4,tp=4,ep=16");
    const llm::ExpertRouter r(p, 4);
    CHECK(r.replicas() == 4);
    CHECK(r.nativeMember(1) == 4);
    CHECK(r.hostsNatively(7, 1));
    CHECK(!r.hostsNatively(8, 1));
    // 64 tokens, every token picks experts 0 and 3: each replica of expert 0 (members 0..3) and
    // of expert 3 (members 12..15) computes 16 rows.
    const std::vector<std::vector<uint32_t>> sel(64, {0, 3});
    const auto rl = r.route(0, 0, sel, {});
    for (uint32_t member = 0; member < 16; ++member) {
        uint64_t rows = 0;
        for (const auto& [e, n] : rl.rows[member]) {
            CHECK(r.hostsNatively(member, e));
            rows += n;
        }
        CHECK(rows == (member < 4 || member >= 12 ? 16u : 0u));
    }
}

TEST_CASE("replicated experts: the balancers refuse them, naming the plan", "[llm][ep][replicas]") {
    const auto m = tiny();
    const auto p = ParallelPlan::parse("dp=4,tp=4,ep=16");
    const placement::DieArray a{4, 4};
    const auto dies = placement::Placement::byName("er")->place(plan::RankGrid(p), a);
    llm::RoutingOptions o;
    o.source = llm::RoutingOptions::Source::Gating;
    o.iteration = 1;
    o.balancer = "topo";
    CHECK_THROWS_WITH(llm::RoutingSource(o, m, p, dies, a, 64),
                      Contains("spreads the 4 experts unevenly over ep=16 dies"));
}

TEST_CASE(
    "uneven experts: 128 over 36 dies are dealt 3 or 4 a die, contiguous, every expert "
    "once",
    "[llm][ep][uneven]") {
    const llm::ExpertRouter r(ParallelPlan::parse("dp=12,tp=3,ep=36"), 128);
    std::vector<uint32_t> per(36, 0);
    for (uint32_t e = 0; e < 128; ++e) {
        const uint32_t m = r.nativeMember(e);
        REQUIRE(m < 36);
        ++per[m];
        CHECK(r.hostsNatively(m, e));
        CHECK(r.firstExpert(m) <= e);
        if (m + 1 < 36) CHECK(e < r.firstExpert(m + 1));
    }
    for (uint32_t m = 0; m < 36; ++m) CHECK((per[m] == 3 || per[m] == 4));
    // floor(m E / ep) boundaries: 128 = 20 x 4 + 16 x 3.
    CHECK(std::count(per.begin(), per.end(), 4u) == 20);
}

TEST_CASE(
    "uneven experts: a step needs routed tokens, and then the dies holding one more expert "
    "compute more rows",
    "[llm][ep][uneven]") {
    const auto m = hw::ModelConfigLoader::loadFile(std::string(WSC_SOURCE_DIR) +
                                                   "/testbench/tests/llm/models/tiny-moe-16.json");
    const auto p = ParallelPlan::parse("dp=3,tp=2,ep=6");  // 16 experts on 6 dies: 2 or 3
    const placement::DieArray a{3, 2};
    const std::vector<uint32_t> dies{0, 1, 2, 3, 4, 5};
    llm::StepSpec s;
    s.mode = llm::StepSpec::Mode::Prefill;
    s.batch = 3, s.seq = 128;
    CHECK_THROWS_WITH(llm::StepBuilder(m, p, dies, a, wsc::test::b200Die(), s),
                      Contains("ep=6 does not divide the 16 experts, so dies hold 2 or 3 of them"));
    // Every token picks 4 experts, each expert equally often (t + 4 i mod 16): 96 picks each.
    auto routing = std::make_shared<llm::ExpertRouting>();
    std::vector<std::vector<uint32_t>> sel;
    for (uint32_t t = 0; t < 384; ++t)
        sel.push_back({t % 16, (t + 4) % 16, (t + 8) % 16, (t + 12) % 16});
    routing->layers = {sel, sel};
    s.routing = routing;
    const llm::StepProgram prog = llm::StepBuilder(m, p, dies, a, wsc::test::b200Die(), s).build(0);
    const llm::ExpertRouter r(p, 16);
    // Dies holding 3 experts do 3/2 the expert work of those holding 2; the rest is equal.
    std::vector<uint64_t> two, three;
    for (uint32_t k = 0; k < 6; ++k) {
        const uint32_t n = (k + 1 < 6 ? r.firstExpert(k + 1) : 16) - r.firstExpert(k);
        (n == 3 ? three : two).push_back(prog.die_flops[k]);
    }
    REQUIRE(!two.empty());
    REQUIRE(!three.empty());
    for (uint64_t f : three) CHECK(f > two.front());
    for (uint64_t f : two) CHECK(f == two.front());
}
