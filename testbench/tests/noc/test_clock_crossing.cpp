// ClockDomainCrossing: the crossing rule against a brute-force walk over the two clocks' edges,
// and the worst-case round trip against an enumeration of every clock phase. Plain C++, no kernel.
#include <algorithm>
#include <catch2/catch.hpp>

#include "noc/ClockDomainCrossing.h"

using namespace wsc;
using noc::ClockDomainCrossing;

namespace {
// First destination edge at or after source edge c, found by walking destination edges: edge e
// is at time e / f_dst, so e qualifies when e * f_src >= c * f_dst (exact in integers).
uint64_t walk(uint64_t c, uint64_t src, uint64_t dst) {
    uint64_t e = 0;
    while (static_cast<unsigned __int128>(e) * src < static_cast<unsigned __int128>(c) * dst) ++e;
    return e;
}

// Out-and-back crossing of the event at home edge g, by the rule, step by step.
uint64_t roundTrip(uint64_t g, uint64_t home, uint64_t away, uint32_t sa, uint64_t k, uint32_t sh) {
    const uint64_t a = walk(g, home, away) + sa;  // visible in the away domain
    return walk(a + k, away, home) + sh - g;      // back home, relative to g
}
}  // namespace

TEST_CASE("crossing: visible = first destination edge at or after, plus the synchronizer",
          "[noc][clock]") {
    struct Ratio {
        uint64_t src, dst;
    };
    // 1:1, 2:1 both ways, 3:2 both ways, 1 GHz vs 1.1 GHz, and two clocks whose edges meet only
    // every 10^9 / gcd source cycles (incommensurate for practical purposes).
    const Ratio ratios[] = {{1000000000, 1000000000}, {2000000000, 1000000000},
                            {1000000000, 2000000000}, {3000000000, 2000000000},
                            {2000000000, 3000000000}, {1000000000, 1100000000},
                            {1000000007, 999999937}};
    for (const Ratio& r : ratios)
        for (uint32_t sync : {0u, 2u}) {
            ClockDomainCrossing x(r.src, r.dst, sync);
            for (uint64_t c = 0; c < 200; ++c) {
                INFO(r.src << " Hz -> " << r.dst << " Hz, sync " << sync << ", c " << c);
                CHECK(x.visible(c) == walk(c, r.src, r.dst) + sync);
            }
        }
    // Hand-checked values of the closed form ceil(c * f_dst / f_src) + sync.
    CHECK(ClockDomainCrossing(1000000000, 1000000000, 2).visible(7) == 9);    // 1:1: c + 2
    CHECK(ClockDomainCrossing(2000000000, 1000000000, 2).visible(7) == 6);    // 3.5 ns -> edge 4
    CHECK(ClockDomainCrossing(1000000000, 2000000000, 2).visible(7) == 16);   // 7 ns = edge 14
    CHECK(ClockDomainCrossing(3000000000, 2000000000, 0).visible(4) == 3);    // 4/3 ns -> 1.5 ns
    CHECK(ClockDomainCrossing(1000000000, 1100000000, 0).visible(10) == 11);  // edges meet
    CHECK(ClockDomainCrossing(1000000000, 1100000000, 0).visible(9) == 10);   // 9.9 -> 10
}

TEST_CASE("crossing: worst-case round trip equals the largest over every clock phase",
          "[noc][clock]") {
    struct Case {
        uint64_t home, away;
    };
    // Phases repeat every home / gcd home cycles; each case enumerates at least one period.
    const Case cases[] = {{1000000000, 1000000000}, {1000000000, 500000000},
                          {1000000000, 2000000000}, {2000000000, 3000000000},
                          {3000000000, 2000000000}, {1000000000, 1100000000},
                          {1000000, 999983}};  // gcd 1: a 10^6-cycle period
    for (const Case& c : cases)
        for (uint32_t s : {0u, 2u})
            for (uint64_t k : {0ull, 1ull, 7ull, 400ull}) {
                const uint64_t period = c.home / ClockDomainCrossing::gcd(c.home, c.away);
                const uint64_t n = std::min<uint64_t>(period, 2000);
                uint64_t worst = 0;
                for (uint64_t g = 0; g < n; ++g)
                    worst = std::max(worst, roundTrip(g, c.home, c.away, s, k, s));
                const uint64_t formula =
                    ClockDomainCrossing::worstRoundTrip(c.home, c.away, s, k, s);
                INFO(c.home << " Hz <-> " << c.away << " Hz, sync " << s << ", K " << k);
                if (n == period)
                    CHECK(worst == formula);  // the whole period seen: the maximum is exact
                else
                    CHECK(worst <= formula);  // a sample of the period never exceeds it
            }
    // The long-period case does reach the formula at the phase the derivation names:
    // r = f_h - G means g * f_a = G (mod f_h).
    const uint64_t h = 1000000, a = 999983;
    uint64_t g = 0;
    while ((static_cast<unsigned __int128>(g) * a) % h != 1) ++g;
    CHECK(roundTrip(g, h, a, 2, 7, 2) == ClockDomainCrossing::worstRoundTrip(h, a, 2, 7, 2));
    // Same clock: the crossing costs exactly both synchronizers.
    CHECK(ClockDomainCrossing::worstRoundTrip(1000000000, 1000000000, 2, 7, 2) == 7 + 4);
    // Away clock at half the rate: K + S_away away cycles are twice as many home cycles, and the
    // home edge can fall between away edges (+1).
    CHECK(ClockDomainCrossing::worstRoundTrip(1000000000, 500000000, 2, 7, 2) == 2 * 9 + 1 + 2);
}

TEST_CASE("crossing: durations convert rounded up, clocks round to whole Hz", "[noc][clock]") {
    CHECK(ClockDomainCrossing::durationIn(3, 500000000, 1000000000) == 6);
    CHECK(ClockDomainCrossing::durationIn(3, 2000000000, 1000000000) == 2);  // 1.5 -> 2
    CHECK(ClockDomainCrossing::durationIn(4, 2000000000, 1000000000) == 2);
    CHECK(ClockDomainCrossing::durationIn(1, 1100000000, 1000000000) == 1);
    CHECK(ClockDomainCrossing::hz(1.1e9) == 1100000000);
    CHECK(ClockDomainCrossing::hz(1e9 / 3) == 333333333);
    CHECK_THROWS(ClockDomainCrossing(0, 1, 0));
}
