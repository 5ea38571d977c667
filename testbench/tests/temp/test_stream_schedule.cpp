// TEMP's stream schedules as rounds (firmware/temp/StreamSchedule): the contract check, one
// chain hop per TATP transfer, and the buffer peaks docs/TEMP.md states.
#include <catch2/catch.hpp>

#include "firmware/temp/StreamSchedule.h"

using wsc::firmware::temp::StreamSchedule;
using A = StreamSchedule::Algo;
using K = StreamSchedule::Kind;

TEST_CASE("TATP and ring schedules keep their contract for N = 1..33", "[temp]") {
    for (uint32_t n = 1; n <= 33; ++n)
        for (A a : {A::Tatp, A::Ring})
            for (K k : {K::Broadcast, K::Reduce}) {
                INFO("n " << n << " " << StreamSchedule::name(a) << " " << StreamSchedule::name(k));
                const StreamSchedule s = StreamSchedule::make(a, k, n);
                REQUIRE_NOTHROW(s.check());
                // Every position gets every foreign item (or sends every foreign partial) once:
                // n (n - 1) transfers in all.
                CHECK(s.transfers().size() == size_t(n) * (n - 1));
            }
}

TEST_CASE("TATP follows Algorithm 1's compute rule and TEMP's N = 4 example", "[temp]") {
    const StreamSchedule s = StreamSchedule::make(A::Tatp, K::Broadcast, 4);
    // TEMP Sec. V: in round 1 dies 0-3 compute with W1, W2, W1, W2.
    CHECK(s.computeItem(0, 1) == 1);
    CHECK(s.computeItem(1, 1) == 2);
    CHECK(s.computeItem(2, 1) == 1);
    CHECK(s.computeItem(3, 1) == 2);
    // Die 3 sends W3 to die 2 in round 0, die 2 relays it to die 1 in round 1, die 1 computes
    // O_13 with it in round 2.
    bool r0 = false, r1 = false;
    for (const auto& t : s.transfers()) {
        r0 |= t.round == 0 && t.src == 3 && t.dst == 2 && t.item == 3;
        r1 |= t.round == 1 && t.src == 2 && t.dst == 1 && t.item == 3;
    }
    CHECK(r0);
    CHECK(r1);
    CHECK(s.computeRound(1, 3) == 2);
    // Die 3 computes O_33, O_32, O_31, O_30 in turn.
    for (uint32_t r = 0; r < 4; ++r) CHECK(s.computeItem(3, r) == 3 - r);
}

TEST_CASE("Algorithm 1's printed send rules fail the check; the derived ones pass", "[temp]") {
    // Lines 6-9 of TEMP Algorithm 1 as printed, for N = 8, with the compute rule of lines 2-4.
    const int n = 8;
    std::vector<uint32_t> items(n * n);
    for (int p = 0; p < n; ++p)
        for (int t = 0; t < n; ++t) items[p * n + t] = 2 * p < n ? (p + t) % n : (p - t + n) % n;
    std::vector<StreamSchedule::Transfer> printed;
    int off_array = 0;
    auto send = [&](int t, int src, int dst, int item) {
        if (dst < 0 || dst >= n) {
            ++off_array;
            return;
        }
        printed.push_back(
            {uint32_t(t), uint32_t(src), uint32_t(dst), uint32_t(((item % n) + n) % n)});
    };
    for (int t = 0; t + 1 < n; ++t)
        for (int src = 0; src < n; ++src) {
            if (t <= src && src < n - 1) send(t, src, src - 1, src + t);
            if (0 < src && src < n - t - 1) send(t, src, src + 1, src - t + n);
            if (t > n / 2 - 1 && t - n / 2 <= src && src < t) send(t, src, src - 1, src - n + t);
            if (t > n / 2 - 1 && n - t < src && src <= 3 * n / 2 - t)
                send(t, src, src + 1, n + src - t);
        }
    CHECK(off_array > 0);  // e.g. line 8 at t = 4, src = 0 sends to die -1
    const StreamSchedule bad = StreamSchedule::custom(A::Tatp, K::Broadcast, n, items, printed);
    CHECK_THROWS_WITH(bad.check(), Catch::Contains("before it has it") ||
                                       Catch::Contains("twice") ||
                                       Catch::Contains("two transfers"));
    // The derived schedule has the same compute table and passes.
    const StreamSchedule good = StreamSchedule::make(A::Tatp, K::Broadcast, n);
    for (int p = 0; p < n; ++p)
        for (int t = 0; t < n; ++t) CHECK(good.computeItem(p, t) == items[p * n + t]);
    CHECK_NOTHROW(good.check());
}

