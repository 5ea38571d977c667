#pragma once
// SUMMA (WaferLLM Fig. 6 (2), Cerebras' default): in step kk, core (i, kk) broadcasts A(i, kk)
// along row i and core (kk, j) broadcasts B(kk, j) along column j; every core multiplies the pair
// into its C(i, j). Broadcasts use one multicast route per source while the routers have room
// (2P entries per router are needed, so R runs out near P = 12 with 24 routes) and fall back to
// a software pipeline along the line (LineBroadcast). Receive buffers are double-buffered so the
// next broadcast can land while the current pair is multiplied.
//
// With `gather` set this is GEMM via allgather (Fig. 6 (1)): every core first collects the whole
// row of A blocks and column of B blocks (P tiles each: O(1/P) memory per core instead of
// O(1/P^2)), then multiplies them as they arrive.
//
// On a P x Q mesh (P rows, Q columns) A's K-blocks are spread over Q columns and B's over P rows,
// so K is cut into L = lcm(P, Q) blocks (the lcm rule of WaferLLM Sec. 5.4): core (i, j) owns A
// blocks j L/Q .. (j+1) L/Q - 1 and B blocks i L/P .. (i+1) L/P - 1, and each of L steps
// broadcasts one block of each; an owner's broadcasts share one route.
#include <cstdint>

#include "firmware/KernelPlan.h"
#include "noc/Network.h"

namespace wsc::firmware {

class SummaGemmSchedule {
  public:
    // rows = P, cols = Q: the top-left block of a mesh_x x mesh_y mesh.
    SummaGemmSchedule(uint32_t mesh_x, uint32_t mesh_y, uint32_t rows, uint32_t cols, uint32_t m,
                      uint32_t k, uint32_t n, bool gather);
    KernelPlan build(noc::Network& net) const;

  private:
    uint32_t mesh_x_, mesh_y_, p_, q_, l_, m_, k_, n_, tm_, tk_, tn_;
    bool gather_;
};

}  // namespace wsc::firmware
