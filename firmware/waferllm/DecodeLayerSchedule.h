#pragma once
// One decode step (one new token) through dense transformer layers on a P x Q core block, as one
// per-core program composed from the kernel schedules (WaferLLM Sec. 4, Fig. 4: the decode
// layout, weights pre-placed for GEMV so nothing is ever transposed). Per layer, on every core
// (i, j) of the block:
//   x      the residual stream, E / P features of block i, replicated along the row
//   norm1  h = x * rsqrt(mean(x^2) + eps) * g1: local sum of squares, a column allreduce of
//          one value (K-tree to the middle row, multicast back), vector ops
//   qkv    GEMV y = h Wqkv (MeshGEMV: K over the rows, the column's K-tree allreduce, result
//          multicast back): column j gets exactly the q, k, v features its attention needs,
//          because Wqkv's columns are pre-placed in that order (q of the G query heads, then k
//          and v, of head slice j % Qh of KV head j / Qh)
//   attn   the KV heads side by side, Qh = Q / Hkv columns each (DecodeAttentionSchedule at
//          column h Qh): the new k and v are copied into the cache's last slot on the last row,
//          then the step (shift or concat) runs; its output lands on the middle row
//   o      the output is multicast down the column, then a transposed GEMV (K over the columns,
//          the row's K-tree allreduce, multicast along the row) gives E / P features per row:
//          the residual's layout again, so x += o is local
//   norm2, up: GEMV to [gate | up] per column (pre-placed again), act = silu(gate) * up
//   down   transposed GEMV back to the residual's layout, x += down
// Rotary position embeddings are not modelled (an element-wise rotation of q and k; its pairs
// would need a fixed feature order per core). 1 / sqrt(D) is folded into Wq.
// Routes are shared between operations that use the same trees (Network::setRouteReuse).
// A core whose buffers (plus the attention's reserve for early arrivals) pass its SRAM stops the
// build with the core, the decode step and the bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/KernelPlan.h"
#include "firmware/waferllm/DecodeModelData.h"
#include "firmware/waferllm/KvCache.h"
#include "firmware/waferllm/LayerShape.h"
#include "noc/Network.h"

namespace wsc::firmware::waferllm {

class DecodeLayerSchedule {
  public:
    struct Spec {
        uint32_t mesh_x = 0, mesh_y = 0;  // the network; the block is its top-left P x Q
        uint32_t rows = 1, cols = 1;      // P, Q
        LayerShape layer;
        uint32_t layers = 1;  // layers in the program, one after the other (own weights each)
        KvCache::Policy policy = KvCache::Policy::Shift;
        uint64_t prompt = 1;      // tokens in the cache after the prefill
        uint64_t generated = 0;   // tokens decoded before this step
        uint32_t tree_k = 2;      // K-tree levels of every reduction
        uint64_t sram_bytes = 0;  // each core's SRAM (0: not checked)
        bool functional = false;  // operands and the expected output (KernelPlan::preset/expect)
        uint64_t seed = 1;
        // Functional values: weights, the cache (prompt + generated tokens) and the input; null:
        // drawn from `seed` for this step alone. The plan also expects the new token's k and v
        // in the cache's last slot of every layer.
        const DecodeModelData* data = nullptr;
    };
    explicit DecodeLayerSchedule(const Spec& s);
    KernelPlan build(noc::Network& net) const;

    // Columns per KV head and features of a head per core column.
    uint32_t headCols() const { return qh_; }
    uint32_t headSlice() const { return d_; }

  private:
    Spec s_;
    uint32_t qh_ = 1, d_ = 1, g_ = 1;
};

}  // namespace wsc::firmware::waferllm
