// Run-time load traces of the balancers (BalanceRun, MoEntwine Fig. 15): loads under the copies
// in place, Eq. 2 deciding when to rebalance, and only the copies a new plan adds counted as
// migrations. Plain C++.
#include <catch2/catch.hpp>

#include "firmware/moe/BalanceRun.h"

using namespace wsc::firmware::moe;

namespace {

// 16 experts over a 2x2 mesh (4 per die, die d natively hosts 4d .. 4d + 3); every token picks
// expert 0 and one of 4..15 in turn: die 0 is the hot one.
std::vector<std::vector<uint32_t>> hot0(uint32_t, uint32_t) {
    std::vector<std::vector<uint32_t>> t;
    for (uint32_t i = 0; i < 24; ++i) t.push_back({0, 4 + i % 12});
    return t;
}

BalanceRunConfig config(const std::string& balancer, uint32_t beta) {
    BalanceRunConfig c;
    c.balancer = balancer;
    c.experts = 16, c.topK = 2, c.layers = 1, c.iterations = 8, c.slots = 1;
    c.trigger.alpha = 0.1, c.trigger.beta = beta;
    return c;
}

}  // namespace

TEST_CASE("balance run: without a balancer the hot die stays hot, counted by hand") {
    const MoeMapping m = MoeMapping::baseline(DieMesh(2, 2), 2, 2);
    BalanceRun br(m, config("none", 0), hot0);
    const auto& r = br.run();
    REQUIRE(r.size() == 8);
    // Die 0: 24 picks of expert 0; dies 1..3: 8 each; mean 12: peak 2.
    for (const auto& it : r) {
        CHECK(it.peak.size() == 1);
        CHECK(it.worstPeak == Approx(2.0));
        CHECK(!it.rebalanced);
        CHECK(it.migrations == 0);
    }
}

TEST_CASE(
    "balance run: a rebalance lowers the next iteration's peak, and a plan that repeats "
    "moves nothing") {
    const MoeMapping m = MoeMapping::baseline(DieMesh(2, 2), 2, 2);
    for (const char* b : {"greedy", "topo"}) {
        BalanceRun br(m, config(b, 0), hot0);
        const auto& r = br.run();
        CHECK(r[0].rebalanced);
        CHECK(r[0].migrations >= 1);
        CHECK(r[0].linkHops >= r[0].migrations);
        CHECK(r[1].worstPeak < r[0].worstPeak);
        // Same load every iteration: the plan is the one in place, no copy moves again.
        for (size_t i = 1; i < r.size(); ++i) CHECK(r[i].migrations == 0);
    }
}

TEST_CASE("balance run: Eq. 2's beta spaces an invasive balancer's rebalances, ni ignores it") {
    const MoeMapping m = MoeMapping::baseline(DieMesh(2, 2), 2, 2);
    // Alternate two hot experts so the load stays imbalanced whatever is in place.
    auto alternating = [](uint32_t it, uint32_t) {
        std::vector<std::vector<uint32_t>> t;
        for (uint32_t i = 0; i < 24; ++i) t.push_back({it % 2 ? 8u : 0u, 4 + i % 4});
        return t;
    };
    BalanceRun inv(m, config("topo", 2), alternating);
    uint32_t last = 0, count = 0;
    const auto& r = inv.run();
    for (uint32_t i = 0; i < r.size(); ++i)
        if (r[i].rebalanced) {
            if (count) CHECK(i - last > 2);
            last = i, ++count;
        }
    CHECK(count >= 2);
    BalanceRun ni(m, config("ni", 2), alternating);
    uint32_t every = 0;
    for (const auto& it : ni.run()) every += it.rebalanced;
    CHECK(every == 7);  // every iteration but the last (its copies would never be used)
}

TEST_CASE("balance run: refuses an unknown balancer and experts that do not divide over the dies") {
    const MoeMapping m = MoeMapping::baseline(DieMesh(2, 2), 2, 2);
    CHECK_THROWS_WITH(BalanceRun(m, config("eplb", 0), hot0),
                      Catch::Matchers::Contains("expected none, greedy, topo or ni"));
    auto c = config("none", 0);
    c.experts = 6;
    CHECK_THROWS_WITH(
        BalanceRun(m, c, hot0),
        Catch::Matchers::Contains("6 experts do not divide over the mapping's 4 dies"));
}
