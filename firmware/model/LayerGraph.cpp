#include "firmware/model/LayerGraph.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <stdexcept>

namespace wsc::firmware::model {

namespace {

// Element-wise operation counts per element (docs/MODELS.md, "Element-wise operators"). They
// are estimates of vector-unit work, not matrix FLOPs; backward is twice forward.
constexpr uint64_t kRmsNormFlops = 4;    // square, accumulate, scale by 1/rms, scale by gamma
constexpr uint64_t kLayerNormFlops = 7;  // mean, subtract, square, accumulate, scale, gamma, beta
constexpr uint64_t kSoftmaxFlops = 5;    // max, subtract, exp, accumulate, divide
constexpr uint64_t kGeluFlops = 8;       // tanh approximation
constexpr uint64_t kSiluFlops = 4;       // negate, exp, add, divide
constexpr uint64_t kReluFlops = 1;
constexpr uint64_t kGateMulFlops = 1;  // SiLU(gate) * up
constexpr uint64_t kLossFlops = 5;     // softmax over the vocabulary and the picked log
constexpr uint64_t kBwdFactor = 2;     // element-wise backward / forward

// Sizes come from user files: a product beyond 64 bits is refused, never wrapped.
uint64_t mul(std::initializer_list<uint64_t> xs) {
    uint64_t r = 1;
    for (uint64_t x : xs)
        if (__builtin_mul_overflow(r, x, &r))
            throw std::invalid_argument(
                "LayerGraph: the model's sizes for this batch overflow 64 bits (use fewer "
                "sequences or shorter ones)");
    return r;
}

uint64_t add(std::initializer_list<uint64_t> xs) {
    uint64_t r = 0;
    for (uint64_t x : xs)
        if (__builtin_add_overflow(r, x, &r))
            throw std::invalid_argument(
                "LayerGraph: the model's totals for this batch overflow 64 bits (use fewer "
                "sequences or shorter ones)");
    return r;
}

[[noreturn]] void bad(const ModelConfig& m, const std::string& what) {
    throw std::invalid_argument(
        fmt::format("model '{}': {}", m.name.empty() ? std::string("?") : m.name, what));
}

// Builds the operators of each block from the model and the shape. Every shape and cost
// formula is in docs/MODELS.md, in the same order.
class GraphBuilder {
  public:
    GraphBuilder(const ModelConfig& m, const GraphShape& s) : m_(m), s_(s) {
        T_ = mul({s.sequences, s.seq_len});
        K_ = add({s.past_len, s.seq_len});
        // Query i (0-based, after past_len cached tokens) attends past_len + i + 1 keys.
        pairs_ = s.skip_masked
                     ? add({mul({s.seq_len, s.past_len}), mul({s.seq_len, s.seq_len + 1}) / 2})
                     : mul({s.seq_len, K_});
        fraction_ = static_cast<double>(pairs_) / static_cast<double>(mul({s.seq_len, K_}));
        if (m.isMla()) {
            d_qk_ = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
            d_v_ = m.mla.v_head_dim;
            k_width_ = add({mul({m.heads, m.mla.qk_nope_head_dim}), m.mla.qk_rope_head_dim});
            v_width_ = mul({m.heads, d_v_});
        } else {
            d_qk_ = d_v_ = m.head_dim;
            k_width_ = v_width_ = mul({m.kv_heads, m.head_dim});
        }
        q_width_ = mul({m.heads, d_qk_});
        dropout_ = s.dropout;
    }

    Block embedding() const {
        Block b;
        b.kind = Block::Kind::Embedding;
        b.name = "embedding";
        const uint64_t E = m_.embedWidth();
        Operator tok = elementwise("embed.tokens", OpKind::Embedding, TpSplit::Row, T_, E, 0);
        tok.in = m_.vocab;  // a one-hot [T x V] times the [V x E] table: vocab-split like Row
        tok.params = mul({m_.vocab, E});
        tok.bwd_dw_flops = mul({T_, E});  // scatter-add of the output gradient into the table
        b.ops.push_back(tok);
        if (E != m_.hidden)
            b.ops.push_back(linear("embed.proj_in", TpSplit::Replicated, FfnRole::None, T_, E,
                                   m_.hidden, false, mul({T_, E})));
        if (m_.positions == PositionKind::Learned) {
            Operator pos = elementwise("embed.positions", OpKind::Embedding, TpSplit::Replicated,
                                       T_, m_.hidden, mul({T_, m_.hidden}));
            pos.in = add({m_.max_positions, m_.position_offset});
            pos.params = mul({pos.in, m_.hidden});
            pos.bwd_dx_flops = 0;
            pos.bwd_dw_flops = mul({T_, m_.hidden});
            b.ops.push_back(pos);
        }
        if (dropout_ && m_.embed_dropout) b.ops.back().saved_mask_elems = mul({T_, m_.hidden});
        return b;
    }

