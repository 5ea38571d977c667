#include "hw/ModelConfigLoader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "hw/ConfigError.h"
#include "hw/YamlReader.h"

namespace wsc::hw {

using firmware::model::Activation;
using firmware::model::ModelConfig;
using firmware::model::NormKind;
using firmware::model::PositionKind;

namespace {

// Bounds on sizes: far above any real model, low enough that the layer graph's products stay
// meaningful (it checks its own overflows too).
constexpr uint64_t kMaxHidden = 1u << 20;
constexpr uint64_t kMaxLayers = 1u << 16;
constexpr uint64_t kMaxHeads = 1u << 16;
constexpr uint64_t kMaxVocab = 1u << 24;
constexpr uint64_t kMaxPositions = 1u << 30;
constexpr uint64_t kMaxWidth = 1u << 24;  // FFN and low-rank widths
constexpr uint64_t kMaxExperts = 1u << 16;

// Defaults of one model_type: what its HuggingFace modeling code hard-wires or defaults.
struct Family {
    std::string_view type;
    Activation act = Activation::Silu;
    bool gated = true;
    NormKind norm = NormKind::RmsNorm;
    bool norm_bias = true;
    PositionKind pos = PositionKind::Rotary;
    bool tied = false;
    bool biases = false;    // every Linear of attention and MLP carries a bias
    bool qkv_bias = false;  // Qwen2: QKV biases only
    bool qk_norm = false;   // Qwen3
    uint64_t position_offset = 0;
    bool qwen_moe_rule = false;    // MoE layers: (l + 1) % decoder_sparse_step == 0
    bool shared_gate = false;      // Qwen2-MoE shared-expert gate
    bool needs_moe_width = false;  // moe_intermediate_size is required (it differs from
                                   // intermediate_size in this family)
};

const std::vector<Family>& families() {
    static const std::vector<Family> f = [] {
        std::vector<Family> v;
        Family llama;
        llama.type = "llama";
        v.push_back(llama);
        Family mistral = llama;
        mistral.type = "mistral";
        v.push_back(mistral);
        Family mixtral = llama;
        mixtral.type = "mixtral";
        v.push_back(mixtral);
        Family qwen2 = llama;
        qwen2.type = "qwen2";
        qwen2.qkv_bias = true;
        v.push_back(qwen2);
        Family qwen2moe = qwen2;
        qwen2moe.type = "qwen2_moe";
        qwen2moe.qwen_moe_rule = true;
        qwen2moe.shared_gate = true;
        qwen2moe.needs_moe_width = true;
        v.push_back(qwen2moe);
        Family qwen3 = llama;
        qwen3.type = "qwen3";
        qwen3.qk_norm = true;
        v.push_back(qwen3);
        Family qwen3moe = qwen3;
        qwen3moe.type = "qwen3_moe";
        qwen3moe.qwen_moe_rule = true;
        qwen3moe.needs_moe_width = true;
        v.push_back(qwen3moe);
        Family ds2 = llama;
        ds2.type = "deepseek_v2";
        ds2.needs_moe_width = true;
        v.push_back(ds2);
        Family ds3 = ds2;
        ds3.type = "deepseek_v3";
        v.push_back(ds3);
        Family gpt2;
        gpt2.type = "gpt2";
        gpt2.act = Activation::Gelu;
        gpt2.gated = false;
        gpt2.norm = NormKind::LayerNorm;
        gpt2.pos = PositionKind::Learned;
        gpt2.tied = true;
        gpt2.biases = true;
        v.push_back(gpt2);
        Family opt = gpt2;
        opt.type = "opt";
        opt.act = Activation::Relu;
        opt.position_offset = 2;  // OPTLearnedPositionalEmbedding keeps 2 extra rows
        v.push_back(opt);
        Family dbrx = llama;
        dbrx.type = "dbrx";
        dbrx.norm = NormKind::LayerNorm;
        dbrx.norm_bias = false;  // nn.LayerNorm(bias=False)
        v.push_back(dbrx);
        return v;
    }();
    return f;
}

const std::vector<std::string_view> kAccepted = {
    // documentation and identity
    "_comment", "model_type", "architectures",
    // sizes (aliases on one line)
    "hidden_size", "n_embd", "d_model",          //
    "num_hidden_layers", "n_layer", "n_layers",  //
    "num_attention_heads", "n_head", "n_heads",  //
    "num_key_value_heads", "head_dim",           //
    "intermediate_size", "n_inner", "ffn_dim",   //
    "vocab_size",                                //
    "max_position_embeddings", "n_positions", "n_ctx", "max_seq_len", "max_sequence_length",
    "hidden_act", "activation_function",  //
    "tie_word_embeddings", "attention_bias", "mlp_bias", "enable_bias",
    // mixture of experts
    "num_local_experts", "n_routed_experts", "num_experts", "num_experts_per_tok",
    "moe_intermediate_size", "n_shared_experts", "shared_expert_intermediate_size",
    "first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers",
    // multi-head latent attention (DeepSeek-V2/V3)
    "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
    // OPT
    "word_embed_proj_dim", "do_layer_norm_before", "_remove_final_layer_norm",
    "layer_norm_elementwise_affine",
    // dropout (its masks are activation memory in training)
    "attention_dropout", "attn_pdrop", "resid_pdrop", "embd_pdrop", "emb_pdrop", "dropout",
    "activation_dropout",
    // DBRX nests attention and FFN settings
    "attn_config", "ffn_config"};

// Accepted and ignored: they change no shape, FLOP or byte count of the layer graph (token ids,
// numerics, initialisation, position-encoding constants, training losses, routing details that
// keep top-k, serving options, HuggingFace bookkeeping). docs/MODELS.md explains each group.
const std::vector<std::string_view> kIgnored = {"_name_or_path",
                                                "_attn_implementation_autoset",
                                                "auto_map",
                                                "bos_token_id",
                                                "eos_token_id",
                                                "pad_token_id",
                                                "sep_token_id",
                                                "decoder_start_token_id",
                                                "torch_dtype",
                                                "transformers_version",
                                                "use_cache",
                                                "initializer_range",
                                                "init_std",
                                                "rms_norm_eps",
                                                "layer_norm_eps",
                                                "layer_norm_epsilon",
                                                "rope_theta",
                                                "rope_scaling",
                                                "rotary_emb_base",
                                                "pretraining_tp",
                                                "sliding_window",
                                                "use_sliding_window",
                                                "max_window_layers",
                                                "router_aux_loss_coef",
                                                "output_router_logits",
                                                "router_jitter_noise",
                                                "aux_loss_alpha",
                                                "seq_aux",
                                                "norm_topk_prob",
                                                "routed_scaling_factor",
                                                "scoring_func",
                                                "topk_method",
                                                "n_group",
                                                "topk_group",
                                                "ep_size",
                                                "num_nextn_predict_layers",
                                                "quantization_config",
                                                "summary_activation",
                                                "summary_first_dropout",
                                                "summary_proj_to_labels",
                                                "summary_type",
                                                "summary_use_proj",
                                                "task_specific_params",
                                                "scale_attn_weights",
                                                "scale_attn_by_inverse_layer_idx",
                                                "reorder_and_upcast_attn",
                                                "prefix",
                                                "layerdrop",
                                                "tokenizer_class",
                                                "id2label",
                                                "label2id",
                                                "output_attentions",
                                                "output_hidden_states",
                                                "return_dict",
                                                "torchscript"};

const std::vector<std::string_view> kAttnConfigKeys = {"kv_n_heads", "attn_pdrop", "clip_qkv",
                                                       "rope_theta", "model_type"};
const std::vector<std::string_view> kFfnConfigKeys = {"ffn_hidden_size",
                                                      "moe_num_experts",
                                                      "moe_top_k",
                                                      "ffn_act_fn",
                                                      "moe_jitter_eps",
                                                      "moe_loss_weight",
                                                      "moe_normalize_expert_weights",
                                                      "uniform_expert_assignment",
                                                      "model_type"};

// One key of one map of the file (DBRX keeps some in attn_config / ffn_config).
struct Key {
    const YamlReader* map;
    std::string name;
};

// JSON null is HuggingFace's None: the key is treated as absent (its default applies).
bool present(const Key& k) {
    return k.map && k.map->has(k.name) && !k.map->entry(k.name).node().IsNull();
}

std::string names(const std::vector<Key>& keys) {
    std::string s;
    for (size_t i = 0; i < keys.size(); ++i)
        s += (i ? (i + 1 == keys.size() ? " or " : ", ") : "") + ("'" + keys[i].name + "'");
    return s;
}

// Reads an integer under any of its aliases. Two aliases with different values contradict each
// other: the second is the error, pointing back at the first.
struct Found {
    Key key;
    uint64_t value = 0;
};

std::optional<Found> readAliases(const std::vector<Key>& keys, uint64_t min, uint64_t max,
                                 const std::string& what) {
    std::optional<Found> first;
    for (const Key& k : keys) {
        if (!present(k)) continue;
        const uint64_t v = k.map->getUInt64(k.name, min, max);
        if (!first) {
            first = Found{k, v};
        } else if (v != first->value) {
            k.map->fail(k.name, fmt::format("{} (the {}, as '{}' gives at line {})", first->value,
                                            what, first->key.map->keyPath(first->key.name),
                                            first->key.map->entry(first->key.name).line()));
        }
    }
    return first;
}

Found requireAliases(const YamlReader& root, const std::vector<Key>& keys, uint64_t min,
                     uint64_t max, const std::string& what) {
    if (auto f = readAliases(keys, min, max, what)) return *f;
    throw root.errorAt(keys.front().name,
                       fmt::format("missing required key (expected the {} as {}, an integer >= {})",
                                   what, names(keys), min));
}

std::optional<std::string> readString(const Key& k) {
    if (!present(k)) return std::nullopt;
    const YamlReader v = k.map->entry(k.name);
    if (!v.isScalar() || v.node().Tag() != "!") k.map->fail(k.name, "a quoted string");
    return v.node().Scalar();
}

std::optional<bool> readBool(const Key& k) {
    if (!present(k)) return std::nullopt;
    return k.map->getBool(k.name);
}

// A dropout probability: only whether it is applied (p > 0) matters to the graph.
std::optional<bool> readDropout(const Key& k) {
    if (!present(k)) return std::nullopt;
    return k.map->getDouble(k.name, 0.0, 1.0) > 0.0;
}

Activation parseActivation(const Key& k, const std::string& name) {
    if (name == "silu" || name == "swish") return Activation::Silu;
    if (name == "relu") return Activation::Relu;
    if (name == "gelu" || name == "gelu_new" || name == "gelu_fast" ||
        name == "gelu_pytorch_tanh" || name == "gelu_python" || name == "quick_gelu" ||
        name == "gelu_accurate")
        return Activation::Gelu;
    k.map->fail(k.name,
                "an activation: silu, swish, relu, gelu, gelu_new, gelu_fast, "
                "gelu_pytorch_tanh, gelu_python, gelu_accurate or quick_gelu");
}

void checkComment(const YamlReader& root) {
    if (!root.has("_comment")) return;
    const YamlReader c = root.entry("_comment");
    const std::string what = "a string or a list of strings (the file's source)";
    if (c.isScalar()) {
        if (c.node().Tag() != "!") c.failHere(what);
        return;
    }
    if (!c.isSequence()) c.failHere(what);
    for (const YamlReader& line : c.elements())
        if (!line.isScalar() || line.node().Tag() != "!") line.failHere(what);
}

const Family& familyOf(const YamlReader& root, std::string& type) {
    if (const auto t = readString({&root, "model_type"})) {
        for (const Family& f : families())
            if (f.type == *t) {
                type = *t;
                return f;
            }
        std::vector<std::string> allowed;
        for (const Family& f : families()) allowed.emplace_back(f.type);
        root.getEnum("model_type", allowed);  // throws, listing the known types
    }
    // No model_type: the key family decides (docs/MODELS.md).
    auto has = [&](const char* k) { return root.has(k); };
    const char* guess = "llama";
    if (has("n_embd") || has("n_layer") || has("n_head"))
        guess = "gpt2";
    else if (has("ffn_dim") || has("word_embed_proj_dim") || has("do_layer_norm_before"))
        guess = "opt";
    else if (has("ffn_config") || has("attn_config"))
        guess = "dbrx";
    else if (has("kv_lora_rank"))
        guess = "deepseek_v3";
    else if (has("num_local_experts"))
        guess = "mixtral";
    type = guess;
    for (const Family& f : families())
        if (f.type == type) return f;
    return families().front();
}

std::string modelName(const std::string& file) {
    const std::filesystem::path p(file);
    // A HuggingFace download is <model>/config.json: the directory names the model.
    if (p.stem() == "config" && p.has_parent_path() && !p.parent_path().filename().empty())
        return p.parent_path().filename().string();
    return p.stem().string();
}

ModelConfig load(const YamlReader& root) {
    root.checkKeys(
        [] {
            std::vector<std::string_view> all = kAccepted;
            all.insert(all.end(), kIgnored.begin(), kIgnored.end());
            return all;
        }(),
        "a HuggingFace config.json key listed in docs/MODELS.md");
    checkComment(root);
    std::string type;
    const Family& fam = familyOf(root, type);

    std::optional<YamlReader> attnCfg, ffnCfg;
    if (present({&root, "attn_config"})) {
        attnCfg = root.child("attn_config");
        attnCfg->checkKeys(kAttnConfigKeys, "one of the DBRX attn_config keys in docs/MODELS.md");
    }
    if (present({&root, "ffn_config"})) {
        ffnCfg = root.child("ffn_config");
        ffnCfg->checkKeys(kFfnConfigKeys, "one of the DBRX ffn_config keys in docs/MODELS.md");
    }
    const YamlReader* attn = attnCfg ? &*attnCfg : nullptr;
    const YamlReader* ffnc = ffnCfg ? &*ffnCfg : nullptr;
    const YamlReader* r = &root;

    ModelConfig m;
    m.architecture = type;
    if (present({r, "architectures"})) {
        const YamlReader a = root.entry("architectures");
        const std::string what = "a list of architecture names";
        if (!a.isSequence()) a.failHere(what);
        const auto items = a.elements();
        for (const YamlReader& e : items)
            if (!e.isScalar() || e.node().Tag() != "!") e.failHere("a quoted architecture name");
        if (!items.empty()) m.architecture = items.front().node().Scalar();
    }
    m.activation = fam.act;
    m.gated_mlp = fam.gated;
    m.norm = fam.norm;
    m.norm_bias = fam.norm_bias;
    m.positions = fam.pos;
    m.tied_embeddings = fam.tied;
    m.attention_bias = m.mlp_bias = fam.biases;
    m.qkv_bias = fam.qkv_bias;
    m.qk_norm = fam.qk_norm;
    m.position_offset = fam.position_offset;
    m.moe.shared_gate = fam.shared_gate;

    // Sizes.
    const Found hidden = requireAliases(root, {{r, "hidden_size"}, {r, "n_embd"}, {r, "d_model"}},
                                        1, kMaxHidden, "hidden size");
    m.hidden = hidden.value;
    m.layers = requireAliases(root, {{r, "num_hidden_layers"}, {r, "n_layer"}, {r, "n_layers"}}, 1,
                              kMaxLayers, "layer count")
                   .value;
    const Found heads =
        requireAliases(root, {{r, "num_attention_heads"}, {r, "n_head"}, {r, "n_heads"}}, 1,
                       kMaxHeads, "attention head count");
    m.heads = heads.value;
    m.vocab = requireAliases(root, {{r, "vocab_size"}}, 1, kMaxVocab, "vocabulary size").value;
    m.max_positions =
        requireAliases(
            root,
            {{r, "max_position_embeddings"}, {r, "n_positions"}, {r, "n_ctx"}, {r, "max_seq_len"}},
            1, kMaxPositions, "maximum sequence length")
            .value;

    // Multi-head latent attention.
    const std::vector<std::string> mlaKeys = {"q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                                              "v_head_dim"};
    if (present({r, "kv_lora_rank"})) {
        m.mla.kv_lora_rank = root.getUInt64("kv_lora_rank", 1, kMaxWidth);
        if (present({r, "q_lora_rank"}))
            m.mla.q_lora_rank = root.getUInt64("q_lora_rank", 1, kMaxWidth);
        m.mla.qk_nope_head_dim = root.getUInt64("qk_nope_head_dim", 0, kMaxWidth);
        m.mla.qk_rope_head_dim = root.getUInt64("qk_rope_head_dim", 0, kMaxWidth);
        if (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim == 0)
            root.fail("qk_rope_head_dim", "qk_nope_head_dim + qk_rope_head_dim >= 1");
        m.mla.v_head_dim = root.getUInt64("v_head_dim", 1, kMaxWidth);
        m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    } else {
        for (const std::string& k : mlaKeys)
            if (present({r, k}))
                throw root.errorAt(
                    k, "a multi-head latent attention key needs kv_lora_rank beside it");
        if (type == "deepseek_v2" || type == "deepseek_v3")
            root.getUInt64("kv_lora_rank", 1, kMaxWidth);  // throws: required in this family
        if (present({r, "head_dim"})) {
            m.head_dim = root.getUInt64("head_dim", 1, kMaxWidth);
        } else {
            if (m.hidden % m.heads)
                heads.key.map->fail(heads.key.name,
                                    fmt::format("a divisor of {} ({}), or a head_dim key",
                                                hidden.key.name, m.hidden));
            m.head_dim = m.hidden / m.heads;
        }
    }

    const auto kv = readAliases({{r, "num_key_value_heads"}, {attn, "kv_n_heads"}}, 1, kMaxHeads,
                                "key/value head count");
    m.kv_heads = kv ? kv->value : m.heads;
    if (kv && m.heads % m.kv_heads)
        kv->key.map->fail(kv->key.name,
                          fmt::format("a divisor of {} ({})", heads.key.name, m.heads));

    // Activation.
    const std::vector<Key> actKeys = {{r, "hidden_act"}, {r, "activation_function"}};
    std::optional<std::pair<Key, std::string>> act;
    for (const Key& k : actKeys)
        if (const auto s = readString(k)) {
            if (act && act->second != *s)
                k.map->fail(k.name, fmt::format("\"{}\" (the activation, as '{}' gives at line {})",
                                                act->second, act->first.name,
                                                act->first.map->entry(act->first.name).line()));
            if (!act) act = std::make_pair(k, *s);
        }
    if (ffnc && present({ffnc, "ffn_act_fn"})) {
        const YamlReader f = ffnc->child("ffn_act_fn");
        f.checkKeys({"name"});
        const std::string s = f.getString("name");
        m.activation = parseActivation({&f, "name"}, s);
    }
    if (act) m.activation = parseActivation(act->first, act->second);

    // Biases, tying, norms.
    if (const auto b = readBool({r, "enable_bias"})) m.attention_bias = m.mlp_bias = *b;
    if (const auto b = readBool({r, "attention_bias"})) {
        m.attention_bias = *b;
        if (*b) m.qkv_bias = false;  // covered by attention_bias
    }
    if (const auto b = readBool({r, "mlp_bias"})) m.mlp_bias = *b;
    if (const auto b = readBool({r, "tie_word_embeddings"})) m.tied_embeddings = *b;
    if (const auto b = readBool({r, "layer_norm_elementwise_affine"})) m.norm_affine = *b;
    const bool preNorm = readBool({r, "do_layer_norm_before"}).value_or(true);
    const bool removeFinal = readBool({r, "_remove_final_layer_norm"}).value_or(false);
    // OPT: the final LayerNorm exists only in pre-norm models (modeling_opt.py).
    m.final_norm = preNorm && !removeFinal;
    if (present({r, "word_embed_proj_dim"})) {
        m.embed_dim = root.getUInt64("word_embed_proj_dim", 1, kMaxHidden);
        if (m.embed_dim == m.hidden) m.embed_dim = 0;
    }

    // Dropout.
    auto anyDropout = [](std::initializer_list<Key> keys) {
        bool on = false;
        for (const Key& k : keys) on |= readDropout(k).value_or(false);
        return on;
    };
    m.attention_dropout =
        anyDropout({{r, "attention_dropout"}, {r, "attn_pdrop"}, {attn, "attn_pdrop"}});
    m.hidden_dropout = anyDropout({{r, "resid_pdrop"}, {r, "dropout"}});
    m.embed_dropout = anyDropout({{r, "embd_pdrop"}, {r, "emb_pdrop"}, {r, "dropout"}});
    m.activation_dropout = anyDropout({{r, "activation_dropout"}});

    // Mixture of experts.
    const auto experts = readAliases({{r, "num_local_experts"},
                                      {r, "n_routed_experts"},
                                      {r, "num_experts"},
                                      {ffnc, "moe_num_experts"}},
                                     1, kMaxExperts, "routed expert count");
    const std::vector<Key> moeOnly = {
        {r, "num_experts_per_tok"},   {r, "moe_intermediate_size"},
        {r, "n_shared_experts"},      {r, "shared_expert_intermediate_size"},
        {r, "first_k_dense_replace"}, {r, "moe_layer_freq"},
        {r, "decoder_sparse_step"},   {r, "mlp_only_layers"},
        {ffnc, "moe_top_k"}};
    const auto inter = readAliases({{r, "intermediate_size"}, {r, "n_inner"}, {r, "ffn_dim"}}, 1,
                                   kMaxWidth, "FFN width");
    if (!experts) {
        for (const Key& k : moeOnly)
            if (present(k))
                throw k.map->errorAt(k.name,
                                     "an MoE key needs an expert count (num_local_experts, "
                                     "n_routed_experts or num_experts) beside it");
    } else {
        m.moe.experts = static_cast<uint32_t>(experts->value);
        const auto topk = readAliases({{r, "num_experts_per_tok"}, {ffnc, "moe_top_k"}}, 1,
                                      kMaxExperts, "experts per token");
        if (!topk)
            throw experts->key.map->errorAt(
                experts->key.name, "an expert count needs num_experts_per_tok (top-k) beside it");
        if (topk->value > m.moe.experts)
            topk->key.map->fail(topk->key.name,
                                fmt::format("at most {} ({})", experts->key.name, m.moe.experts));
        m.moe.experts_per_token = static_cast<uint32_t>(topk->value);
        const auto width = readAliases({{r, "moe_intermediate_size"}, {ffnc, "ffn_hidden_size"}}, 1,
                                       kMaxWidth, "routed expert width");
        if (width) {
            m.moe.intermediate = width->value;
        } else if (fam.needs_moe_width) {
            root.getUInt64("moe_intermediate_size", 1, kMaxWidth);  // throws: missing
        } else if (inter) {
            m.moe.intermediate = inter->value;  // Mixtral: intermediate_size is the expert width
        } else {
            throw root.errorAt("moe_intermediate_size",
                               "missing required key (expected the routed expert width as "
                               "'moe_intermediate_size' or 'intermediate_size')");
        }
        if (present({r, "n_shared_experts"})) {
            m.moe.shared_experts =
                static_cast<uint32_t>(root.getUInt64("n_shared_experts", 0, kMaxExperts));
            m.moe.shared_intermediate = m.moe.intermediate;  // DeepSeek: same width
        }
        if (present({r, "shared_expert_intermediate_size"})) {
            m.moe.shared_intermediate =
                root.getUInt64("shared_expert_intermediate_size", 1, kMaxWidth);
            if (!present({r, "n_shared_experts"})) m.moe.shared_experts = 1;  // Qwen2-MoE
        }
        if (m.moe.shared_experts == 0) m.moe.shared_gate = false;
        if (present({r, "first_k_dense_replace"}))
            m.moe.first_dense_layers =
                static_cast<uint32_t>(root.getUInt64("first_k_dense_replace", 0, m.layers - 1));
        const auto freq = readAliases({{r, "moe_layer_freq"}, {r, "decoder_sparse_step"}}, 1,
                                      m.layers, "MoE layer frequency");
        m.moe.layer_freq = freq ? static_cast<uint32_t>(freq->value) : 1;
        // DeepSeek: layer l is MoE when l >= k and l % freq == 0; Qwen: (l + 1) % step == 0.
        const uint32_t f = m.moe.layer_freq, k = m.moe.first_dense_layers;
        m.moe.layer_phase = fam.qwen_moe_rule ? (k + 1) % f : k % f;
        if (present({r, "mlp_only_layers"})) {
            const YamlReader list = root.entry("mlp_only_layers");
            if (!list.isSequence()) list.failHere("a list of layer indices");
            for (const YamlReader& e : list.elements()) {
                if (!e.isScalar() || e.node().Tag() == "!")
                    e.failHere(fmt::format("a layer index below {}", m.layers));
                const std::string t = e.node().Scalar();
                if (t.empty() || !std::all_of(t.begin(), t.end(), ::isdigit) || t.size() > 9 ||
                    std::stoull(t) >= m.layers)
                    e.failHere(fmt::format("a layer index below {}", m.layers));
                const uint64_t idx = std::stoull(t);
                if (std::find(m.moe.dense_layers.begin(), m.moe.dense_layers.end(), idx) !=
                    m.moe.dense_layers.end())
                    e.failHere("a layer index not listed before");
                m.moe.dense_layers.push_back(idx);
            }
            std::sort(m.moe.dense_layers.begin(), m.moe.dense_layers.end());
        }
    }

    // The dense FFN width: required when some layer is dense. GPT-2's n_inner: null means 4h.
    bool anyDense = false;
    for (uint64_t l = 0; l < m.layers && !anyDense; ++l) anyDense = !m.moeLayer(l);
    if (inter) {
        m.intermediate = inter->value;
    } else if (type == "gpt2") {
        m.intermediate = 4 * m.hidden;
    } else if (anyDense) {
        throw root.errorAt("intermediate_size",
                           "missing required key (expected the FFN width as 'intermediate_size', "
                           "'n_inner' or 'ffn_dim', an integer >= 1)");
    }
    return m;
}

}  // namespace

ModelConfig ModelConfigLoader::loadFile(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw ConfigError(path, 0, 0, "", "cannot open file: no such file");
    if (!fs::is_regular_file(st))
        throw ConfigError(path, 0, 0, "",
                          "not a regular file (a model config is a JSON file of at most 1 MB)");
    const uintmax_t size = fs::file_size(path, ec);
    if (ec) throw ConfigError(path, 0, 0, "", "cannot read file size: " + ec.message());
    if (size > kMaxFileBytes)
        throw ConfigError(path, 0, 0, "",
                          fmt::format("the file has {} bytes; a model config is at most {} bytes",
                                      size, kMaxFileBytes));
    ModelConfig m = load(YamlReader::loadFile(path));
    m.name = modelName(path);
    m.source = path;
    return m;
}

ModelConfig ModelConfigLoader::loadString(const std::string& text, const std::string& name) {
    if (text.size() > kMaxFileBytes)
        throw ConfigError(name, 0, 0, "",
                          fmt::format("the text has {} bytes; a model config is at most {} bytes",
                                      text.size(), kMaxFileBytes));
    ModelConfig m = load(YamlReader::loadString(text, name));
    m.name = modelName(name);
    m.source = name;
    return m;
}

const std::vector<std::string_view>& ModelConfigLoader::acceptedKeys() {
    return kAccepted;
}

const std::vector<std::string_view>& ModelConfigLoader::ignoredKeys() {
    return kIgnored;
}

const std::vector<std::string>& ModelConfigLoader::modelTypes() {
    static const std::vector<std::string> t = [] {
        std::vector<std::string> v;
        for (const Family& f : families()) v.emplace_back(f.type);
        return v;
    }();
    return t;
}

}  // namespace wsc::hw
