#pragma once
// WaferLLM's dist-GEMM-T (Sec. 5.3, "Transposed distributed GEMM"): C[m x n] = A[m x k] * B^T
// with B stored [n x k], on the top-left P x P cores, without ever transposing B on the mesh.
// A and B share one partition shape: core (i, j) holds A(i, j) (row block i, K block j) and
// B(i, j) (N block i, K block j), the layout Q and K have after X*W_Q and X*W_K. There is no
// alignment. Each of P steps shifts B one step along its column ring (two-hop interleaved ring,
// as MeshGEMM) while core (i, j) multiplies A(i, j) * B(r, j)^T, r = ring.at(pos(i) + s): a
// K-partial of C(i, r). The P partials of row i are then reduce-added along the row by a
// K-tree (ReduceTree::kTree, as MeshGEMV's allreduce, rooted at column r; K = tree_k) into core
// (i, r), so C(i, j) ends on core (i, j). A never moves. A plain chain along the row ring would
// take P - 1 serial reduce-and-forward stages per step; the tree takes O(K P^(1/K)).
#include <cstdint>

#include "firmware/KernelPlan.h"
#include "firmware/RingOrder.h"
#include "noc/Network.h"

namespace wsc::firmware {

class RingGemmTSchedule {
  public:
    RingGemmTSchedule(uint32_t mesh_x, uint32_t mesh_y, uint32_t p, uint32_t m, uint32_t k,
                      uint32_t n, uint32_t tree_k = 2);
    KernelPlan build(noc::Network& net) const;

  private:
    RingOrder ring_;
    uint32_t mesh_x_, mesh_y_, p_, m_, k_, n_, tm_, tk_, tn_, tree_k_;
};

}  // namespace wsc::firmware
