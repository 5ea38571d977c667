#pragma once
// Causal multi-head attention of a prefill on a P x P core block, per head, in the prefill's
// layout (WaferLLM Fig. 3: q, k, v as L_y E_x): with c = P / H columns per head, head h's q, k
// and v live on the column segment h c .. h c + c - 1 (D = c te features), so the heads run side
// by side, each on its P x c segment, and nothing is transposed.
//   scores  dist-GEMM-T per head: k shifts along every column's interleaved ring (P steps, as
//           RingGemmTSchedule); each step every core multiplies q(i, j) k(r, j)^T, its features'
//           part of S_h(i, r), and the segment's K-tree reduce-adds the c parts into core
//           (i, h c + r mod c), chunk r / c of its score tile (H chunks of tm x tm: the keys of
//           the blocks r = u, u + c, ... for segment column u)
//   softmax the causal mask (a preset tile) added; per query, max and sum over the chunks, then
//           over the segment (allreduces of tm values along the c cores)
//   context out(i, j) = sum_r S_h(i, r) v(r, j): v shifts along the column rings as k did; each
//           step the holder of S_h(i, r) multicasts it along its segment and every core
//           multiplies it into its features of the output
// So every core holds, and works on, what per-head attention needs: H tm^2 scores (not
// WaferLLM's one tm^2 product over the embedding). Buffers: q (read only), k0 and v0 (the
// tiles, overwritten by the shifts), out (the result, tm x te).
#include <cstdint>

#include "firmware/KernelPlan.h"
#include "noc/Network.h"

namespace wsc::firmware::waferllm {

class HeadAttentionSchedule {
  public:
    // tokens L, hidden E (= heads x head dim), heads H; P % H == 0, L % P == 0, E % P == 0.
    HeadAttentionSchedule(uint32_t mesh_x, uint32_t mesh_y, uint32_t p, uint32_t tokens,
                          uint32_t hidden, uint32_t heads, uint32_t tree_k = 2);
    // Whether the layout fits: H divides P and the features split over P.
    static bool applies(uint32_t p, uint32_t hidden, uint32_t heads);
    KernelPlan build(noc::Network& net) const;
    // The causal mask of core (i, j)'s score tile (H chunks of tm x tm, chunk-major).
    std::vector<float> mask(uint32_t i, uint32_t j) const;

  private:
    uint32_t mesh_x_, mesh_y_, p_, l_, e_, h_, tree_k_, c_, tm_, te_;
};

}  // namespace wsc::firmware::waferllm