    Block dense() const {
        Block b;
        b.kind = Block::Kind::Dense;
        b.name = "dense";
        attention(b);
        b.ops.push_back(norm("mlp.norm", T_, m_.hidden));
        ffn(b, "mlp", FfnRole::Dense, m_.intermediate, 1, T_, 0, true);
        b.ops.push_back(residual("mlp.residual"));
        return b;
    }

    Block moe() const {
        Block b;
        b.kind = Block::Kind::Moe;
        b.name = "moe";
        b.experts_per_token = m_.moe.experts_per_token;
        attention(b);
        const uint64_t E = m_.moe.experts, k = m_.moe.experts_per_token;
        b.ops.push_back(norm("mlp.norm", T_, m_.hidden));
        b.ops.push_back(linear("moe.router", TpSplit::Replicated, FfnRole::None, T_, m_.hidden, E,
                               false, mul({T_, m_.hidden})));
        Operator route =
            elementwise("moe.route", OpKind::Router, TpSplit::Replicated, T_, E, mul({T_, E}));
        // Gating softmax and top-k over T x E, plus the weighted combine of the k expert
        // outputs per token (k multiply-adds per hidden element).
        route.fwd_flops = add({mul({kSoftmaxFlops, T_, E}), mul({2, T_, k, m_.hidden})});
        route.bwd_dx_flops = mul({kBwdFactor, route.fwd_flops});
        route.saved_elems = mul({T_, E});  // the gate probabilities
        b.ops.push_back(route);
        // Balanced routing: T * k token-expert pairs spread over E experts.
        const uint64_t pairs = mul({T_, k});
        ffn(b, "moe.expert", FfnRole::RoutedExpert, m_.moe.intermediate, E, pairs / E, pairs % E,
            true);
        if (m_.moe.shared_experts > 0) {
            if (m_.moe.shared_gate)
                b.ops.push_back(linear("moe.shared.gate", TpSplit::Replicated,
                                       FfnRole::SharedExpert, T_, m_.hidden, 1, false, 0));
            // The shared experts read the same normed tensor the router saved.
            ffn(b, "moe.shared", FfnRole::SharedExpert, m_.moe.shared_intermediate,
                m_.moe.shared_experts, T_, 0, false);
        }
        b.ops.push_back(residual("mlp.residual"));
        return b;
    }

    Block head() const {
        Block b;
        b.kind = Block::Kind::Head;
        b.name = "head";
        const uint64_t E = m_.embedWidth();
        if (m_.final_norm) b.ops.push_back(norm("head.norm", T_, m_.hidden));
        if (E != m_.hidden)
            b.ops.push_back(linear("head.proj_out", TpSplit::Replicated, FfnRole::None, T_,
                                   m_.hidden, E, false, mul({T_, m_.hidden})));
        Operator lm =
            linear("head.lm", TpSplit::Column, FfnRole::None, T_, E, m_.vocab, false, mul({T_, E}));
        if (m_.tied_embeddings) {
            lm.params = 0;  // counted once, in embed.tokens; the gradient is still computed here
            lm.tied_to = "embed.tokens";
        }
        b.ops.push_back(lm);
        Operator loss = elementwise("head.loss", OpKind::Loss, TpSplit::Column, T_, m_.vocab,
                                    mul({T_, m_.vocab}));
        loss.fwd_flops = mul({kLossFlops, T_, m_.vocab});
        loss.bwd_dx_flops = mul({kBwdFactor, loss.fwd_flops});
        loss.saved_elems = mul({T_, m_.vocab});  // the probabilities (softmax of the logits)
        b.ops.push_back(loss);
        return b;
    }

