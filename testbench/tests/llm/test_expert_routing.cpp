// Routed MoE steps (ExpertRouter, StepSpec::routing): which rank sends which token rows to
// which expert copy, checked against hand counts; conservation of rows over groups and
// micro-batches; and the step builder's all-to-all-v and per-expert GEMMs under routing. Plain
// C++, no SystemC.
#include <catch2/catch.hpp>
#include <map>
#include <numeric>

#include "firmware/llm/ExpertRouter.h"
#include "firmware/llm/RoutingSource.h"
#include "firmware/llm/StepBuilder.h"
#include "firmware/moe/GatingModel.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/RankGrid.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/tests/llm/TestDies.h"

using namespace wsc;
using namespace wsc::firmware;
using Catch::Matchers::Contains;
using llm::ExpertRouter;
using plan::ParallelPlan;

namespace {

using Sel = std::vector<std::vector<uint32_t>>;

uint64_t sum(const std::vector<uint64_t>& v) {
    return std::accumulate(v.begin(), v.end(), uint64_t{0});
}

uint64_t rowsOf(const llm::RoutedLayer& rl) {
    uint64_t n = 0;
    for (const auto& r : rl.rows)
        for (const auto& er : r) n += er.second;
    return n;
}

model::ModelConfig tinyMoe() {
    return hw::ModelConfigLoader::loadFile(std::string(WSC_SOURCE_DIR) +
                                           "/testbench/tests/llm/models/tiny-moe-16.json");
}

}  // namespace

TEST_CASE(
    "expert routing: FTD dispatch sends each pick from the token's TP group member in the "
    "host's FTD, counted by hand",
    "[llm][routing]") {
    // dp = 4 TP groups of tp = 4, ep = 16: expert e natively on rank e (16 experts). 16 tokens,
    // 4 per group; every token picks experts 0 (rank 0: group 0, tp 0) and 5 (rank 5: group 1,
    // tp 1).
    const auto p = ParallelPlan::parse("dp=4,tp=4,ep=16");
    const ExpertRouter r(p, 16);
    REQUIRE(ExpertRouter::ftd(p));
    const Sel sel(16, {0, 5});
    const auto rl = r.route(0, 0, sel, {});
    REQUIRE(rl.groups.size() == 4);  // FTD k = ranks with tp index k: k, 4 + k, 8 + k, 12 + k
    CHECK(rl.groups[0] == std::vector<uint32_t>{0, 4, 8, 12});
    CHECK(rl.groups[1] == std::vector<uint32_t>{1, 5, 9, 13});
    // FTD 0: every group's member (q) sends its 4 tokens' expert-0 rows to member 0 (rank 0).
    for (uint32_t q = 0; q < 4; ++q) CHECK(rl.pairs[0][q * 4 + 0] == 4);
    CHECK(sum(rl.pairs[0]) == 16);
    // FTD 1: to member 1 (rank 5).
    for (uint32_t q = 0; q < 4; ++q) CHECK(rl.pairs[1][q * 4 + 1] == 4);
    CHECK(sum(rl.pairs[1]) == 16);
    CHECK(sum(rl.pairs[2]) == 0);
    CHECK(sum(rl.pairs[3]) == 0);
    CHECK(rl.rows[0] == std::vector<std::pair<uint32_t, uint64_t>>{{0, 16}});
    CHECK(rl.rows[5] == std::vector<std::pair<uint32_t, uint64_t>>{{5, 16}});
    CHECK(rl.maxRows() == 16);
    CHECK(rowsOf(rl) == 32);
}

TEST_CASE(
    "expert routing: without FTDs each TP rank dispatches its share of the tokens to the "
    "hosts in its EP group; copies split the picks by token",
    "[llm][routing]") {
    // dp = 8, tp = 2, ep = 8: two EP groups of ranks 0..7 and 8..15, 16 experts, 2 per rank.
    // 32 tokens: 4 per group, 2 per TP rank. Token t picks expert 3 (member 1) only.
    const auto p = ParallelPlan::parse("dp=8,tp=2,ep=8,seqpar");
    REQUIRE_FALSE(ExpertRouter::ftd(p));
    const ExpertRouter r(p, 16);
    const Sel sel(32, {3});
    const auto rl = r.route(0, 0, sel, {});
    REQUIRE(rl.groups.size() == 2);
    for (size_t g = 0; g < 2; ++g) {
        // every member sends its 2 tokens to member 1
        for (uint32_t q = 0; q < 8; ++q) CHECK(rl.pairs[g][q * 8 + 1] == 2);
        CHECK(sum(rl.pairs[g]) == 16);
    }
    CHECK(rl.rows[1] == std::vector<std::pair<uint32_t, uint64_t>>{{3, 16}});
    CHECK(rl.rows[9] == std::vector<std::pair<uint32_t, uint64_t>>{{3, 16}});
    // A copy of expert 3 on member 6: tokens alternate between the two (t mod 2).
    std::vector<std::vector<uint32_t>> hosts(16);
    for (uint32_t e = 0; e < 16; ++e) hosts[e] = {e / 2};
    hosts[3] = {1, 6};
    const auto rc = r.route(0, 0, sel, hosts);
    CHECK(rc.rows[1] == std::vector<std::pair<uint32_t, uint64_t>>{{3, 8}});
    CHECK(rc.rows[6] == std::vector<std::pair<uint32_t, uint64_t>>{{3, 8}});
    CHECK(rc.pairs[0][0 * 8 + 1] == 1);
    CHECK(rc.pairs[0][0 * 8 + 6] == 1);
    CHECK(rc.maxRows() == 8);
}

