#pragma once
// y[1 x n] = x[1 x k] * W[k x n] on the top-left P x Q cores (P rows, Q columns; WaferLLM Sec. 6).
// Core (i, j) holds x block i (x is split into P blocks along the rows and replicated along the
// columns) and W block (i, j) (K-block i of P, N-block j of Q), computes the partial
// y_j^(i) = x_i W(i, j) on its PE array, and every column allreduces its P partials of n / Q
// elements (nothing couples the columns, so P x Q needs no lcm rule):
//  - KTree (MeshGEMV, Sec. 6.2, facts file): ReduceTree::kTree over the column's P rows: groups
//    reduce along one-hop chains from both ends into a root near the middle, the roots then the
//    same way (their routes pass through the rows in between without stopping), K levels.
//  - Pipeline (Fig. 8 (1), the Cerebras default): one chain from the far end into row 0.
//  - Ring (Fig. 8 (2)): reduce-scatter then allgather on the interleaved ring, 2(P-1) steps of
//    n / (Q P)-element chunks (padded with zeros when n / Q is not a multiple of P).
// With `broadcast`, the K-tree and pipeline roots multicast y_j back to the column (one route
// north, one south); the ring leaves y_j on every core anyway.
#include <cstdint>

#include "firmware/CoreBlock.h"
#include "firmware/KernelPlan.h"
#include "noc/Network.h"

namespace wsc::firmware {

class GemvSchedule {
  public:
    enum class Allreduce { KTree, Pipeline, Ring };
    // rows = P, cols = Q: a block of a mesh_x x mesh_y mesh, at the top left unless `block`
    // puts it elsewhere or transposes it (std::invalid_argument if it does not fit).
    GemvSchedule(Allreduce ar, uint32_t mesh_x, uint32_t mesh_y, uint32_t rows, uint32_t cols,
                 uint32_t k, uint32_t n, uint32_t tree_k, bool broadcast,
                 const CoreBlock& block = {});
    KernelPlan build(noc::Network& net) const;

  private:
    KernelPlan buildTree(noc::Network& net) const;
    KernelPlan buildRing(noc::Network& net) const;

    Allreduce ar_;
    uint32_t mesh_x_, mesh_y_, p_, q_, k_, n_, tk_, tn_, tree_k_;
    bool broadcast_;
    CoreBlock block_;
};

}  // namespace wsc::firmware
