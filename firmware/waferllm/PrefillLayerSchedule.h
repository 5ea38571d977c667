#pragma once
// The prefill of a prompt of L tokens through dense transformer layers on a P x P core block, as
// one per-core program composed from the kernel schedules (WaferLLM Sec. 4.1, Fig. 3: fine-
// grained partitioning, activations L_y E_x, weights split over both axes, no transpose). Per
// layer, on every core (i, j), with tm = L / P, te = E / P, tf = F / P:
//   x      the residual stream, tokens i tm.. and features j te.. (tm x te)
//   norm1  per token: local sum of squares, a row allreduce of tm values (K-tree to the middle
//          column, multicast back), h = x * rsqrt(mean + eps) * g
//   qkv    one MeshGEMM [L x E] x [E x 3E] (A aligned by ring shifts, the weights placed
//          aligned): the weight's columns are pre-permuted so core column j gets its q, k and v
//          features side by side; each token's three slices are copied out into q, k, v tiles
//   attn   per head when the heads tile the columns (HeadAttentionSchedule: dist-GEMM-T per
//          head, causal mask, softmax, context, each head on its column segment); otherwise
//          WaferLLM's prefill kernel: dist-GEMM-T S = q k^T over all of E (no transpose of k), S
//          on L_y L_x, the causal mask, softmax per token (row allreduces of max and sum), then
//          the context MeshGEMM S v (both operands aligned by shifts)
//   o      MeshGEMM [L x E] x Wo, x += o
//   norm2, up: MeshGEMM to [gate | up] (pre-permuted as qkv), act = silu(gate) * up per token
//   down   MeshGEMM [L x F] x Wd, x += down
// The one product over E (WaferLLM's public prefill kernel treats E as one head) does the model's
// multiply-adds (H L^2 D = L^2 E) but is the model's attention only for one head, so functional
// runs of it are refused for H > 1. K and V are computed E wide either way (GQA's narrower K, V
// projections are not exploited). Rotary embeddings are not modelled (as decode); 1 / sqrt(D) is
// folded into Wq. KvReplacement moves the k and v tiles into the decode's cache layout.
#include <cstdint>

#include "firmware/KernelPlan.h"
#include "firmware/waferllm/DecodeModelData.h"
#include "firmware/waferllm/LayerShape.h"
#include "noc/Network.h"

namespace wsc::firmware::waferllm {

class PrefillLayerSchedule {
  public:
    struct Spec {
        uint32_t mesh_x = 0, mesh_y = 0;  // the network; the block is its top-left P x P
        uint32_t p = 1;
        LayerShape layer;
        uint32_t layers = 1;      // layers in the program, one after the other (own weights each)
        uint32_t prompt = 1;      // L tokens
        uint32_t tree_k = 2;      // K-tree levels of every reduction
        uint64_t sram_bytes = 0;  // each core's SRAM (0: not checked)
        bool functional = false;  // operands and the expected output (KernelPlan::preset/expect)
        // Attention as one product over the embedding even where the heads tile the columns
        // (WaferLLM's prefill kernel; the one form for heads that do not tile them).
        bool product_attention = false;
        uint64_t seed = 1;
        // Functional values (weights; the prompt is data->promptInput(prompt)); null: drawn from
        // `seed`. The plan expects the output and every layer's k and v tiles.
        const DecodeModelData* data = nullptr;
    };
    explicit PrefillLayerSchedule(const Spec& s);
    KernelPlan build(noc::Network& net) const;

    // Words the layer's shifts and reductions carry times the hops they travel, one layer, in
    // closed form (an estimate of the network work a simulation does; MeshGEMM's ring hops are
    // at most 2): per MeshGEMM 2 (P - 1) (mk + kn) for the steps plus 2 (P - 1) per aligned
    // operand's words (the alignment shifts, an upper bound), for attention the one-product form
    // (dist-GEMM-T: 2 (P - 1) nk for B and 2 P mn for the partials' trees, then the context
    // MeshGEMM) whichever form runs; the allreduces are negligible beside them.
    uint64_t wordHops() const;

  private:
    Spec s_;
};

}  // namespace wsc::firmware::waferllm
