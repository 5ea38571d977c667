#pragma once
// One operator of a transformer's layer graph, with its shapes and its forward and backward
// cost. Shapes are for the whole (unsharded) operator on the sequences the graph was built for;
// a parallel plan divides them. FLOPs count a multiply-add as 2.
#include <cstdint>
#include <string>

namespace wsc::firmware::model {

enum class OpKind : uint8_t {
    Embedding,    // token (+ learned position) lookup: reads rows x out from the table
    Norm,         // RMSNorm / LayerNorm over rows x out
    Linear,       // [rows x in] x [in x out] (+ bias): QKV, output projection, MLP, router, LM head
    AttnScore,    // batch x ([rows x in] x [in x out]): Q K^T per (sequence, head); in = head_dim
    Softmax,      // over elems (the score matrices; causal: the computed half)
    AttnContext,  // batch x ([rows x in] x [in x out]): P V per (sequence, head); out = head_dim
    Activation,   // element-wise non-linearity over elems (GeLU; SiLU(gate) * up when gated)
    Residual,     // element-wise add over elems
    Router,       // MoE gating: softmax and top-k over rows x experts (after its Linear)
    Loss,         // softmax cross-entropy over rows x vocab
};

// How Megatron-style tensor parallelism splits the operator (TEMP Sec. II, Fig. 4a):
// Column: `out` is split (no communication after); Row: `in` is split (partial sums: an
// all-reduce, or a reduce-scatter under sequence parallelism, follows); Heads: `batch` is split
// by attention heads; Replicated: every TP rank computes it whole (norms, residuals without SP).
enum class TpSplit : uint8_t { Replicated, Column, Row, Heads };

// Which FFN an operator belongs to in an MoE layer.
enum class FfnRole : uint8_t { None, Dense, RoutedExpert, SharedExpert };

struct Operator {
    std::string name;  // "attn.qkv", "mlp.down", "moe.expert.up", ... unique within a block
    OpKind kind = OpKind::Linear;
    TpSplit tp = TpSplit::Replicated;
    FfnRole ffn = FfnRole::None;
    // Matrix shape (Linear, AttnScore, AttnContext): batch independent products
    // C[rows x out] = A[rows x in] * B[in x out]. For a Linear, batch = 1 and B is the weight.
    uint64_t batch = 1, rows = 0, in = 0, out = 0;
    // Element-wise work (Norm, Softmax, Activation, Residual, Router, Loss, Embedding): elements
    // produced. For matrix ops 0.
    uint64_t elems = 0;
    // Routed experts: this record describes ONE expert; `instances` experts exist, each
    // receiving `rows` tokens on average (tokens * top-k / experts). 1 otherwise.
    // Balanced routing when experts do not divide tokens * top-k: `extra_rows` of the
    // instances receive rows + 1 tokens (the total is exactly tokens * top-k); the per-instance
    // costs below are for `rows`, the total*() functions include the extra rows.
    uint64_t instances = 1;
    uint64_t extra_rows = 0;
    uint64_t params = 0;  // weight (and bias) elements of one instance
    // Cost of one instance, FLOPs: forward, backward w.r.t. the input (dX), backward w.r.t. the
    // weights (dW; 0 without weights).
    uint64_t fwd_flops = 0, bwd_dx_flops = 0, bwd_dw_flops = 0;
    // Elements this operator must keep from forward to backward (its saved input, or output
    // where the backward needs that: softmax), for the activation memory of one instance.
    uint64_t saved_elems = 0;
    // Share of a score matrix that is computed (causal attention: about half).
    double causal_fraction = 1.0;
    // Dropout masks kept for backward, one byte per element (not in saved_elems).
    uint64_t saved_mask_elems = 0;
    // The weights belong to another operator of the graph ("embed.tokens" for a tied LM head):
    // params is 0 here, but dW FLOPs are spent here and the weight must be present.
    std::string tied_to;

    bool isMatrix() const {
        return kind == OpKind::Linear || kind == OpKind::AttnScore || kind == OpKind::AttnContext;
    }
    bool hasWeights() const { return params > 0; }
    uint64_t inputElems() const { return batch * rows * in; }
    uint64_t outputElems() const { return isMatrix() ? batch * rows * out : elems; }

    // The cost of one more row (filled when extra_rows > 0), so the totals stay exact when an
    // instance has rows == 0 (fewer routed tokens than experts).
    struct RowCost {
        uint64_t fwd_flops = 0, bwd_dx_flops = 0, bwd_dw_flops = 0, saved_elems = 0,
                 saved_mask_elems = 0;
    } row_cost;

    // Whole-operator figures: every instance, extra rows included.
    uint64_t totalRows() const { return rows * instances + extra_rows; }
    uint64_t totalParams() const { return params * instances; }
    uint64_t totalFwdFlops() const {
        return fwd_flops * instances + row_cost.fwd_flops * extra_rows;
    }
    uint64_t totalBwdDxFlops() const {
        return bwd_dx_flops * instances + row_cost.bwd_dx_flops * extra_rows;
    }
    uint64_t totalBwdDwFlops() const {
        return bwd_dw_flops * instances + row_cost.bwd_dw_flops * extra_rows;
    }
    uint64_t totalBwdFlops() const { return totalBwdDxFlops() + totalBwdDwFlops(); }
    uint64_t totalSavedElems() const {
        return saved_elems * instances + row_cost.saved_elems * extra_rows;
    }
    uint64_t totalSavedMaskElems() const {
        return saved_mask_elems * instances + row_cost.saved_mask_elems * extra_rows;
    }
    // Bytes kept for backward by all instances at `dtype_bytes` per element (+ 1 B per mask
    // element).
    uint64_t totalSavedBytes(uint64_t dtype_bytes) const {
        return totalSavedElems() * dtype_bytes + totalSavedMaskElems();
    }
};

const char* opKindName(OpKind k);
const char* tpSplitName(TpSplit s);
const char* ffnRoleName(FfnRole r);

}  // namespace wsc::firmware::model