  private:
    // An element-wise operator over rows x width; costs filled by the caller.
    Operator elementwise(std::string name, OpKind kind, TpSplit tp, uint64_t rows, uint64_t width,
                         uint64_t fwd) const {
        Operator o;
        o.name = std::move(name);
        o.kind = kind;
        o.tp = tp;
        o.rows = rows;
        o.out = width;
        o.elems = mul({rows, width});
        o.fwd_flops = fwd;
        o.bwd_dx_flops = mul({kBwdFactor, fwd});
        return o;
    }

    // [rows x in] x [in x out] (+ bias); saves `saved` input elements for dW.
    Operator linear(std::string name, TpSplit tp, FfnRole ffn, uint64_t rows, uint64_t in,
                    uint64_t out, bool bias, uint64_t saved) const {
        Operator o;
        o.name = std::move(name);
        o.kind = OpKind::Linear;
        o.tp = tp;
        o.ffn = ffn;
        o.rows = rows;
        o.in = in;
        o.out = out;
        const uint64_t gemm = mul({2, rows, in, out});
        const uint64_t biasWork = bias ? mul({rows, out}) : 0;
        o.params = add({mul({in, out}), bias ? out : 0});
        o.fwd_flops = add({gemm, biasWork});
        o.bwd_dx_flops = gemm;
        o.bwd_dw_flops = add({gemm, biasWork});
        o.saved_elems = saved;
        return o;
    }

    // A norm over rows x width, saving its input; `params` overrides the scale/shift count.
    Operator norm(std::string name, uint64_t rows, uint64_t width, TpSplit tp = TpSplit::Replicated,
                  bool rms = false, int64_t params = -1) const {
        const bool isRms = rms || m_.norm == NormKind::RmsNorm;
        const bool shift = !isRms && m_.norm_bias;
        const uint64_t elems = mul({rows, width});
        Operator o = elementwise(std::move(name), OpKind::Norm, tp, rows, width,
                                 mul({isRms ? kRmsNormFlops : kLayerNormFlops, elems}));
        o.params = params >= 0 ? static_cast<uint64_t>(params)
                               : (m_.norm_affine ? mul({width, shift ? 2u : 1u}) : 0);
        o.bwd_dw_flops = o.params ? mul({elems, shift ? 3u : 2u}) : 0;
        o.saved_elems = elems;
        return o;
    }

    Operator residual(std::string name) const {
        Operator o = elementwise(std::move(name), OpKind::Residual, TpSplit::Replicated, T_,
                                 m_.hidden, mul({T_, m_.hidden}));
        o.bwd_dx_flops = 0;  // the gradient passes to both inputs unchanged
        if (dropout_ && m_.hidden_dropout) o.saved_mask_elems = mul({T_, m_.hidden});
        return o;
    }

