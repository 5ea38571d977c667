// WATOS memory balancing (firmware/watos/MemoryBalancer): Sender and Helper sets and Algorithm 3's
// location-aware allocation, against invariants on random cases and hand cases on a die array.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "firmware/watos/MemoryBalancer.h"

using namespace wsc::firmware::watos;
using wsc::firmware::placement::DieArray;

namespace {

struct Case {
    std::vector<DieMemory> dies;
    std::vector<double> cost;  // n x n
};

// Random footprints around the capacity and small integer costs (so ties happen).
Case randomCase(uint64_t seed) {
    std::mt19937_64 rng(seed);
    const uint32_t n = 2 + uint32_t(rng() % 63);
    Case c;
    for (uint32_t d = 0; d < n; ++d) {
        const uint64_t cap = 1000 + rng() % 9000;
        c.dies.push_back({cap / 2 + rng() % cap, cap});
    }
    for (uint32_t i = 0; i < n * n; ++i) c.cost.push_back(double(rng() % 8));
    return c;
}

MemoryBalancer balancerOf(const Case& c) {
    const uint32_t n = uint32_t(c.dies.size());
    const std::vector<double> cost = c.cost;
    return MemoryBalancer([cost, n](uint32_t s, uint32_t h) { return cost[s * n + h]; });
}

uint64_t overflowOf(const DieMemory& d) {
    return d.footprint > d.capacity ? d.footprint - d.capacity : 0;
}
uint64_t freeOf(const DieMemory& d) {
    return d.footprint < d.capacity ? d.capacity - d.footprint : 0;
}

}  // namespace

TEST_CASE("memory balancer never gives a helper more than its free memory (random, 500 seeds)") {
    for (uint64_t seed = 1; seed <= 500; ++seed) {
        INFO("seed " << seed);
        const Case c = randomCase(seed);
        const BalanceResult r = balancerOf(c).balance(c.dies);
        for (uint32_t d = 0; d < c.dies.size(); ++d) {
            CHECK(r.receivedBy(d) <= freeOf(c.dies[d]));
            CHECK(r.offloadedFrom(d) <= overflowOf(c.dies[d]));
        }
        for (const Allocation& a : r.allocations) {
            CHECK(a.bytes > 0);
            CHECK(overflowOf(c.dies[a.sender]) > 0);
            CHECK(freeOf(c.dies[a.helper]) > 0);
        }
    }
}

TEST_CASE("memory balancer places every overflowing byte when the helpers can hold them") {
    uint32_t feasible = 0, infeasible = 0;
    for (uint64_t seed = 1; seed <= 500; ++seed) {
        INFO("seed " << seed);
        const Case c = randomCase(seed);
        const BalanceResult r = balancerOf(c).balance(c.dies);
        uint64_t overflow = 0, free = 0, placed = 0;
        for (const DieMemory& d : c.dies) overflow += overflowOf(d), free += freeOf(d);
        for (const Allocation& a : r.allocations) placed += a.bytes;
        CHECK(r.overflow == overflow);
        CHECK(r.free == free);
        if (overflow <= free) {
            ++feasible;
            CHECK(r.feasible());
            CHECK(placed == overflow);
            for (uint32_t s : r.senders) CHECK(r.offloadedFrom(s) == overflowOf(c.dies[s]));
        } else {
            ++infeasible;
            CHECK(placed == free);  // every helper ends full
        }
    }
    CHECK(feasible > 50);  // the random cases exercise both outcomes
    CHECK(infeasible > 50);
}

