#pragma once
// A transformer model as its HuggingFace config.json describes it, typed. hw/ModelConfigLoader
// fills it from the file (strict, located errors); firmware/ never reads JSON. Only what changes
// shapes, FLOPs or bytes is kept; the LayerGraph expands it into operators.
#include <cstdint>
#include <string>

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
    MoeConfig moe;

    bool isMoe() const { return moe.experts > 0; }
    // Layer `l` (0-based) has an MoE FFN.
    bool moeLayer(uint64_t l) const {
        return isMoe() && l >= moe.first_dense_layers &&
               (l - moe.first_dense_layers) % (moe.layer_freq ? moe.layer_freq : 1) == 0;
    }
};

}  // namespace wsc::firmware::model
