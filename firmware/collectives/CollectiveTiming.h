#pragma once
// Closed-form (alpha-beta-gamma) time of a ring collective on an idle NoC, from the network's
// own numbers (noc::ZeroLoadModel: injection, router pipelines, link flights, serialisation,
// ejection) and the core's vector unit. docs/COLLECTIVES.md, "Timing", derives it and tabulates
// the agreement with the simulation (testbench/tests/coll/test_coll_timing.cpp).
//
// A ring collective is T communication steps (all-reduce 2(N-1), reduce-scatter and all-gather
// N-1), each step k pieces per lane (bidirectional: 2 lanes, each carrying half of every block).
// One piece is F flits. Per hop e of the ring (a route of one or more links):
//   l_e = T0_e(F) + 1 + V        latency of a piece: zero-load time of an F-flit packet on e's
//                                route, the cycle the data lands, and on reduce-scatter steps
//                                the VADD (bidirectional: lane 1's waits for lane 0's, below)
//   b   = max(c F s, L F s_inj, L V, L (P_s + V) / ports)  cycles a piece slot occupies its
//                                busiest resource: a link (s cycles per flit, c of the
//                                collective's hops sharing it), the injection link, the vector
//                                unit, the SRAM ports (a SEND holds one for P_s = bytes / port
//                                width, a VADD for V; V only on reduce-scatter steps)
// Piece x of step t leaves position p once piece x of step t-1 has arrived over the hop into p
// (l) and p's previous piece has left (b). The time is the longest path of that max-plus system:
// with f_t(p) when p sends step t's first piece, f_{t+1}(p) = max(f_t(p) + k b,
// f_t(p-1) + l_{p-1,p}) and T_ring = max_p f_{T-1}(p) + (k - 1) b + l + 1. On a contiguous ring
// (every hop alike) that is (T - 1) max(l, k b) + (k - 1) b + l + 1, for k = 1 and no reduction
// the textbook T (alpha + S_step / B) with alpha = T0(1 flit) + 1 and B = flit bytes / s. A
// bidirectional ring's rank runs both lanes in one in-order program (lane 0's piece, then lane
// 1's), so lane 1 also follows lane 0 within a slot and the next step's lane 0 the slot's last
// lane-1 piece: the critical path may bounce between the lanes. The form assumes a link serves a
// rank's pieces in turn; VC interleaving and the single network interface per die make the
// simulation slower in some cases (docs/COLLECTIVES.md, "Timing"), never faster by more than 1%.
//
// The direct all-to-all has no steps to chain: every rank issues all its sends at once, so its
// messages drain from the NI's FIFO in program order and the rounds overlap. Its time is the
// largest of three bounds (estimateAllToAll): the busiest link e over the whole collective,
// u_e + W_e - s_e + d_e + 2, with W_e its flits x s_e, u_e its first flit's zero-load grant and
// d_e the trip beyond e of the farthest-going source's last message over it; a die's local
// input port, whose VCs a message of V or more packets fills, so that the die's messages leave
// one at a time; and the latest message on its own. With per-pair counts (all-to-all-v) every
// message has its pair's size; the bounds are the same.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/collectives/CollectiveSpec.h"
#include "noc/Network.h"

namespace wsc::firmware::coll {

// The core numbers the closed form needs (core::CoreParams lives in core/, which firmware/ does
// not see; core/CollectiveCosts.h converts).
struct CoreCosts {
    uint32_t vector_lanes = 4;
    uint32_t vector_latency = 2;    // VADD's pipeline depth
    uint32_t sram_port_bytes = 16;  // a SEND reads its piece through one port, a VADD 3 n elems
    uint32_t sram_ports = 2;
};

struct CollectiveTime {
    uint64_t cycles = 0;       // the closed form (first issue to the last rank's finish, plus one)
    uint32_t steps = 0;        // T
    uint32_t pieces = 0;       // k
    uint32_t lanes = 1;        // L
    uint64_t piece_bytes = 0;  // the largest piece, bytes and flits (F)
    uint64_t piece_flits = 0;
    uint64_t alpha = 0;         // T0 of one flit on the slowest hop, plus landing: T0(1) + 1
    double bandwidth = 0;       // B: bytes per cycle of the slowest link on a hop (flit / s)
    uint64_t step_latency = 0;  // the largest l (with reduction)
    uint64_t piece_cycles = 0;  // b on a reduce-scatter step (the larger)
    uint64_t add_cycles = 0;    // V: one VADD of a piece
    uint32_t max_hops = 0;      // links on the ring's longest hop
    uint32_t sharing = 1;       // c: most of the collective's hops on one link
    // All-to-all (estimateAllToAll): the three bounds whose largest is `cycles`.
    uint64_t link_bound = 0;     // u + (flits - 1) s + d + 2 on the busiest link
    uint64_t link_work = 0;      // W: that link's flits x s (every round: rounds overlap)
    uint64_t link_start = 0;     // u: its first flit's zero-load grant
    uint64_t link_drain = 0;     // d: its last flit's grant to the latest source's delivery
    uint64_t port_bound = 0;     // a die's local input port serialising its messages
    uint64_t latency_bound = 0;  // the latest message alone: FIFO position + T0 + 2
    std::string model;           // the formula with its numbers, for messages
};

class CollectiveTiming {
  public:
    CollectiveTiming(const noc::Network& net, const CoreCosts& costs);

    // Ring all-reduce, reduce-scatter and all-gather (uni- or bidirectional, any ring) and the
    // direct all-to-all (staggered or not, any pieces, uniform or per-pair counts); throws
    // std::invalid_argument on a spec Collectives::validate refuses or another algorithm.
    CollectiveTime estimate(const CollectiveSpec& s) const;

    // The textbook alpha-beta-gamma form the closed form reduces to for one piece on a
    // contiguous ring: T alpha + T S_step / B + R V(S_step), S_step the bytes a rank sends per
    // step per lane and R the reduce-scatter steps.
    double textbook(const CollectiveSpec& s) const;

    uint64_t addCycles(uint64_t elems, DType t) const;  // one VADD (core::VectorUnit::cycles)

  private:
    // Direct all-to-all (docs/COLLECTIVES.md, "Timing"): every rank's messages sit in its NI's
    // FIFO in program order (all sends are issued before any receive, no round waits for
    // another), so the rounds overlap and the time is the largest of: the busiest link's
    // flits at its rate, from its first flit's zero-load arrival to the delivery of the last
    // message over it; a die's local input port when its messages fill every VC (they then
    // leave one at a time); the latest message on its own.
    CollectiveTime estimateAllToAll(const CollectiveSpec& s) const;

    const noc::Network& net_;
    CoreCosts c_;
};

}  // namespace wsc::firmware::coll
