// TATP as a plan dimension (TEMP's (DP, TATP) tuples): parsing, rank order, the memory of a
// whole Llama2-7B step against its closed form, and the emitted rounds (every transfer one
// physical hop on ring placement, the rounds' semaphores balanced). Plain C++, no SystemC.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <map>
#include <numeric>
#include <set>

#include "firmware/llm/DieEmitter.h"
#include "firmware/llm/OpShard.h"
#include "firmware/llm/StepBuilder.h"
#include "firmware/llm/TatpLowering.h"
#include "firmware/model/LayerGraph.h"
#include "firmware/placement/Placement.h"
#include "firmware/placement/RingPlacement.h"
#include "firmware/placement/TcmePlacement.h"
#include "firmware/plan/RankGrid.h"
#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/LlmTestbench.h"
#include "testbench/tests/llm/TestDies.h"

using namespace wsc;
using namespace wsc::firmware;
using Catch::Matchers::Contains;
using llm::MemKind;
using plan::Dim;
using plan::ParallelPlan;
using plan::RankGrid;
using wsc::test::tempDie;

namespace {

std::string src(const std::string& rel) {
    return std::string(WSC_SOURCE_DIR) + "/" + rel;
}

llm::StepBuilder builder(const std::string& model, const std::string& plan,
                         const placement::DieArray& a, const std::string& policy, uint64_t batch,
                         uint64_t seq, const model::ModelConfig** keep = nullptr) {
    static model::ModelConfig m;
    m = hw::ModelConfigLoader::loadFile(src(model));
    if (keep) *keep = &m;
    const auto p = ParallelPlan::parse(plan);
    const auto dies = placement::Placement::byName(policy)->place(RankGrid(p), a);
    llm::StepSpec s;
    s.batch = batch;
    s.seq = seq;
    return llm::StepBuilder(m, p, dies, a, tempDie(), s);
}

}  // namespace