TEST_CASE("buffer peaks of TATP and the ring are the closed forms of docs/TEMP.md", "[temp]") {
    for (uint32_t n = 4; n <= 32; ++n) {
        INFO("n " << n);
        const StreamSchedule tb = StreamSchedule::make(A::Tatp, K::Broadcast, n);
        const StreamSchedule tr = StreamSchedule::make(A::Tatp, K::Reduce, n);
        for (uint32_t p = 0; p < n; ++p) {
            INFO("position " << p);
            CHECK(tb.slotPeak(p) == std::min(p, n - 1 - p) + 2);
        }
        CHECK(tb.slotPeak() == (n - 1) / 2 + 2);
        CHECK(StreamSchedule::make(A::Ring, K::Broadcast, n).slotPeak() == 2);
        // The reduce is the broadcast reversed, with an accumulator and a received copy live in
        // the round a partial arrives beside the position's own contribution.
        for (uint32_t p = 0; p < n; ++p) {
            const uint32_t m = std::min(p, n - 1 - p);
            CHECK(tr.slotPeak(p) == (m == 0 ? 2 : m == 1 ? 6 : m + 6));
        }
        CHECK(StreamSchedule::make(A::Ring, K::Reduce, n).slotPeak() == 4);
    }
    CHECK(StreamSchedule::make(A::Tatp, K::Broadcast, 2).slotPeak() == 1);
    CHECK(StreamSchedule::make(A::Tatp, K::Broadcast, 3).slotPeak() == 2);
}

#include "firmware/temp/GroupLayout.h"

using wsc::firmware::temp::GroupLayout;

TEST_CASE("group layouts: rings close, lines and tetris shapes do not", "[temp]") {
    const wsc::firmware::placement::DieArray a{4, 8};  // configs/temp_4x8_die_level.yaml
    for (uint32_t n : {2u, 4u, 8u, 16u, 32u}) {
        INFO("N " << n);
        const auto rings = GroupLayout::ring(n, a);
        CHECK(rings.size() == 32 / n);
        std::vector<int> seen(32, 0);
        for (const auto& g : rings) {
            for (uint32_t d : g) seen[d]++;
            for (uint32_t h : GroupLayout::chainHops(g, a)) CHECK(h == 1);
            CHECK(GroupLayout::wrapHops(g, a) == 1);
        }
        for (int s : seen) CHECK(s == 1);
    }
    // Lines: one-hop chains whose wrap spans the line.
    for (uint32_t n : {4u, 8u}) {
        for (const auto& g : GroupLayout::line(n, a)) {
            for (uint32_t h : GroupLayout::chainHops(g, a)) CHECK(h == 1);
            CHECK(GroupLayout::wrapHops(g, a) == n - 1);
        }
    }
    // TEMP Fig. 8a: a 3 x 4 array in groups of 4 along the snake gives two L shapes without a
    // ring (but with a one-hop chain) and one 2 x 2 block that is a ring.
    const wsc::firmware::placement::DieArray f8{3, 4};
    const auto t = GroupLayout::tetris(4, f8);
    REQUIRE(t.size() == 3);
    for (const auto& g : t)
        for (uint32_t h : GroupLayout::chainHops(g, f8)) CHECK(h == 1);
    CHECK(GroupLayout::wrapHops(t[0], f8) > 1);
    CHECK(GroupLayout::wrapHops(t[1], f8) == 1);
    CHECK(GroupLayout::wrapHops(t[2], f8) > 1);
    // Explicit groups in chain order (TEMP Fig. 11's strided groups take two hops per step).
    const wsc::firmware::placement::DieArray f11{4, 4};
    const auto e = GroupLayout::make("0,2,10,8;1,3,11,9;4,6,14,12;5,7,15,13", 4, f11);
    CHECK(GroupLayout::chainHops(e[0], f11) == std::vector<uint32_t>{2, 2, 2});
    CHECK_THROWS_WITH(GroupLayout::make("0,1;1,2", 2, f11), Catch::Contains("two groups"));
    CHECK_THROWS_WITH(GroupLayout::make("0,99", 2, f11), Catch::Contains("off the"));
    CHECK_THROWS_WITH(GroupLayout::make("snake", 2, f11), Catch::Contains("unknown"));
    CHECK_THROWS_WITH(GroupLayout::make("0,+1", 2, f11), Catch::Contains("'+1' is not a die"));
    CHECK_THROWS_WITH(GroupLayout::make("0, 1", 2, f11), Catch::Contains("' 1' is not a die"));
    CHECK_THROWS_WITH(GroupLayout::ring(3, a), Catch::Contains("do not split"));
}
