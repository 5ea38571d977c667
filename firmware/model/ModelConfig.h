#pragma once
// A transformer model as its HuggingFace config.json describes it, typed. hw/ModelConfigLoader
// fills it from the file (strict, located errors); firmware/ never reads JSON. Only what changes
// shapes, FLOPs or bytes is kept; the LayerGraph expands it into operators.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace wsc::firmware::model {

enum class Activation : uint8_t { Gelu, Silu, Relu };
enum class NormKind : uint8_t { RmsNorm, LayerNorm };
// How positions enter the model: learned absolute embeddings (GPT-2/3, OPT) hold parameters;
// rotary (Llama, Mixtral, DeepSeek, Qwen) and ALiBi do not.
enum class PositionKind : uint8_t { Rotary, Learned, Alibi };

// Mixture-of-experts part; experts == 0 means a dense model.
struct MoeConfig {
    uint32_t experts = 0;              // routed experts (num_local_experts / n_routed_experts)
    uint32_t experts_per_token = 0;    // top-k (num_experts_per_tok)
    uint64_t intermediate = 0;         // FFN width of one routed expert (moe_intermediate_size)
    uint32_t shared_experts = 0;       // always-on experts (n_shared_experts)
    uint64_t shared_intermediate = 0;  // FFN width of one shared expert
    uint32_t first_dense_layers = 0;   // the first k layers are dense (first_k_dense_replace)
    uint32_t layer_freq = 1;           // afterwards every layer_freq-th layer is MoE
    // Which of every layer_freq layers is MoE: layer l >= first_dense_layers is MoE when
    // (l - first_dense_layers + layer_phase) % layer_freq == 0. The loader sets it from the
    // family's rule (DeepSeek: l % freq == 0; Qwen: (l + 1) % decoder_sparse_step == 0).
    uint32_t layer_phase = 0;
    std::vector<uint64_t> dense_layers;  // layers forced dense (Qwen mlp_only_layers), sorted
    bool shared_gate = false;  // a sigmoid gate Linear(hidden -> 1) scales the shared expert
};

// Multi-head latent attention (DeepSeek-V2/V3): queries and keys/values go through low-rank
// projections; kv_lora_rank == 0 means ordinary multi-head / grouped-query attention.
struct MlaConfig {
    uint64_t q_lora_rank = 0;   // 0: queries projected directly from hidden (V2-Lite)
    uint64_t kv_lora_rank = 0;  // compressed KV width (kv_a_proj output without the rope part)
    uint64_t qk_nope_head_dim = 0;
    uint64_t qk_rope_head_dim = 0;
    uint64_t v_head_dim = 0;
};

struct ModelConfig {
    std::string name;            // the file's stem ("llama2-7b")
    std::string source;          // path it was read from
    std::string architecture;    // architectures[0] or model_type, for reports
    uint64_t hidden = 0;         // hidden_size
    uint64_t layers = 0;         // num_hidden_layers
    uint64_t heads = 0;          // num_attention_heads
    uint64_t kv_heads = 0;       // num_key_value_heads (= heads without GQA)
    uint64_t head_dim = 0;       // head_dim (= hidden / heads when absent)
    uint64_t intermediate = 0;   // intermediate_size of a dense FFN
    uint64_t vocab = 0;          // vocab_size
    uint64_t max_positions = 0;  // max_position_embeddings
    Activation activation = Activation::Silu;
    bool gated_mlp = true;  // SwiGLU-style gate and up projections (Llama); false: up only (GPT)
    NormKind norm = NormKind::RmsNorm;
    PositionKind positions = PositionKind::Rotary;
    bool tied_embeddings = false;  // LM head shares the embedding table
    bool attention_bias = false;   // QKV and output projections carry biases
    bool mlp_bias = false;
    bool qkv_bias = false;         // QKV biases without an output-projection bias (Qwen2)
    bool qk_norm = false;          // per-head RMSNorm of queries and keys (Qwen3)
    bool norm_affine = true;       // norms carry a scale (OPT layer_norm_elementwise_affine)
    bool norm_bias = true;         // a LayerNorm also carries a shift (false: DBRX)
    bool final_norm = true;        // a norm before the LM head (false: post-norm OPT-350m)
    uint64_t embed_dim = 0;        // token-embedding width when it differs from hidden (OPT
                                   // word_embed_proj_dim: project_in/out Linears); 0 = hidden
    uint64_t position_offset = 0;  // extra learned-position rows (OPT: 2)
    // Dropout is applied in training (p > 0 in the file); its masks are kept for backward.
    bool embed_dropout = false;       // after the embedding (embd_pdrop, emb_pdrop, dropout)
    bool attention_dropout = false;   // on the attention probabilities (attn_pdrop, ...)
    bool hidden_dropout = false;      // before each residual add (resid_pdrop, dropout)
    bool activation_dropout = false;  // after the FFN activation (OPT activation_dropout)
    MoeConfig moe;
    MlaConfig mla;

    bool isMoe() const { return moe.experts > 0; }
    bool isMla() const { return mla.kv_lora_rank > 0; }
    // Layer `l` (0-based) has an MoE FFN.
    bool moeLayer(uint64_t l) const {
        if (!isMoe() || l < moe.first_dense_layers) return false;
        if (std::binary_search(moe.dense_layers.begin(), moe.dense_layers.end(), l)) return false;
        return (l - moe.first_dense_layers + moe.layer_phase) %
                   (moe.layer_freq ? moe.layer_freq : 1) ==
               0;
    }
    // Width of the token-embedding table and of the LM head's input.
    uint64_t embedWidth() const { return embed_dim ? embed_dim : hidden; }
};

}  // namespace wsc::firmware::model
