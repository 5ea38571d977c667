#pragma once
// A clean crossing between two clock domains, as plain integer arithmetic (no SystemC), so the
// NoC engine can stay integer-cycle and every crossing is derivable by hand.
//
// Rule: a value that becomes ready at edge c of the source domain (time c / f_src) is captured
// by the first destination edge at or after that time and passes `sync` more destination edges
// in the synchronizer before it is visible:
//
//     visible(c) = ceil(c * f_dst / f_src) + sync
//
// Frequencies are whole Hz (ClockDomainCrossing::hz rounds a configured clock), so the rule is
// exact: 1 GHz and 1.1 GHz edges coincide every 10 ns, and the arithmetic knows it.
//
// Two derived closed forms (docs/ARCHITECTURE.md, "Clock domains"):
//  - durationIn(n, f_src, f_dst) = ceil(n * f_dst / f_src): n source cycles as whole
//    destination cycles, rounded up (an occupancy never comes out shorter than it is).
//  - worstRoundTrip(f_home, f_away, S_away, K, S_home): an event at home edge g crosses to the
//    away domain (S_away), spends K away cycles there, crosses back (S_home). Over all phases g
//    of the two clocks the largest (arrival - g), in home cycles, is
//        ceil(((S_away + K + 1) * f_home - gcd(f_home, f_away)) / f_away) + S_home.
//    (ceil(g f_a / f_h) = (g f_a + r) / f_h with r in {0, G, ..., f_h - G}, G = gcd; the return
//    trip adds g + ceil((r + (S_away + K) f_h) / f_a), largest at r = f_h - G.)
#include <cstdint>

namespace wsc::noc {

class ClockDomainCrossing {
  public:
    ClockDomainCrossing(uint64_t src_hz, uint64_t dst_hz, uint32_t sync);

    // The destination cycle at which a value ready at source cycle c is visible.
    uint64_t visible(uint64_t src_cycle) const;
    uint64_t srcHz() const { return src_hz_; }
    uint64_t dstHz() const { return dst_hz_; }
    uint32_t sync() const { return sync_; }

    // A configured clock (Hz, > 0) as whole Hz, nearest; at least 1.
    static uint64_t hz(double clock_hz);
    static uint64_t gcd(uint64_t a, uint64_t b);
    // ceil(n * f_dst / f_src).
    static uint64_t durationIn(uint64_t n, uint64_t src_hz, uint64_t dst_hz);
    // See above: the largest home-cycle delay of an out-and-back crossing over all clock phases.
    static uint64_t worstRoundTrip(uint64_t home_hz, uint64_t away_hz, uint32_t away_sync,
                                   uint64_t away_cycles, uint32_t home_sync);

  private:
    uint64_t src_hz_, dst_hz_;
    uint32_t sync_;
};

}  // namespace wsc::noc