TEST_CASE("tatp is a plan dimension: parsed, printed, second fastest in rank order",
          "[llm][plan][tatp]") {
    const ParallelPlan p = ParallelPlan::parse("dp=2,tatp=16");
    CHECK(p.tatp == 16);
    CHECK(p.dies() == 32);
    CHECK(p.tokenWays() == 16);
    CHECK(p.str() == "dp=2,tatp=16");
    CHECK(ParallelPlan::parse(p.str()) == p);
    CHECK(p.arithmetic() == "dp=2 x tatp=16 = 32 dies");
    CHECK_THROWS_WITH(ParallelPlan::parse("tatp=0"), Contains("[1, 65536]"));
    const RankGrid g(ParallelPlan::parse("fsdp=2,tatp=4"));
    CHECK(g.group(0, {Dim::TATP}) == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(g.group(1, {Dim::FSDP}) == std::vector<uint32_t>{1, 5});
    CHECK(g.coord(6).tatp == 2);
    CHECK(g.coord(6).fsdp == 1);
}

TEST_CASE("tatp refuses what it does not combine with, naming the plan", "[llm][plan][tatp]") {
    const placement::DieArray a{4, 8};
    CHECK_THROWS_WITH(
        builder("configs/models/gpt3-6.7b.json", "pp=2,tatp=16", a, "snake", 128, 2048),
        Contains("tatp=16 combines with dp, fsdp, tp and sp only") && Contains("pp=2") &&
            Contains("drop pp, ep and seqpar"));
    CHECK_THROWS_WITH(
        builder("configs/models/gpt3-6.7b.json", "tp=2,tatp=16,seqpar", a, "snake", 128, 2048),
        Contains("drop pp, ep and seqpar"));
    // 3 sequences of 100 tokens do not split over 32 dies.
    CHECK_THROWS_WITH(builder("configs/models/gpt3-6.7b.json", "tatp=32", a, "snake", 3, 100),
                      Contains("sp x tatp=32"));
}

TEST_CASE("TATP inside a TP shard: column blocks of the shard, FLOPs split by tp x tatp",
          "[llm][plan][tatp]") {
    const auto m = hw::ModelConfigLoader::loadFile(src("configs/models/llama2-7b.json"));
    const auto g = model::LayerGraph::build(m, model::GraphShape{1, 4096});
    const auto p = ParallelPlan::parse("tp=2,tatp=4");
    for (const char* name : {"attn.qkv", "attn.out", "mlp.gate_up", "mlp.down"}) {
        const model::Operator* o = nullptr;
        for (const auto& b : g.blocks())
            if (!o) o = b.find(name);
        REQUIRE(o);
        const llm::OpShard sh = llm::shardOf(*o, p);
        INFO(name);
        CHECK(sh.tatp);
        CHECK(sh.op.rows == o->rows / 4);  // tokens split by tatp
        if (o->tp == model::TpSplit::Column) {
            CHECK(sh.op.out == o->out / 2);
            CHECK(sh.tatp_cols == o->out / 8);
        } else {
            CHECK(sh.op.in == o->in / 2);
            CHECK(sh.tatp_cols == o->out / 4);
        }
        CHECK(sh.weight_elems == o->params / 8);
        CHECK(sh.weight_elems == sh.op.in * sh.tatp_cols);  // the block the die owns
        CHECK(sh.flops_fwd == o->fwd_flops / 8);
    }
}

TEST_CASE("Llama2-7B with tatp beside tp and sp: weights, grads and Adam states per die",
          "[llm][memory][tatp]") {
    // tp=2 x tatp=8: linear weights split 16 ways, the head's 16000 TP rows in 8 blocks of
    // 2000, the vocabulary-parallel embedding halved, norms whole. sp=2 x tatp=8 replicates
    // the TATP shard over sp, so its weights are tatp-only's.
    constexpr uint64_t L = 32, H = 4096, I = 11008, V = 32000;
    constexpr uint64_t linear = L * (4 * H * H + 3 * H * I), norms = (2 * L + 1) * H;
    const std::pair<const char*, uint64_t> cases[] = {
        {"dp=2,tp=2,tatp=8", linear / 16 + H * (V / 2 / 8) + V * H / 2 + norms},
        {"dp=2,sp=2,tatp=8", linear / 8 + H * (V / 8) + V * H + norms},
    };
    for (const auto& [plan, stored] : cases) {
        INFO(plan);
        auto sb = builder("configs/models/llama2-7b.json", plan, {4, 8}, "tcme", 128, 2048);
        const llm::StepProgram sp = sb.build(0, /*emit=*/false);
        for (uint32_t d : {0u, 17u, 31u}) {
            const auto b = sp.ledger.peakBreakdown(d);
            CHECK(b[size_t(MemKind::Weights)] == 2 * stored);
            CHECK(b[size_t(MemKind::Gradients)] == 2 * stored);
            CHECK(b[size_t(MemKind::Optimizer)] == 12 * stored);
        }
        CHECK_NOTHROW(sp.ledger.check());
    }
}

TEST_CASE("tatp with tp or sp does the model's FLOPs and emits every group's collectives",
          "[llm][tatp]") {
    const placement::DieArray a{4, 2};
    const std::string small = "testbench/tests/llm/models/small-dense.json";
    // The reference splits tp alike: each TP rank of a vocabulary-parallel embedding writes a
    // partial output of every token, so tp > 1 counts that work tp times.
    const uint64_t ref1 = builder(small, "dp=8", a, "ring", 8, 128).build(1, false).model_flops;
    const uint64_t ref2 =
        builder(small, "dp=4,tp=2", a, "ring", 8, 128).build(1, false).model_flops;
    for (const char* plan :
         {"dp=2,tp=2,tatp=2", "tp=2,tatp=4", "sp=2,tatp=4", "tp=2,sp=2,tatp=2"}) {
        INFO(plan);
        auto sb = builder(small, plan, a, "tcme", 8, 128);
        const llm::StepProgram sp = sb.build(1);
        const auto p = ParallelPlan::parse(plan);
        CHECK(sp.model_flops == (p.tp > 1 ? ref2 : ref1));
        std::set<std::string> kinds;
        for (const auto& c : sp.comms) kinds.insert(c.kind);
        CHECK(kinds.count("tatp stream"));
        CHECK(kinds.count("tp all-reduce") == (p.tp > 1 ? 1u : 0u));
        CHECK(kinds.count(p.sp > 1 ? "tatp x sp all-gather" : "tatp all-gather"));
        CHECK(kinds.count("tatp all-reduce"));  // norms' gradients over tatp x sp x dp
    }
}

TEST_CASE("placeAlong puts TATP on the rings and the other groups across neighbouring blocks",
          "[llm][placement][tatp]") {
    const placement::DieArray a{8, 4};
    const RankGrid g(ParallelPlan::parse("dp=2,tp=2,tatp=8"));
    const auto die = placement::RingPlacement::placeAlong(g, a, Dim::TATP);
    CHECK(std::set<uint32_t>(die.begin(), die.end()).size() == 32);
    for (const auto& grp : g.groups({Dim::TATP}))
        for (size_t k = 0; k < grp.size(); ++k)
            CHECK(a.hops(die[grp[k]], die[grp[(k + 1) % grp.size()]]) == 1);
    // Innermost-first (RingPlacement) keeps its layout: TP pairs one hop apart.
    const auto inner = placement::RingPlacement().place(g, a);
    for (const auto& grp : g.groups({Dim::TP})) CHECK(a.hops(inner[grp[0]], inner[grp[1]]) == 1);
    // TCME keeps whichever loads the links less, and says which.
    placement::TcmePlacement::Report rep;
    const auto t = placement::TcmePlacement::placeWithReport(g, a, rep);
    CHECK(rep.mixed);
    CHECK(t == (rep.tatp_inner ? die : inner));
    CHECK(rep.tatp_inner == (rep.after < rep.before));
    CHECK(rep.other == "tp");
    // Without tp the other candidate is SP's rings innermost (ring placement would already put
    // TATP innermost, and the comparison would be with itself).
    const RankGrid gs(ParallelPlan::parse("dp=4,sp=2,tatp=4"));
    const auto sp_inner = placement::RingPlacement::placeAlong(gs, a, Dim::SP);
    for (const auto& grp : gs.groups({Dim::SP}))
        CHECK(a.hops(sp_inner[grp[0]], sp_inner[grp[1]]) == 1);
    const auto ts = placement::TcmePlacement::placeWithReport(gs, a, rep);
    CHECK(rep.mixed);
    CHECK(rep.other == "sp");
    CHECK(rep.tatp_tried);
    CHECK(sp_inner != placement::RingPlacement::placeAlong(gs, a, Dim::TATP));
    CHECK(ts ==
          (rep.tatp_inner ? placement::RingPlacement::placeAlong(gs, a, Dim::TATP) : sp_inner));
    // A TATP degree no ring block tiles (3 on 8 x 4... 6 dies of 2 x 3 have a cycle, so use 8 x 3
    // with tatp=3) keeps the other rings and says TATP innermost was not tried.
    const placement::DieArray b{8, 3};
    const RankGrid g3(ParallelPlan::parse("dp=4,tp=2,tatp=3"));
    const auto t3 = placement::TcmePlacement::placeWithReport(g3, b, rep);
    CHECK(rep.mixed);
    CHECK_FALSE(rep.tatp_tried);
    CHECK(t3 == placement::RingPlacement().place(g3, b));
}

TEST_CASE("Llama2-7B under dp=2 x tatp=16: weights sharded by 16, norms and embedding replicated",
          "[llm][memory][tatp]") {
    // Linear weights are column blocks (1/16 each, the head's 32000 rows 2000 per die); the
    // embedding and the norms stay whole on every die of the group (TatpLowering.h).
    constexpr uint64_t L = 32, H = 4096, I = 11008, V = 32000, N = 16;
    constexpr uint64_t linear = L * (4 * H * H + 3 * H * I);
    constexpr uint64_t stored = linear / N + V * H / N + V * H + (2 * L + 1) * H;
    auto sb = builder("configs/models/llama2-7b.json", "dp=2,tatp=16", {4, 8}, "ring", 128, 4096);
    const llm::StepProgram sp = sb.build(0, /*emit=*/false);
    for (uint32_t d : {0u, 13u, 31u}) {
        const auto b = sp.ledger.peakBreakdown(d);
        CHECK(b[size_t(MemKind::Weights)] == 2 * stored);
        CHECK(b[size_t(MemKind::Gradients)] == 2 * stored);
        CHECK(b[size_t(MemKind::Optimizer)] == 12 * stored);
    }
    // Buffers: the stream slots (as many as the three schedules hold at once, each the largest
    // block: the head's 4096 x 2000) and two activation scratch tensors of the largest output
    // (the logits of the die's 64 x 4096 / 16 tokens).
    constexpr uint64_t T = 128 / 2 * 4096 / N;
    CHECK(sp.ledger.peakBreakdown(0)[size_t(MemKind::Buffers)] ==
          llm::TatpLowering::slots(N) * H * (V / N) * 2 + 2 * T * V * 2);
    CHECK_NOTHROW(sp.ledger.check());
}

TEST_CASE("TATP slots: the most any position's broadcast or reduce holds at once", "[llm][tatp]") {
    // docs/TEMP.md: broadcast peak floor((N-1)/2) + 2, reduce peak q + 6 capped by the chain.
    for (uint32_t n : {2u, 4u, 8u, 16u, 32u}) {
        uint32_t most = 0;
        for (auto st : {llm::TatpLowering::Stage::Forward, llm::TatpLowering::Stage::Gradient})
            most = std::max(most, llm::TatpLowering::schedule(st, n).slotPeak());
        CHECK(llm::TatpLowering::slots(n) == most);
    }
}

namespace {

// Every send of the pipeline streams (the TATP rounds' transfers) and its mesh hops.
std::vector<uint32_t> tatpSendHops(const llm::StepProgram& sp, const placement::DieArray& a) {
    std::vector<uint32_t> hops;
    for (uint32_t die = 0; die < a.dies(); ++die) {
        const Program& p = sp.fw.program(die);
        for (uint32_t s : {llm::kPipeComm, llm::kPipeBack}) {
            if (s >= p.streams()) continue;
            for (uint32_t pc = p.streamBegin(s); pc < p.streamEnd(s); ++pc) {
                const Instruction& i = p.code()[pc];
                if (i.op == Opcode::Send) hops.push_back(a.hops(die, i.peer));
            }
        }
    }
    return hops;
}

}  // namespace

TEST_CASE("TATP rounds move one physical hop on ring placement, more in row-major order",
          "[llm][tatp]") {
    // small-dense: 4 layers, hidden 512; 4 x 2 dies, dp=2 x tatp=4.
    const placement::DieArray a{4, 2};
    auto ring =
        builder("testbench/tests/llm/models/small-dense.json", "dp=2,tatp=4", a, "ring", 4, 128);
    const llm::StepProgram r = ring.build(1);
    const auto hops = tatpSendHops(r, a);
    REQUIRE(!hops.empty());
    for (uint32_t h : hops) CHECK(h == 1);
    // Row-major puts a group of 4 along one row of 4: a line, also one hop per chain step.
    // On a 2 x 4 array (2 per row) the group of 4 wraps rows: a chain step of 1 -> 2 is 2 hops.
    const placement::DieArray b{2, 4};
    auto rm = builder("testbench/tests/llm/models/small-dense.json", "dp=2,tatp=4", b, "row-major",
                      4, 128);
    const auto rmh = tatpSendHops(rm.build(1), b);
    CHECK(*std::max_element(rmh.begin(), rmh.end()) == 2);
    // Every stream record of a TATP operator is on a pipeline stream and sends whole blocks.
    uint64_t records = 0;
    for (const auto& c : r.comms)
        if (c.kind == "tatp stream") {
            ++records;
            CHECK((c.stream == llm::kPipeComm || c.stream == llm::kPipeBack));
        }
    CHECK(records > 0);
}

TEST_CASE("TATP rounds' semaphores balance: every ready and done is awaited once", "[llm][tatp]") {
    const placement::DieArray a{4, 2};
    auto sb = builder("testbench/tests/llm/models/small-dense.json", "tatp=8", a, "ring", 8, 128);
    const llm::StepProgram sp = sb.build(1);
    for (uint32_t die = 0; die < a.dies(); ++die) {
        const Program& p = sp.fw.program(die);
        for (uint32_t s : {llm::kPipeComm, llm::kPipeBack}) {
            // ready(s): compute signals readyEvent(s), stream s waits on it; done(s): stream s
            // signals doneEvent(s), compute waits on it.
            uint64_t sig_ready = 0, wait_ready = 0, sig_done = 0, wait_done = 0;
            for (uint32_t pc = 0; pc < p.code().size(); ++pc) {
                const Instruction& i = p.code()[pc];
                const uint32_t st = p.streamOf(pc);
                if (i.op == Opcode::Signal && i.event == llm::readyEvent(s) && st == 0) ++sig_ready;
                if (i.op == Opcode::Wait && i.event == llm::readyEvent(s) && st == s) ++wait_ready;
                if (i.op == Opcode::Signal && i.event == llm::doneEvent(s) && st == s) ++sig_done;
                if (i.op == Opcode::Wait && i.event == llm::doneEvent(s) && st == 0) ++wait_done;
            }
            INFO("die " << die << " stream " << s);
            CHECK(sig_ready > 0);
            CHECK(sig_ready == wait_ready);
            CHECK(sig_done == wait_done);
        }
    }
}

TEST_CASE("no collective's staging set is starved by the sets emitted before it",
          "[llm][tatp][staging]") {
    // GPT-3 6.7B dp=16 x tatp=2: stream 1 carries the K/V all-gather and reduce-scatter, stream
    // 4 the dp all-reduce (16 ranks) and the replicated parameters' all-reduce (32 ranks). With
    // a set per shape and first come first served, the dp all-reduce got 0.17 MB (82 KB
    // segments, a latency-bound ring: 2.5 s of a 3.5 s step). The builder now splits each
    // stream's share over its sets when they do not all fit.
    const placement::DieArray a{8, 4};
    const llm::StepProgram sp =
        builder("configs/models/gpt3-6.7b.json", "dp=16,tatp=2", a, "ring", 128, 2048).build(1);
    const uint64_t share = static_cast<uint64_t>(80.0 * (1 << 20) * llm::DieSpec{}.comm_share);
    std::map<std::string, uint64_t> set_bytes;
    uint64_t total = 0;
    for (const auto& b : sp.fw.program(sp.rank_die[0]).buffers()) {
        total += b.bytes();
        if (b.name.rfind("s4.", 0) != 0 && b.name.rfind("s1.", 0) != 0) continue;
        size_t dot = 0;
        for (int i = 0; i < 4; ++i) dot = b.name.find('.', dot + 1);
        set_bytes[b.name.substr(0, dot)] += b.bytes();
    }
    REQUIRE(set_bytes.count("s4.all-reduce.fp16.n16"));
    REQUIRE(set_bytes.count("s4.all-reduce.fp16.n32"));
    for (const auto& [prefix, bytes] : set_bytes) {
        INFO(prefix << " " << bytes << " of a stream share of " << share);
        CHECK(bytes > share / 4);  // two sets per stream: about half each
        CHECK(bytes <= share / 2);
    }
    CHECK(total <=
          static_cast<uint64_t>(80.0 * (1 << 20) *
                                (llm::DieSpec{}.compute_share + 4 * llm::DieSpec{}.comm_share)));
}

TEST_CASE("TCME pair reroutes on ring-block plans: only diagonal pairs move, rarely",
          "[llm][tatp][tcme]") {
    // docs/TEMP.md, "Reroutes on whole plans": on the placements tcme builds, the flows that share
    // a (round, link) are almost always straight, and a straight pair has one minimal path. Over
    // these plans on every die array from 2 x 2 to 8 x 8 that holds them, only sp=4,tatp=4 on
    // 4 x 4 and 2 x 8 have a pair worth rerouting.
    const char* plans[] = {"tp=2,tatp=4",      "tp=2,tatp=2",      "sp=2,tatp=4",
                           "tp=4,tatp=2",      "tp=2,tatp=8",      "dp=2,tp=2,tatp=4",
                           "tp=2,sp=2,tatp=2", "tp=2,sp=2,tatp=4", "sp=2,tatp=8",
                           "tp=4,tatp=4",      "tp=2,tatp=16",     "tp=8,tatp=4",
                           "tp=4,tatp=8",      "sp=4,tatp=4",      "sp=4,tatp=8",
                           "dp=2,sp=2,tatp=8", "dp=4,tp=2,tatp=4", "dp=2,tp=4,tatp=4",
                           "fsdp=4,tatp=8",    "fsdp=2,tatp=4",    "dp=2,tp=2,tatp=8"};
    std::set<std::string> moved;
    uint32_t placed = 0;
    for (uint32_t x = 2; x <= 8; ++x)
        for (uint32_t y = 2; y <= 8; ++y)
            for (const char* p : plans) {
                const auto plan = ParallelPlan::parse(p);
                if (plan.dies() != x * y) continue;
                const placement::DieArray a{x, y};
                placement::TcmePlacement::Report rep;
                try {
                    placement::TcmePlacement::placeWithReport(RankGrid(plan), a, rep, 24);
                } catch (const std::invalid_argument&) {
                    continue;  // no ring block tiles this array
                }
                ++placed;
                CHECK(rep.route_after.max <= rep.route_before.max);
                if (rep.routes.empty()) continue;
                moved.insert(fmt::format("{} on {}x{}", p, x, y));
                CHECK(rep.route_after < rep.route_before);
                for (const auto& r : rep.routes) {
                    CHECK(a.dx(r.src) != a.dx(r.dst));  // diagonal: two minimal paths
                    CHECK(a.dy(r.src) != a.dy(r.dst));
                }
            }
    CHECK(placed == 47);
    CHECK(moved == std::set<std::string>{"sp=4,tatp=4 on 4x4", "sp=4,tatp=4 on 2x8"});
    // The limit is kept: with no route entries to spare nothing moves.
    placement::TcmePlacement::Report rep;
    placement::TcmePlacement::placeWithReport(RankGrid(ParallelPlan::parse("sp=4,tatp=4")), {4, 4},
                                              rep, 0);
    CHECK(rep.routes.empty());
}

TEST_CASE("TCME weighs TATP, TP and K/V rings by the bytes a layer moves on each flow",
          "[llm][tatp][tcme]") {
    // Llama2-7B, tp=4 x tatp=8, 128 x 2048 tokens, fp16: a layer's weights are 4 H^2 + 3 H I + 2 H
    // elements (H 4096, I 11008); T = 262144 / 8 tokens per die.
    const model::ModelConfig m =
        hw::ModelConfigLoader::loadFile(src("configs/models/llama2-7b.json"));
    const auto p = ParallelPlan::parse("tp=4,tatp=8");
    const auto w = placement::TcmePlacement::bytesPerFlow(m, p, 128 * 2048, 2, true);
    constexpr uint64_t H = 4096, I = 11008, layer = 4 * H * H + 3 * H * I + 2 * H, T = 32768;
    CHECK(w.tatp == 3 * layer / 32 * 2);   // one block per stage, 3 stages
    CHECK(w.tp == 4 * 2 * T * H * 2 / 4);  // 4 all-reduces, 2 M / tp per ring flow
    CHECK(w.kv == 2 * T * 2 * H * 2 / 4);  // K and V block, gathered and reduce-scattered
    const auto wi = placement::TcmePlacement::bytesPerFlow(m, p, 128 * 2048, 2, false);
    CHECK(wi.tatp * 3 == w.tatp);
    CHECK(wi.tp * 2 == w.tp);
    CHECK(wi.kv * 2 == w.kv);
    // The map holds every TATP chain, TP ring and the K/V ring over each TATP group (attention
    // gathers over TATP x SP even with sp = 1): 4 + 8 + 4 rings; by bytes, TATP innermost wins
    // (simulated: 2.094 s against 2.396 s with TP innermost, docs/results/temp_llm.md).
    placement::TcmePlacement::Report rep;
    const auto die = placement::TcmePlacement::placeWithReport(RankGrid(p), {4, 8}, rep, 0, &w);
    CHECK(rep.bytes);
    CHECK(rep.groups == 16);
    CHECK(rep.tatp_inner);
    CHECK(die == placement::RingPlacement::placeAlong(RankGrid(p), {4, 8}, Dim::TATP));
    CHECK(rep.before.max > rep.after.max);
}

TEST_CASE("a tcme run simulates the placement its report kept, by flows or by bytes",
          "[llm][tatp][tcme]") {
    // tp=4 x tatp=4 on 4 x 4: flows keep TATP innermost, bytes keep TP innermost (the two costs
    // disagree here), and the run's rank -> die map is the one the report names either way.
    const auto hwc = hw::HardwareLoader::loadFile(src("configs/moentwine_4x4_b200.yaml"));
    tb::LlmSpec spec;
    spec.model =
        hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/models/small-dense.json"));
    spec.plan = ParallelPlan::parse("tp=4,tatp=4");
    spec.batch = 64, spec.seq = 128;
    spec.placement = "tcme";
    const RankGrid g(spec.plan);
    const placement::DieArray a{4, 4};
    const auto tatp_inner = placement::RingPlacement::placeAlong(g, a, Dim::TATP);
    const auto tp_inner = placement::RingPlacement::placeAlong(g, a, Dim::TP);
    REQUIRE(tatp_inner != tp_inner);
    const auto flows = tb::LlmTestbench::place(hwc, spec);
    CHECK_FALSE(flows.tcme.bytes);
    CHECK(flows.tcme.tatp_inner);
    CHECK(flows.rank_die == tatp_inner);
    spec.tcme_bytes = true;
    const auto bytes = tb::LlmTestbench::place(hwc, spec);
    CHECK(bytes.tcme.bytes);
    CHECK_FALSE(bytes.tcme.tatp_inner);
    CHECK(bytes.rank_die == tp_inner);
    // Bytes on a TATP-only plan is refused (every flow carries the same block).
    spec.plan = ParallelPlan::parse("tatp=16");
    CHECK_THROWS_WITH(tb::LlmTestbench::place(hwc, spec), Contains("only TATP groups"));
}