TEST_CASE("memory balancer fills the nearest helpers first on a 4x4 die array") {
    const DieArray a{4, 4};
    std::vector<DieMemory> dies(16, DieMemory{100, 100});  // full: neither sender nor helper
    dies[5] = {150, 100};                                  // sender at (1, 1), 50 over
    dies[10] = {120, 100};                                 // sender at (2, 2), 20 over
    dies[1] = {70, 100};                                   // (1, 0): 1 hop from die 5, 30 free
    dies[6] = {70, 100};  // (2, 1): 1 hop from both senders, 30 free
    dies[4] = {90, 100};  // (0, 1): 1 hop from die 5, 10 free
    dies[15] = {0, 100};  // (3, 3): far from die 5, 100 free
    const BalanceResult r = MemoryBalancer(MemoryBalancer::hopCost(a)).balance(dies);
    REQUIRE(r.feasible());
    CHECK(r.senders == std::vector<uint32_t>{5, 10});
    CHECK(r.helpers == std::vector<uint32_t>{15, 1, 6, 4});
    // Die 5: three helpers at 1 hop; 1 and 6 tie on free memory (lower id first), 4 has less.
    // Die 10: 6 is 1 hop away with 10 left, then 15 (2 hops) before 4 (3 hops).
    REQUIRE(r.allocations.size() == 4);
    CHECK(r.allocations[0].sender == 5);
    CHECK(r.allocations[0].helper == 1);
    CHECK(r.allocations[0].bytes == 30);
    CHECK(r.allocations[1].sender == 5);
    CHECK(r.allocations[1].helper == 6);
    CHECK(r.allocations[1].bytes == 20);
    CHECK(r.allocations[2].sender == 10);
    CHECK(r.allocations[2].helper == 6);
    CHECK(r.allocations[2].bytes == 10);
    CHECK(r.allocations[3].sender == 10);
    CHECK(r.allocations[3].helper == 15);
    CHECK(r.allocations[3].bytes == 10);
    CHECK(r.receivedBy(4) == 0);
}

TEST_CASE("memory balancer: a helper with exactly the overflow is used up and not offered again") {
    // Algorithm 3 line 6 uses >: equal capacity takes the else branch and leaves the helper out
    // of Q; the next sender must not see its old capacity.
    std::vector<DieMemory> dies{{140, 100}, {110, 100}, {60, 100}, {0, 100}};
    const std::vector<double> cost{0, 0, 1, 2,  //
                                   0, 0, 1, 2,  //
                                   0, 0, 0, 0,  //
                                   0, 0, 0, 0};
    const BalanceResult r =
        MemoryBalancer([&](uint32_t s, uint32_t h) { return cost[s * 4 + h]; }).balance(dies);
    REQUIRE(r.feasible());
    REQUIRE(r.allocations.size() == 2);
    CHECK(r.allocations[0].helper == 2);
    CHECK(r.allocations[0].bytes == 40);
    CHECK(r.allocations[1].sender == 1);
    CHECK(r.allocations[1].helper == 3);
    CHECK(r.allocations[1].bytes == 10);
    CHECK(r.receivedBy(2) == 40);
}

TEST_CASE("memory balancer reports an infeasible balance with the exact shortfall") {
    const DieArray a{4, 1};
    const uint64_t G = uint64_t{1} << 30;  // the summary prints binary GB
    const std::vector<DieMemory> dies{
        {200 * G, 100 * G}, {170 * G, 100 * G}, {40 * G, 100 * G}, {60 * G, 100 * G}};
    const BalanceResult r = MemoryBalancer(MemoryBalancer::hopCost(a)).balance(dies);
    CHECK_FALSE(r.feasible());
    CHECK(r.overflow == 170 * G);
    CHECK(r.free == 100 * G);
    CHECK(r.shortfall == 70 * G);
    CHECK(r.receivedBy(2) == 60 * G);
    CHECK(r.receivedBy(3) == 40 * G);
    // The larger sender goes first and takes all it can reach, cheapest first.
    CHECK(r.offloadedFrom(0) == 100 * G);
    CHECK(r.offloadedFrom(1) == 0);
    CHECK(r.summary() ==
          "2 senders, 2 helpers: 170.00 GB overflow, 100.00 GB free, short by 70.00 GB");
}

TEST_CASE("memory balancer is deterministic") {
    for (uint64_t seed = 1; seed <= 50; ++seed) {
        const Case c = randomCase(seed);
        const BalanceResult x = balancerOf(c).balance(c.dies), y = balancerOf(c).balance(c.dies);
        REQUIRE(x.allocations.size() == y.allocations.size());
        for (size_t i = 0; i < x.allocations.size(); ++i) {
            CHECK(x.allocations[i].sender == y.allocations[i].sender);
            CHECK(x.allocations[i].helper == y.allocations[i].helper);
            CHECK(x.allocations[i].bytes == y.allocations[i].bytes);
        }
        CHECK(x.senders == y.senders);
        CHECK(x.helpers == y.helpers);
    }
}

TEST_CASE("memory balancer refuses a NaN cost") {
    const std::vector<DieMemory> dies{{200, 100}, {0, 100}};
    const MemoryBalancer b([](uint32_t, uint32_t) { return std::nan(""); });
    CHECK_THROWS_WITH(b.balance(dies), Catch::Contains("cost(0, 1) is NaN"));
}