    void attention(Block& b) const {
        const uint64_t h = m_.hidden, a = m_.heads, B = s_.sequences, s = s_.seq_len;
        b.ops.push_back(norm("attn.norm", T_, h));
        if (m_.isMla()) {
            const MlaConfig& q = m_.mla;
            if (q.q_lora_rank) {
                b.ops.push_back(linear("attn.q_a", TpSplit::Replicated, FfnRole::None, T_, h,
                                       q.q_lora_rank, false, mul({T_, h})));
                b.ops.push_back(norm("attn.q_a_norm", T_, q.q_lora_rank));
                b.ops.push_back(linear("attn.q_b", TpSplit::Column, FfnRole::None, T_,
                                       q.q_lora_rank, q_width_, false, mul({T_, q.q_lora_rank})));
            } else {
                b.ops.push_back(linear("attn.q", TpSplit::Column, FfnRole::None, T_, h, q_width_,
                                       false, mul({T_, h})));
            }
            // kv_a reads the same normed tensor attn.q_a (or attn.q) saved.
            b.ops.push_back(linear("attn.kv_a", TpSplit::Replicated, FfnRole::None, T_, h,
                                   add({q.kv_lora_rank, q.qk_rope_head_dim}), false, 0));
            b.ops.push_back(norm("attn.kv_a_norm", T_, q.kv_lora_rank));
            b.ops.push_back(linear("attn.kv_b", TpSplit::Column, FfnRole::None, T_, q.kv_lora_rank,
                                   mul({a, add({q.qk_nope_head_dim, d_v_})}), false,
                                   mul({T_, q.kv_lora_rank})));
        } else {
            const uint64_t qkv = add({q_width_, mul({2, k_width_})});
            b.ops.push_back(linear("attn.qkv", TpSplit::Column, FfnRole::None, T_, h, qkv,
                                   m_.attention_bias || m_.qkv_bias, mul({T_, h})));
            if (m_.qk_norm)  // one RMSNorm of head_dim for queries, one for keys
                b.ops.push_back(norm("attn.qk_norm", T_, add({q_width_, k_width_}), TpSplit::Heads,
                                     true, static_cast<int64_t>(2 * d_qk_)));
        }
        const bool storeScores = !s_.flash_attention;
        const bool attnDrop = dropout_ && m_.attention_dropout && storeScores;
        const uint64_t square = mul({B, a, s, K_});  // one full score matrix per (seq, head)

        Operator score;
        score.name = "attn.score";
        score.kind = OpKind::AttnScore;
        score.tp = TpSplit::Heads;
        score.batch = mul({B, a});
        score.rows = s;
        score.in = d_qk_;
        score.out = K_;
        score.causal_fraction = fraction_;
        score.fwd_flops = mul({2, B, a, pairs_, d_qk_});
        // dQ = dS K and dK = dS^T Q; flash attention also recomputes S = Q K^T.
        score.bwd_dx_flops = mul({storeScores ? 2u : 3u, score.fwd_flops});
        score.saved_elems = mul({T_, add({q_width_, k_width_})});  // Q and K
        b.ops.push_back(score);

        Operator soft = elementwise("attn.softmax", OpKind::Softmax, TpSplit::Heads, s, K_, 0);
        soft.batch = mul({B, a});
        soft.elems = mul({B, a, pairs_});  // the computed (unmasked) scores
        soft.causal_fraction = fraction_;
        soft.fwd_flops = mul({kSoftmaxFlops, soft.elems});
        soft.bwd_dx_flops = mul({storeScores ? kBwdFactor : kBwdFactor + 1, soft.fwd_flops});
        // The standard implementation keeps the whole (masked) probability matrix; flash
        // attention keeps one fp32 log-sum-exp per row.
        const uint64_t lseElems = std::max<uint64_t>(1, 4 / dtypeBytes(s_.dtype));
        soft.saved_elems = storeScores ? square : mul({B, a, s, lseElems});
        if (attnDrop) soft.saved_mask_elems = square;
        b.ops.push_back(soft);

        Operator ctx;
        ctx.name = "attn.context";
        ctx.kind = OpKind::AttnContext;
        ctx.tp = TpSplit::Heads;
        ctx.batch = mul({B, a});
        ctx.rows = s;
        ctx.in = K_;
        ctx.out = d_v_;
        ctx.causal_fraction = fraction_;
        ctx.fwd_flops = mul({2, B, a, pairs_, d_v_});
        ctx.bwd_dx_flops = mul({2, ctx.fwd_flops});  // dP = dO V^T and dV = P^T dO
        // V; the probabilities are attn.softmax's saved output unless dropout made a new one.
        ctx.saved_elems = add({mul({T_, v_width_}), attnDrop ? square : 0});
        b.ops.push_back(ctx);

        b.ops.push_back(linear("attn.out", TpSplit::Row, FfnRole::None, T_, mul({a, d_v_}), h,
                               m_.attention_bias, mul({T_, a, d_v_})));
        b.ops.push_back(residual("attn.residual"));
    }

