// CycleCalendar hands entries out in the order the min-heap of (cycle, node) it replaced
// did: by cycle, then node, across the ring, the heap beyond it, and cycles the caller skips.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <queue>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "noc/CycleCalendar.h"

using namespace wsc;

TEST_CASE("cycle calendar: the order of a (cycle, node) min-heap", "[noc][traffic]") {
    noc::CycleCalendar cal;
    using E = std::pair<uint64_t, uint32_t>;
    std::priority_queue<E, std::vector<E>, std::greater<E>> ref;
    std::mt19937_64 rng(7);
    constexpr uint32_t kNodes = 300;
    // Every node pending once, as in the generator; gaps short (same bucket, next cycles),
    // long (the heap beyond the 1024-cycle ring) and far (a jump over an empty ring).
    auto gap = [&]() -> uint64_t {
        const uint64_t k = rng() % 10;
        return k < 6 ? rng() % 4 : k < 9 ? rng() % 3000 : 50000 + rng() % 5000;
    };
    for (uint32_t n = 0; n < kNodes; ++n) {
        const uint64_t at = gap();
        cal.push(at, n);
        ref.push({at, n});
    }
    std::vector<uint32_t> got;
    uint64_t taken = 0, c = 0;
    while (!ref.empty() && taken < 20000) {
        REQUIRE(cal.earliest() == ref.top().first);
        // Some cycles are stepped, some skipped: the caller may come late.
        c = std::max(c + 1 + rng() % 3, rng() % 4 == 0 ? ref.top().first : c);
        cal.takeDue(c, got);
        std::vector<uint32_t> want;
        while (!ref.empty() && ref.top().first <= c) {
            want.push_back(ref.top().second);
            ref.pop();
        }
        REQUIRE(got == want);
        for (const uint32_t n : got) {  // each taken node comes back later
            const uint64_t at = c + 1 + gap();
            cal.push(at, n);
            ref.push({at, n});
        }
        taken += got.size();
    }
    CHECK(taken >= 20000);
    CHECK_FALSE(cal.empty());
    // Scheduling into a cycle already taken is a caller's bug, not a lost entry.
    CHECK_THROWS_AS(cal.push(c, 0), std::logic_error);
}

TEST_CASE("cycle calendar: a burst's storage is given back", "[noc][traffic]") {
    noc::CycleCalendar cal;
    std::vector<uint32_t> got;
    // Every core of a 128 x 128 wafer woken in each of 40 cycles, one id twice.
    for (uint64_t c = 1; c <= 40; ++c)
        for (uint32_t id = 0; id <= 16384; ++id) cal.push(c, id == 16384 ? 7 : id);
    CHECK(cal.bucketCapacity() >= 40 * 16385);
    for (uint64_t c = 1; c <= 40; ++c) {
        cal.takeDue(c, got);
        REQUIRE(got.size() == 16385);
        CHECK(got[7] == 7);
        CHECK(got[8] == 7);  // the duplicate, in id order
    }
    CHECK(cal.empty());
    CHECK(cal.bucketCapacity() <= 40 * noc::CycleCalendar::kKeep);
}

TEST_CASE("cycle calendar: the ring's last cycle and the first beyond it", "[noc][traffic]") {
    noc::CycleCalendar cal;
    std::vector<uint32_t> got;
    cal.takeDue(99, got);  // the ring now covers [100, 100 + kRing)
    constexpr uint64_t R = noc::CycleCalendar::kRing;
    cal.push(100 + R, 1);      // the first cycle beyond: the heap
    cal.push(100 + R - 1, 2);  // the ring's last cycle
    cal.push(100 + R, 0);
    cal.push(100, 3);
    CHECK(cal.earliest() == 100);
    cal.takeDue(100 + R - 2, got);
    CHECK(got == std::vector<uint32_t>{3});
    CHECK(cal.earliest() == 100 + R - 1);
    cal.takeDue(100 + R - 1, got);
    CHECK(got == std::vector<uint32_t>{2});
    cal.takeDue(100 + R, got);
    CHECK(got == std::vector<uint32_t>{0, 1});
    CHECK(cal.empty());
    // "Never" is never taken, and asking for the last cycle does not wrap the cursor.
    cal.push(UINT64_MAX, 4);
    cal.takeDue(UINT64_MAX, got);
    CHECK(got.empty());
    CHECK(cal.earliest() == UINT64_MAX);
}
