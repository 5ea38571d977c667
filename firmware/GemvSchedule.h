#pragma once
// y[1 x n] = x[1 x k] * W[k x n] on the top-left P x P cores (WaferLLM Sec. 6). Core (i, j) holds
// x block i (x is split along the rows and replicated along the columns) and W block (i, j),
// computes the partial y_j^(i) = x_i W(i, j) on its PE array, and every column allreduces its P
// partials of n / P elements:
//  - KTree (MeshGEMV, Sec. 6.2, facts file): the column's rows are split into groups; inside a
//    group partials are reduced along one-hop chains from both ends into a root near the middle;
//    the roots then reduce the same way (their routes pass through the rows in between without
//    stopping) into the global root; K levels in all (K = 2: G groups, the largest power of two
//    not above sqrt(P): 8 for 64 and 128 rows, 16 for 256 and 512, as WaferLLM's benchmarks).
//  - Pipeline (Fig. 8 (1), the Cerebras default): one chain from the far end into row 0.
//  - Ring (Fig. 8 (2)): reduce-scatter then allgather on the interleaved ring, 2(P-1) steps of
//    n / P^2-element chunks (padded with zeros when n / P is not a multiple of P).
// With `broadcast`, the K-tree and pipeline roots multicast y_j back to the column (one route
// north, one south); the ring leaves y_j on every core anyway.
#include <cstdint>

#include "firmware/KernelPlan.h"
#include "noc/Network.h"

namespace wsc::firmware {

class GemvSchedule {
  public:
    enum class Allreduce { KTree, Pipeline, Ring };
    GemvSchedule(Allreduce ar, uint32_t mesh_x, uint32_t mesh_y, uint32_t p, uint32_t k, uint32_t n,
                 uint32_t tree_k, bool broadcast);
    KernelPlan build(noc::Network& net) const;
    // Groups at the first level of a K = 2 tree over p rows.
    static uint32_t groupsFor(uint32_t p);

  private:
    KernelPlan buildTree(noc::Network& net) const;
    KernelPlan buildRing(noc::Network& net) const;

    Allreduce ar_;
    uint32_t mesh_x_, mesh_y_, p_, k_, n_, tk_, tn_, tree_k_;
    bool broadcast_;
};

}  // namespace wsc::firmware