    // gate_up (or up), act, down for `instances` FFNs of width `width` on `rows` tokens each
    // (`extra` instances get one more).
    void ffn(Block& b, const std::string& prefix, FfnRole role, uint64_t width, uint64_t instances,
             uint64_t rows, uint64_t extra, bool saveInput) const {
        const uint64_t h = m_.hidden;
        const bool gated = m_.gated_mlp;
        const uint64_t actFlops = (m_.activation == Activation::Gelu   ? kGeluFlops
                                   : m_.activation == Activation::Silu ? kSiluFlops
                                                                       : kReluFlops) +
                                  (gated ? kGateMulFlops : 0);
        auto make = [&](uint64_t r) {
            std::vector<Operator> ops;
            ops.push_back(linear(prefix + (gated ? ".gate_up" : ".up"), TpSplit::Column, role, r, h,
                                 gated ? mul({2, width}) : width, m_.mlp_bias,
                                 saveInput ? mul({r, h}) : 0));
            Operator act = elementwise(prefix + ".act", OpKind::Activation, TpSplit::Column, r,
                                       width, mul({actFlops, r, width}));
            act.ffn = role;
            // GeLU/ReLU keep their input; a gated unit keeps gate and up.
            act.saved_elems = mul({gated ? 2u : 1u, r, width});
            if (dropout_ && m_.activation_dropout) act.saved_mask_elems = mul({r, width});
            ops.push_back(act);
            ops.push_back(linear(prefix + ".down", TpSplit::Row, role, r, width, h, m_.mlp_bias,
                                 mul({r, width})));
            return ops;
        };
        std::vector<Operator> ops = make(rows);
        if (extra) {
            const std::vector<Operator> one = make(1);
            for (size_t i = 0; i < ops.size(); ++i) {
                ops[i].extra_rows = extra;
                ops[i].row_cost = {one[i].fwd_flops, one[i].bwd_dx_flops, one[i].bwd_dw_flops,
                                   one[i].saved_elems, one[i].saved_mask_elems};
            }
        }
        for (Operator& o : ops) {
            o.instances = instances;
            b.ops.push_back(std::move(o));
        }
    }

