#pragma once
// One decode step of attention for one KV head over its cache on a P x Q block of cores
// (WaferLLM Sec. 4.2-4.3, Figs. 4-5). The cache's tokens are split over the P rows as KvCache
// says (row 0 the oldest), the head's D features over the Q columns (d = D / Q each); a model's
// KV heads are such blocks side by side, with nothing between them, so one block's cycles are a
// layer's attention cycles. Core (r, j) holds K and V [n_r x d] (its row's tokens, the last row
// also the new token's, which the QKV projection wrote into its last slot) and the G query
// heads' slices q_h [d] of column j (the projection's broadcast, pre-scaled by 1 / sqrt(D)).
// The step, per query head:
//   scores    S_h = q_h K^T on every core (PE array, dist-GEMM-T form: no transpose), then a
//             row allreduce over the Q columns (K-tree to the row's middle, broadcast back);
//   softmax   local max, a column allreduce of the maxima (K-tree with max, broadcast back),
//             exp(S - max), local sum, a column reduce of the sums to the column's root;
//   output    O_h = exp(S) V on every core, a column reduce to the root, scaled by 1 / sum:
//             out_h [d] of column j at the column's root row.
// KV moves (Shift; none under Concat) are sent first, so they overlap the step: each moving row's
// oldest token (K's and V's first row) goes one hop up into the receiver's Ki and Vi, which the
// next step's layout counts as that row's. A core whose buffers would exceed its SRAM stops the
// build naming the core, the step and the bytes.
#include <cstdint>
#include <string>

#include "firmware/KernelPlan.h"
#include "firmware/waferllm/KvCache.h"
#include "noc/Network.h"

namespace wsc::firmware::waferllm {

class DecodeAttentionSchedule {
  public:
    struct Spec {
        uint32_t mesh_x = 0, mesh_y = 0;  // the network; the block is its top-left P x Q
        uint32_t rows = 1, cols = 1;      // P, Q
        uint32_t row0 = 0, col0 = 0;      // the block's top-left core (mesh row, column)
        uint32_t head_dim = 64;           // D, split over the Q columns
        uint32_t q_heads = 1;             // G: query heads sharing this KV head
        KvCache::Policy policy = KvCache::Policy::Shift;
        uint64_t prompt = 1;      // tokens after the prefill
        uint64_t generated = 0;   // tokens decoded before this step
        uint32_t tree_k = 2;      // K-tree levels of the row and column reductions
        uint64_t sram_bytes = 0;  // each core's SRAM (0: not checked)
        bool functional = false;  // make operands and the expected output (KernelPlan::preset)
        uint64_t seed = 1;
    };
    explicit DecodeAttentionSchedule(const Spec& s);
    KernelPlan build(noc::Network& net) const;
    // K and V bytes one core holds per token of its row (fp32).
    uint64_t kvBytesPerToken() const { return 2ull * d_ * 4; }
    // Every buffer of a core whose row holds n tokens this step (K and V, the scores and their
    // reduction buffers: (2 d + 3 G) fp32 per token; the queries, maxima, sums and outputs),
    // `gets` when it receives a moved token, `root` on the row that ends with the output.
    uint64_t coreBytes(uint64_t n, bool gets, bool root) const;
    // SRAM a core keeps free for messages that arrive before their receive (core.rx_buffer's
    // default is the SRAM the buffers leave free): every head's score partials from both row
    // neighbours, and its output partials and scalars from both column neighbours. Without it
    // the early partials of later heads fill the receive buffer while the one the core needs
    // waits behind them in the network: a deadlock (seen at 47 KB of buffers in 48 KB).
    uint64_t rxReserve(uint64_t n) const { return 2ull * s_.q_heads * (n + d_ + 2) * 4; }
    // Tokens a core row can hold before its buffers and rxReserve pass `sram` bytes (the
    // bottom row's extra slot for the step's new token counted).
    uint64_t rowCapacity(uint64_t sram) const;

  private:
    Spec s_;
    uint32_t d_;
};

}  // namespace wsc::firmware::waferllm
