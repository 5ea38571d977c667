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
    uint64_t instances = 1;
    uint64_t params = 0;  // weight (and bias) elements of one instance
    // Cost of one instance, FLOPs: forward, backward w.r.t. the input (dX), backward w.r.t. the
    // weights (dW; 0 without weights).
    uint64_t fwd_flops = 0, bwd_dx_flops = 0, bwd_dw_flops = 0;
    // Elements this operator must keep from forward to backward (its saved input, or output
    // where the backward needs that: softmax), for the activation memory of one instance.
    uint64_t saved_elems = 0;
    // Share of a score matrix that is computed (causal attention: about half).
    double causal_fraction = 1.0;

    bool isMatrix() const {
        return kind == OpKind::Linear || kind == OpKind::AttnScore || kind == OpKind::AttnContext;
    }
    bool hasWeights() const { return params > 0; }
    uint64_t inputElems() const { return batch * rows * in; }
    uint64_t outputElems() const { return isMatrix() ? batch * rows * out : elems; }
};

const char* opKindName(OpKind k);
const char* tpSplitName(TpSplit s);

}  // namespace wsc::firmware::model