    const ModelConfig& m_;
    const GraphShape& s_;
    uint64_t T_ = 0, K_ = 0, pairs_ = 0;
    double fraction_ = 1.0;
    uint64_t d_qk_ = 0, d_v_ = 0, q_width_ = 0, k_width_ = 0, v_width_ = 0;
    bool dropout_ = true;
};

void validate(ModelConfig& m, const GraphShape& s) {
    if (m.hidden == 0) bad(m, "hidden_size must be >= 1");
    if (m.layers == 0) bad(m, "num_hidden_layers must be >= 1");
    if (m.heads == 0) bad(m, "num_attention_heads must be >= 1");
    if (m.vocab == 0) bad(m, "vocab_size must be >= 1");
    if (m.max_positions == 0) bad(m, "max_position_embeddings must be >= 1");
    if (m.kv_heads == 0) m.kv_heads = m.heads;
    if (m.heads % m.kv_heads)
        bad(m, fmt::format("num_key_value_heads {} does not divide num_attention_heads {}",
                           m.kv_heads, m.heads));
    if (m.head_dim == 0) {
        if (m.hidden % m.heads)
            bad(m, fmt::format("num_attention_heads {} does not divide hidden_size {} and no "
                               "head_dim is given",
                               m.heads, m.hidden));
        m.head_dim = m.hidden / m.heads;
    }
    if (m.isMla() &&
        (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim == 0 || m.mla.v_head_dim == 0))
        bad(m, "multi-head latent attention needs qk_nope/qk_rope_head_dim and v_head_dim");
    bool anyDense = false;
    for (uint64_t l = 0; l < m.layers; ++l) anyDense |= !m.moeLayer(l);
    if (anyDense && m.intermediate == 0) bad(m, "intermediate_size must be >= 1");
    if (m.isMoe()) {
        if (m.moe.experts_per_token == 0 || m.moe.experts_per_token > m.moe.experts)
            bad(m, fmt::format("num_experts_per_tok must be in [1, {}]", m.moe.experts));
        if (m.moe.intermediate == 0) bad(m, "moe_intermediate_size must be >= 1");
        if (m.moe.shared_experts && m.moe.shared_intermediate == 0)
            bad(m, "shared experts need an intermediate size");
    }
    if (s.sequences == 0) bad(m, "GraphShape.sequences must be >= 1");
    if (s.seq_len == 0) bad(m, "GraphShape.seq_len must be >= 1");
    if (s.past_len > m.max_positions || s.seq_len > m.max_positions - s.past_len)
        bad(m, fmt::format("GraphShape.seq_len {} (+ past_len {}) exceeds the model's "
                           "max_position_embeddings {}",
                           s.seq_len, s.past_len, m.max_positions));
}

}  // namespace

uint64_t Block::params() const {
    uint64_t n = 0;
    for (const Operator& o : ops) n += o.totalParams();
    return n;
}

uint64_t Block::activeParams() const {
    uint64_t n = 0;
    for (const Operator& o : ops)
        n += o.ffn == FfnRole::RoutedExpert
                 ? o.params * std::min<uint64_t>(experts_per_token, o.instances)
                 : o.totalParams();
    return n;
}

uint64_t Block::fwdFlops() const {
    uint64_t n = 0;
    for (const Operator& o : ops) n += o.totalFwdFlops();
    return n;
}

uint64_t Block::bwdFlops() const {
    uint64_t n = 0;
    for (const Operator& o : ops) n += o.totalBwdFlops();
    return n;
}

uint64_t Block::savedElems() const {
    uint64_t n = 0;
    for (const Operator& o : ops) n += o.totalSavedElems();
    return n;
}

uint64_t Block::savedMaskElems() const {
    uint64_t n = 0;
    for (const Operator& o : ops) n += o.totalSavedMaskElems();
    return n;
}

uint64_t Block::savedBytes(uint64_t dtype_bytes) const {
    return savedElems() * dtype_bytes + savedMaskElems();
}

const Operator* Block::find(const std::string& op) const {
    for (const Operator& o : ops)
        if (o.name == op) return &o;
    return nullptr;
}

LayerGraph LayerGraph::build(const ModelConfig& model, const GraphShape& s) {
    LayerGraph g;
    g.model_ = model;
    g.shape_ = s;
    validate(g.model_, s);
    const ModelConfig& m = g.model_;
    GraphBuilder b(m, s);
    g.blocks_.push_back(b.embedding());
    Block dense = b.dense();
    Block moe = m.isMoe() ? b.moe() : Block{};
    dense.repeat = moe.repeat = 0;  // counted below
    g.layer_block_.resize(m.layers);
    for (uint64_t l = 0; l < m.layers; ++l) {
        Block& target = m.moeLayer(l) ? moe : dense;
        target.layers.push_back(l);
        ++target.repeat;
    }
    const uint32_t denseIndex = 1, moeIndex = dense.repeat ? 2 : 1;
    for (uint64_t l = 0; l < m.layers; ++l)
        g.layer_block_[l] = m.moeLayer(l) ? moeIndex : denseIndex;
    if (dense.repeat) g.blocks_.push_back(std::move(dense));
    if (moe.repeat) g.blocks_.push_back(std::move(moe));
    g.blocks_.push_back(b.head());

    // Every total is computed here once with overflow checks; the getters return them (and a
    // block's sums, smaller than these, cannot overflow either).
    const uint64_t bytes = dtypeBytes(s.dtype);
    auto total = [](uint64_t perInstance, uint64_t perRow, const Operator& o) {
        return add({mul({perInstance, o.instances}), mul({perRow, o.extra_rows})});
    };
    for (const Block& blk : g.blocks_) {
        const uint64_t r = blk.repeat;
        for (const Operator& o : blk.ops) {
            const uint64_t params = mul({o.params, o.instances, r});
            const uint64_t fwd = mul({total(o.fwd_flops, o.row_cost.fwd_flops, o), r});
            const uint64_t bwd = mul({add({total(o.bwd_dx_flops, o.row_cost.bwd_dx_flops, o),
                                           total(o.bwd_dw_flops, o.row_cost.bwd_dw_flops, o)}),
                                      r});
            const uint64_t saved =
                add({mul({total(o.saved_elems, o.row_cost.saved_elems, o), bytes, r}),
                     mul({total(o.saved_mask_elems, o.row_cost.saved_mask_elems, o), r})});
            const bool embeddingTable = o.kind == OpKind::Embedding;
            const bool lmHead = o.name == "head.lm";
            g.params_ = add({g.params_, params});
            if (embeddingTable) g.embedding_params_ = add({g.embedding_params_, params});
            if (!embeddingTable && !lmHead)
                g.non_embedding_params_ = add({g.non_embedding_params_, params});
            g.active_params_ = add(
                {g.active_params_,
                 o.ffn == FfnRole::RoutedExpert
                     ? mul({o.params, std::min<uint64_t>(m.moe.experts_per_token, o.instances), r})
                     : params});
            g.fwd_flops_ = add({g.fwd_flops_, fwd});
            g.train_flops_ = add({g.train_flops_, fwd, bwd});
            g.saved_bytes_ = add({g.saved_bytes_, saved});
        }
    }
    return g;
}

const Block& LayerGraph::layer(uint64_t l) const {
    if (l >= layer_block_.size())
        throw std::out_of_range(
            fmt::format("LayerGraph::layer: layer {} of a {}-layer model", l, layer_block_.size()));
    return blocks_[layer_block_[l]];
}

}  // namespace wsc::firmware::model