TEST_CASE(
    "expert routing: rows are conserved over groups and micro-batches for a zipf gating "
    "model, and bad inputs are refused",
    "[llm][routing]") {
    moe::GatingConfig g;
    g.kind = moe::GatingKind::Zipf, g.experts = 16, g.topK = 4, g.layers = 1, g.tokens = 256;
    g.zipfS = 1.2, g.seed = 7;
    const Sel sel = moe::GatingModel(g).selectLayer(0, 0);
    for (const char* text : {"dp=4,tp=4,ep=16,mb=2", "dp=16,ep=16,mb=4", "dp=8,tp=2,ep=4,mb=2",
                             "dp=2,tp=4,pp=2,ep=8,mb=2"}) {
        const auto p = ParallelPlan::parse(text);
        const ExpertRouter r(p, 16);
        std::map<uint32_t, uint64_t> per_expert;
        uint64_t total = 0;
        for (uint32_t mb = 0; mb < p.microBatches(); ++mb) {
            const auto rl = r.route(0, mb, sel, {});
            uint64_t pairs = 0;
            for (const auto& m : rl.pairs) pairs += sum(m);
            CHECK(pairs == rowsOf(rl));
            total += pairs;
            for (const auto& rr : rl.rows)
                for (const auto& [e, n] : rr) per_expert[e] += n;
        }
        INFO(text);
        // Each EP group sees its own tokens: the plan's dp groups over ep / tp of them each.
        CHECK(total == 256 * 4);
        std::map<uint32_t, uint64_t> picks;
        for (const auto& t : sel)
            for (uint32_t e : t) ++picks[e];
        CHECK(per_expert == picks);
    }
    const auto p = ParallelPlan::parse("dp=4,tp=4,ep=16");
    const ExpertRouter r(p, 16);
    CHECK_THROWS_WITH(r.route(0, 0, Sel(18, {0}), {}),
                      Contains("18 tokens do not split into dp=4 x 1 micro-batches"));
    CHECK_THROWS_WITH(r.route(0, 0, Sel(16, {16}), {}),
                      Contains("token 0 picks expert 16, the model has 16"));
    CHECK_THROWS_WITH(ExpertRouter(ParallelPlan::parse("dp=4,sp=4,ep=16"), 16),
                      Contains("sp, tatp or fsdp"));
}

TEST_CASE(
    "routed step: balanced selections reproduce the unrouted dispatch bytes and FLOPs; a "
    "hot expert puts its rows and FLOPs on its die",
    "[llm][routing]") {
    const auto m = tinyMoe();
    const auto p = ParallelPlan::parse("dp=4,tp=4,ep=16");
    const placement::DieArray a{4, 4};
    const auto dies = placement::Placement::byName("er")->place(plan::RankGrid(p), a);
    llm::StepSpec s;
    s.mode = llm::StepSpec::Mode::Prefill;
    s.batch = 4, s.seq = 16;  // 64 tokens, 16 per TP group
    auto bytesOf = [](const llm::StepProgram& prog) {
        std::map<std::string, uint64_t> b;
        for (const auto& c : prog.comms) b[c.kind] += c.bytes;
        return b;
    };
    const auto plain = llm::StepBuilder(m, p, dies, a, wsc::test::b200Die(), s).build(0);
    // Balanced: token u of its group (u = t mod 16) picks u mod 4 + {0, 4, 8, 12}, all in FTD
    // u mod 4: every expert gets 4 picks per group, every (sender, receiver) pair 4 rows, which
    // is the unrouted step's block.
    auto routing = std::make_shared<llm::ExpertRouting>();
    Sel bal(64);
    for (uint32_t t = 0; t < 64; ++t)
        for (uint32_t i = 0; i < 4; ++i) bal[t].push_back((t % 16 + 4 * i) % 16);
    std::map<uint32_t, uint32_t> cnt;
    for (const auto& t : bal)
        for (uint32_t e : t) ++cnt[e];
    for (const auto& [e, c] : cnt) REQUIRE(c == 16);
    routing->layers = {bal, bal};
    s.routing = routing;
    const auto even = llm::StepBuilder(m, p, dies, a, wsc::test::b200Die(), s).build(0);
    CHECK(bytesOf(even)["ep dispatch"] == bytesOf(plain)["ep dispatch"]);
    CHECK(bytesOf(even)["ep combine"] == bytesOf(plain)["ep combine"]);
    CHECK(even.model_flops == plain.model_flops);
    CHECK(even.die_flops_max == plain.die_flops_max);

    // Hot: every token picks expert 0 (rank 0) and 3 others spread evenly.
    Sel hot(64);
    for (uint32_t t = 0; t < 64; ++t) hot[t] = {0, 1 + t % 15, 1 + (t + 5) % 15, 1 + (t + 10) % 15};
    routing = std::make_shared<llm::ExpertRouting>();
    routing->layers = {hot, hot};
    s.routing = routing;
    const auto skew = llm::StepBuilder(m, p, dies, a, wsc::test::b200Die(), s).build(0);
    CHECK(skew.model_flops == plain.model_flops);  // the same picks, elsewhere
    CHECK(skew.die_flops_max > plain.die_flops_max);
    // Rank 0 computes all 64 rows of expert 0 per layer instead of 16: the busiest die gains
    // 48 rows of expert FLOPs in each of the 2 layers (everything else is the same on every die).
    double per_row = 0;
    const llm::StepBuilder sb(m, p, dies, a, wsc::test::b200Die(), s);
    for (const auto& o : sb.graph().layer(0).ops)
        if (o.ffn == model::FfnRole::RoutedExpert) per_row += double(o.fwd_flops) / double(o.rows);
    CHECK(double(skew.die_flops_max - plain.die_flops_max) == Approx(2 * 48 * per_row));
    CHECK(bytesOf(skew)["ep dispatch"] == bytesOf(plain)["ep dispatch"]);  // same rows moved
}
