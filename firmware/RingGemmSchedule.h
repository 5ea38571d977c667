#pragma once
// C[m x n] = A[m x k] * B[k x n] on the top-left P x P cores of a mesh by Cannon's algorithm on a
// ring laid along every row (A tiles) and every column (B tiles). With the Interleave ring this is
// WaferLLM's MeshGEMM (Sec. 5.3): every logical hop spans at most two physical hops, the core in
// between only forwards in its router. With the Linear ring it is Cannon flattened onto the mesh
// (Fig. 6 (3)): the tail-to-head hop crosses the whole row or column every step.
//
// Core (i, j) keeps C(i, j). With ring positions rho = pos(i), gamma = pos(j), it holds at step s
// A(i, kk) and B(kk, j) for kk = ring.at(rho + gamma + s), receiving each step from the ring
// successor and sending to the predecessor (any bijection of K blocks works; this one makes the
// unaligned start "A(i, j), B(i, j) on core (i, j)"). Alignment either comes with the placement
// (preload: the layout a previous operator leaves, as ShiftGemmSchedule's DMA addressing) or is
// done by messages: row i shifts A by pos(i) ring steps, column j shifts B by pos(j) steps, with
// no compute. Then P double-buffered steps send the current tiles on while multiplying them.
#include <cstdint>

#include "firmware/KernelPlan.h"
#include "firmware/RingOrder.h"
#include "noc/Network.h"

namespace wsc::firmware {

class RingGemmSchedule {
  public:
    RingGemmSchedule(RingOrder::Kind ring, uint32_t mesh_x, uint32_t mesh_y, uint32_t p, uint32_t m,
                     uint32_t k, uint32_t n, bool shift_alignment, bool b_placed = false);
    // Installs the ring routes on `net` (within its route limit, else relayed) and generates.
    KernelPlan build(noc::Network& net) const;

  private:
    RingOrder ring_;
    uint32_t mesh_x_, mesh_y_, p_, m_, k_, n_, tm_, tk_, tn_;
    // shift_align_ with b_placed_: only A is aligned by messages; B (weights loaded before the
    // run) is already placed aligned, as WaferLLM's prefill pre-shifts only the activations.
    bool shift_align_, b_placed_;
};

}  // namespace wsc::firmware
