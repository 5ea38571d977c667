#pragma once
// MeshGEMM on a non-square Nh x Nw core block by WaferLLM's lcm rule (Sec. 5.4): the K dimension
// is cut into L = lcm(Nh, Nw) blocks, as if A and B were partitioned over L x L cores. Core (y, x)
// keeps C(y, x) [m/Nh x n/Nw]. Along every row the L K-blocks of A(y, :) sit on a logical ring of
// L slots laid over the row's interleaved ring of Nw cores, L/Nw consecutive slots per core;
// along every column the L K-blocks of B(:, x) likewise, L/Nh slots per core. Each of L steps
// every core multiplies the blocks in its front slots and passes them to its ring predecessor,
// receiving its successor's into its last slot (the other slots move by renaming, not copying).
// With ring positions py = pos(y), px = pos(x), core (y, x)'s front slots hold K-block
// (px L/Nw + py L/Nh + s) mod L of both A and B at step s, so the placement is aligned. On a
// square block (L = P) this is RingGemmSchedule's MeshGEMM with a different K-block bijection.
// With the Linear ring kind it is Cannon on Nh x Nw by the same rule (the wrap crosses the line).
#include <cstdint>

#include "firmware/KernelPlan.h"
#include "firmware/RingOrder.h"
#include "noc/Network.h"

namespace wsc::firmware {

class RectRingGemmSchedule {
  public:
    // rows = Nh, cols = Nw: the top-left rows x cols cores of a mesh_x x mesh_y mesh.
    RectRingGemmSchedule(RingOrder::Kind kind, uint32_t mesh_x, uint32_t mesh_y, uint32_t rows,
                         uint32_t cols, uint32_t m, uint32_t k, uint32_t n);
    KernelPlan build(noc::Network& net) const;
    uint32_t lcm() const { return l_; }

  private:
    RingOrder row_ring_,
        col_ring_;  // ring over the Nw cores of a row, over the Nh cores of a column
    uint32_t mesh_x_, mesh_y_, rows_, cols_, l_, m_, k_, n_, tm_, tk_, tn_;
};

}  // namespace wsc::firmware
