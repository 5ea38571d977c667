// ModelConfigLoader: HuggingFace config.json files of every supported family load into the typed
// model with their family's defaults, and every bad file gets file:line:col, the key and what was
// expected.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "hw/ConfigError.h"
#include "hw/ModelConfigLoader.h"

using wsc::firmware::model::Activation;
using wsc::firmware::model::ModelConfig;
using wsc::firmware::model::NormKind;
using wsc::firmware::model::PositionKind;
using wsc::hw::ConfigError;
using wsc::hw::ModelConfigLoader;

namespace {

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

std::string loadError(const std::string& text) {
    return errorOf([&] { ModelConfigLoader::loadString(text, "m.json"); });
}

// A small valid Llama config; tests append or replace lines. Line numbers below refer to it.
const char* const kLlama =
    "{\n"                                   // 1
    "  \"model_type\": \"llama\",\n"        // 2
    "  \"hidden_size\": 64,\n"              // 3
    "  \"num_hidden_layers\": 2,\n"         // 4
    "  \"num_attention_heads\": 4,\n"       // 5
    "  \"num_key_value_heads\": 2,\n"       // 6
    "  \"intermediate_size\": 176,\n"       // 7
    "  \"vocab_size\": 256,\n"              // 8
    "  \"max_position_embeddings\": 128\n"  // 9
    "}\n";

// kLlama with `line` inserted after line 2 (so it is line 3 and every later line moves down).
std::string withLine(const std::string& line) {
    std::string t = kLlama;
    const size_t at = t.find('\n', t.find("model_type")) + 1;
    return t.insert(at, "  " + line + ",\n");
}

// kLlama with the line holding `key` replaced by `line` (same line number).
std::string replaced(const std::string& key, const std::string& line) {
    std::string t = kLlama;
    const size_t start = t.find("\"" + key + "\"");
    const size_t end = t.find('\n', start);
    const bool comma = t[end - 1] == ',';
    return t.replace(start, end - start, line + (comma ? "," : ""));
}

}  // namespace

TEST_CASE("A Llama config.json loads with Llama defaults", "[model][loader]") {
    const ModelConfig m = ModelConfigLoader::loadString(kLlama, "dir/tiny.json");
    CHECK(m.name == "tiny");
    CHECK(m.source == "dir/tiny.json");
    CHECK(m.architecture == "llama");
    CHECK(m.hidden == 64);
    CHECK(m.layers == 2);
    CHECK(m.heads == 4);
    CHECK(m.kv_heads == 2);
    CHECK(m.head_dim == 16);
    CHECK(m.intermediate == 176);
    CHECK(m.vocab == 256);
    CHECK(m.max_positions == 128);
    CHECK(m.activation == Activation::Silu);
    CHECK(m.gated_mlp);
    CHECK(m.norm == NormKind::RmsNorm);
    CHECK(m.positions == PositionKind::Rotary);
    CHECK_FALSE(m.tied_embeddings);
    CHECK_FALSE(m.attention_bias);
    CHECK_FALSE(m.isMoe());
    CHECK_FALSE(m.attention_dropout);
}

TEST_CASE("A HuggingFace download's config.json is named after its directory", "[model][loader]") {
    CHECK(ModelConfigLoader::loadString(kLlama, "models/Llama-2-7b-hf/config.json").name ==
          "Llama-2-7b-hf");
}

TEST_CASE("Ignored keys are accepted whatever their value", "[model][loader]") {
    const ModelConfig m = ModelConfigLoader::loadString(
        withLine("\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 40}, \"rope_theta\": 1e6, "
                 "\"torch_dtype\": \"bfloat16\", \"quantization_config\": {\"bits\": [4]}, "
                 "\"_comment\": [\"a\", \"b\"]"),
        "m.json");
    CHECK(m.hidden == 64);
}

TEST_CASE("A null num_key_value_heads means one KV head per query head", "[model][loader]") {
    const ModelConfig m = ModelConfigLoader::loadString(
        replaced("num_key_value_heads", "\"num_key_value_heads\": null"), "m.json");
    CHECK(m.kv_heads == 4);
}

TEST_CASE("GPT-2 keys load with GPT defaults; n_inner null is 4 x n_embd", "[model][loader]") {
    const ModelConfig m = ModelConfigLoader::loadString(
        "{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, \"n_head\": 12,\n"
        " \"n_inner\": null, \"n_positions\": 1024, \"n_ctx\": 1024, \"vocab_size\": 50257,\n"
        " \"activation_function\": \"gelu_new\", \"attn_pdrop\": 0.1, \"resid_pdrop\": 0.1,\n"
        " \"embd_pdrop\": 0.1, \"layer_norm_epsilon\": 1e-05, \"summary_type\": \"cls_index\",\n"
        " \"task_specific_params\": {\"text-generation\": {\"do_sample\": true}}}",
        "gpt2.json");
    CHECK(m.hidden == 768);
    CHECK(m.intermediate == 3072);
    CHECK(m.max_positions == 1024);
    CHECK(m.activation == Activation::Gelu);
    CHECK_FALSE(m.gated_mlp);
    CHECK(m.norm == NormKind::LayerNorm);
    CHECK(m.positions == PositionKind::Learned);
    CHECK(m.tied_embeddings);
    CHECK(m.attention_bias);
    CHECK(m.mlp_bias);
    CHECK(m.attention_dropout);
    CHECK(m.hidden_dropout);
    CHECK(m.embed_dropout);
}

TEST_CASE("Without model_type the key family decides", "[model][loader]") {
    const ModelConfig gpt = ModelConfigLoader::loadString(
        "{\"n_embd\": 64, \"n_layer\": 2, \"n_head\": 4, \"n_positions\": 32, \"vocab_size\": 100}",
        "g.json");
    CHECK(gpt.architecture == "gpt2");
    CHECK(gpt.positions == PositionKind::Learned);
    const ModelConfig opt = ModelConfigLoader::loadString(
        "{\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
        "\"ffn_dim\": 256, \"max_position_embeddings\": 32, \"vocab_size\": 100}",
        "o.json");
    CHECK(opt.architecture == "opt");
    CHECK(opt.activation == Activation::Relu);
    CHECK(opt.position_offset == 2);
}

TEST_CASE("OPT keys: projections, post-norm and biases", "[model][loader]") {
    const ModelConfig m = ModelConfigLoader::loadString(
        "{\"model_type\": \"opt\", \"hidden_size\": 1024, \"num_hidden_layers\": 24,\n"
        " \"num_attention_heads\": 16, \"ffn_dim\": 4096, \"max_position_embeddings\": 2048,\n"
        " \"vocab_size\": 50272, \"word_embed_proj_dim\": 512, \"do_layer_norm_before\": false,\n"
        " \"enable_bias\": true, \"activation_function\": \"relu\", \"dropout\": 0.1,\n"
        " \"attention_dropout\": 0.0, \"activation_dropout\": 0.0}",
        "opt-350m.json");
    CHECK(m.embed_dim == 512);
    CHECK(m.embedWidth() == 512);
    CHECK_FALSE(m.final_norm);
    CHECK(m.attention_bias);
    CHECK(m.hidden_dropout);
    CHECK(m.embed_dropout);
    CHECK_FALSE(m.attention_dropout);
    CHECK_FALSE(m.activation_dropout);
}

TEST_CASE("DeepSeek keys: MLA, first dense layers, shared experts", "[model][loader]") {
    const ModelConfig m = ModelConfigLoader::loadString(
        "{\"model_type\": \"deepseek_v3\", \"hidden_size\": 256, \"num_hidden_layers\": 6,\n"
        " \"num_attention_heads\": 8, \"num_key_value_heads\": 8, \"intermediate_size\": 512,\n"
        " \"vocab_size\": 1000, \"max_position_embeddings\": 4096, \"kv_lora_rank\": 32,\n"
        " \"q_lora_rank\": null, \"qk_nope_head_dim\": 16, \"qk_rope_head_dim\": 8,\n"
        " \"v_head_dim\": 16, \"n_routed_experts\": 16, \"num_experts_per_tok\": 4,\n"
        " \"n_shared_experts\": 2, \"moe_intermediate_size\": 64, \"first_k_dense_replace\": 1,\n"
        " \"moe_layer_freq\": 2, \"topk_method\": \"noaux_tc\", \"n_group\": 4}",
        "ds.json");
    CHECK(m.isMla());
    CHECK(m.mla.q_lora_rank == 0);
    CHECK(m.mla.kv_lora_rank == 32);
    CHECK(m.head_dim == 24);
    CHECK(m.moe.experts == 16);
    CHECK(m.moe.experts_per_token == 4);
    CHECK(m.moe.shared_experts == 2);
    CHECK(m.moe.shared_intermediate == 64);
    // DeepSeek's rule: layer l >= first_k_dense_replace is MoE when l % moe_layer_freq == 0.
    CHECK_FALSE(m.moeLayer(0));
    CHECK_FALSE(m.moeLayer(1));
    CHECK(m.moeLayer(2));
    CHECK_FALSE(m.moeLayer(3));
    CHECK(m.moeLayer(4));
}

TEST_CASE("Qwen MoE keys: decoder_sparse_step and mlp_only_layers", "[model][loader]") {
    const ModelConfig m = ModelConfigLoader::loadString(
        "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 6,\n"
        " \"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100,\n"
        " \"max_position_embeddings\": 64, \"num_experts\": 8, \"num_experts_per_tok\": 2,\n"
        " \"moe_intermediate_size\": 32, \"shared_expert_intermediate_size\": 96,\n"
        " \"decoder_sparse_step\": 2, \"mlp_only_layers\": [3]}",
        "q.json");
    CHECK(m.qkv_bias);
    CHECK(m.moe.shared_experts == 1);
    CHECK(m.moe.shared_intermediate == 96);
    CHECK(m.moe.shared_gate);
    // Qwen's rule: (l + 1) % decoder_sparse_step == 0, except mlp_only_layers.
    CHECK_FALSE(m.moeLayer(0));
    CHECK(m.moeLayer(1));
    CHECK_FALSE(m.moeLayer(2));
    CHECK_FALSE(m.moeLayer(3));
    CHECK(m.moeLayer(5));
}

TEST_CASE("DBRX nests its attention and FFN keys", "[model][loader]") {
    const ModelConfig m = ModelConfigLoader::loadString(
        "{\"model_type\": \"dbrx\", \"d_model\": 128, \"n_layers\": 2, \"n_heads\": 8,\n"
        " \"max_seq_len\": 256, \"vocab_size\": 500,\n"
        " \"attn_config\": {\"kv_n_heads\": 2, \"clip_qkv\": 8, \"rope_theta\": 500000},\n"
        " \"ffn_config\": {\"ffn_hidden_size\": 64, \"moe_num_experts\": 4, \"moe_top_k\": 2,\n"
        "                 \"ffn_act_fn\": {\"name\": \"silu\"}}}",
        "dbrx.json");
    CHECK(m.kv_heads == 2);
    CHECK(m.moe.experts == 4);
    CHECK(m.moe.experts_per_token == 2);
    CHECK(m.moe.intermediate == 64);
    CHECK(m.norm == NormKind::LayerNorm);
    CHECK_FALSE(m.norm_bias);
}

// ---- Located errors: each names file:line:col and the key.

TEST_CASE("An unknown key is named with a suggestion", "[model][loader][errors]") {
    CHECK_THAT(loadError(withLine("\"num_key_value_head\": 2")),
               Catch::StartsWith("m.json:3:3: key 'num_key_value_head': unknown key (did you mean "
                                 "'num_key_value_heads'?)"));
    CHECK_THAT(loadError(withLine("\"rope_thetta\": 2")),
               Catch::StartsWith("m.json:3:3: key 'rope_thetta': unknown key (did you mean "
                                 "'rope_theta'?)"));
}

TEST_CASE("Two aliases with different values contradict each other", "[model][loader][errors]") {
    CHECK(loadError(withLine("\"n_embd\": 96")) ==
          "m.json:3:13: key 'n_embd': expected 64 (the hidden size, as 'hidden_size' gives at "
          "line 4), got '96'");
    // The same value under two names is fine.
    CHECK(ModelConfigLoader::loadString(withLine("\"n_embd\": 64"), "m.json").hidden == 64);
}

TEST_CASE("A string where a number belongs is a type error", "[model][loader][errors]") {
    CHECK(loadError(replaced("num_key_value_heads", "\"num_key_value_heads\": \"2\"")) ==
          "m.json:6:26: key 'num_key_value_heads': expected an integer between 1 and 65536, got "
          "the quoted string \"2\"");
    CHECK_THAT(loadError(replaced("hidden_size", "\"hidden_size\": 64.5")),
               Catch::StartsWith("m.json:3:18: key 'hidden_size': expected an integer"));
    CHECK_THAT(loadError(withLine("\"tie_word_embeddings\": \"false\"")),
               Catch::StartsWith("m.json:3:26: key 'tie_word_embeddings': expected true or false"));
    CHECK_THAT(loadError(withLine("\"hidden_act\": 3")),
               Catch::StartsWith("m.json:3:17: key 'hidden_act': expected a quoted string"));
    CHECK_THAT(loadError(withLine("\"_comment\": 3")),
               Catch::StartsWith("m.json:3:15: key '_comment': expected a string or a list"));
}

TEST_CASE("A missing required key is named with its aliases", "[model][loader][errors]") {
    CHECK(loadError(replaced("vocab_size", "\"rope_theta\": 1")) ==
          "m.json:1:1: key 'vocab_size': missing required key (expected the vocabulary size as "
          "'vocab_size', an integer >= 1)");
    CHECK_THAT(loadError(replaced("hidden_size", "\"rope_theta\": 1")),
               Catch::StartsWith("m.json:1:1: key 'hidden_size': missing required key (expected "
                                 "the hidden size as 'hidden_size', 'n_embd' or 'd_model'"));
    CHECK_THAT(loadError(replaced("intermediate_size", "\"rope_theta\": 1")),
               Catch::StartsWith("m.json:1:1: key 'intermediate_size': missing required key"));
}

TEST_CASE("Zero and negative sizes are refused at their key", "[model][loader][errors]") {
    CHECK(loadError(replaced("num_hidden_layers", "\"num_hidden_layers\": 0")) ==
          "m.json:4:24: key 'num_hidden_layers': expected an integer >= 1, got '0'");
    CHECK(loadError(replaced("vocab_size", "\"vocab_size\": -5")) ==
          "m.json:8:17: key 'vocab_size': expected an integer >= 1, got '-5'");
}

TEST_CASE("Shape contradictions are errors at the key", "[model][loader][errors]") {
    // Heads not dividing hidden without head_dim.
    CHECK(loadError(replaced("num_attention_heads", "\"num_attention_heads\": 5")) ==
          "m.json:5:26: key 'num_attention_heads': expected a divisor of hidden_size (64), or a "
          "head_dim key, got '5'");
    // ... which head_dim resolves.
    const ModelConfig m = ModelConfigLoader::loadString(
        "{\"hidden_size\": 64, \"num_hidden_layers\": 1, \"num_attention_heads\": 6,\n"
        " \"num_key_value_heads\": 3, \"head_dim\": 32, \"intermediate_size\": 8,\n"
        " \"vocab_size\": 8, \"max_position_embeddings\": 8}",
        "m.json");
    CHECK(m.head_dim == 32);
    // KV heads not dividing heads.
    CHECK(loadError(replaced("num_key_value_heads", "\"num_key_value_heads\": 3")) ==
          "m.json:6:26: key 'num_key_value_heads': expected a divisor of num_attention_heads "
          "(4), got '3'");
}

TEST_CASE("MoE contradictions are errors at the key", "[model][loader][errors]") {
    // top-k above the expert count.
    CHECK(loadError(withLine("\"num_local_experts\": 4, \"num_experts_per_tok\": 5")) ==
          "m.json:3:50: key 'num_experts_per_tok': expected at most num_local_experts (4), got "
          "'5'");
    // MoE keys without an expert count.
    CHECK(loadError(withLine("\"num_experts_per_tok\": 2")) ==
          "m.json:3:26: key 'num_experts_per_tok': an MoE key needs an expert count "
          "(num_local_experts, n_routed_experts or num_experts) beside it");
    // An expert count without top-k.
    CHECK(loadError(withLine("\"num_local_experts\": 4")) ==
          "m.json:3:24: key 'num_local_experts': an expert count needs num_experts_per_tok "
          "(top-k) beside it");
    // Two expert-count aliases disagreeing.
    CHECK_THAT(loadError(withLine("\"num_local_experts\": 4, \"num_experts\": 8, "
                                  "\"num_experts_per_tok\": 2")),
               Catch::StartsWith("m.json:3:42: key 'num_experts': expected 4 (the routed expert "
                                 "count, as 'num_local_experts' gives at line 3), got '8'"));
    // A dense layer listed beyond the model.
    CHECK_THAT(loadError(withLine("\"num_experts\": 4, \"num_experts_per_tok\": 2, "
                                  "\"mlp_only_layers\": [0, 7]")),
               Catch::StartsWith("m.json:3:70: key 'mlp_only_layers[1]': expected a layer index "
                                 "below 2, got '7'"));
    // MLA keys without kv_lora_rank.
    CHECK_THAT(loadError(withLine("\"qk_rope_head_dim\": 64")),
               Catch::StartsWith("m.json:3:23: key 'qk_rope_head_dim': a multi-head latent "
                                 "attention key needs kv_lora_rank"));
}

TEST_CASE("An unknown model_type or activation lists the accepted ones",
          "[model][loader][errors]") {
    CHECK_THAT(loadError(replaced("model_type", "\"model_type\": \"falcon\"")),
               Catch::StartsWith("m.json:2:17: key 'model_type': expected one of llama, mistral"));
    CHECK_THAT(loadError(withLine("\"hidden_act\": \"tanh\"")),
               Catch::StartsWith("m.json:3:17: key 'hidden_act': expected an activation: silu"));
}

TEST_CASE("A JSON syntax error is located", "[model][loader][errors]") {
    std::string t = kLlama;
    t.erase(t.find(",\n  \"num_hidden_layers\""), 1);  // drop the comma ending line 3
    // yaml-cpp notices at the ':' after the next key.
    CHECK(loadError(t) == "m.json:4:22: invalid YAML syntax: end of map flow not found");
    CHECK_THAT(loadError("[1, 2]"), Catch::StartsWith("m.json:1:1: expected a map"));
}

TEST_CASE("Non-regular, missing and oversized files are refused by name",
          "[model][loader][errors]") {
    CHECK(errorOf([] { ModelConfigLoader::loadFile("/dev/zero"); }) ==
          "/dev/zero: not a regular file (a model config is a JSON file of at most 1 MB)");
    CHECK(errorOf([] { ModelConfigLoader::loadFile("/tmp"); }) ==
          "/tmp: not a regular file (a model config is a JSON file of at most 1 MB)");
    CHECK(errorOf([] { ModelConfigLoader::loadFile("/no/such/model.json"); }) ==
          "/no/such/model.json: cannot open file: no such file");
    const std::string big =
        (std::filesystem::temp_directory_path() / "wsc_model_big.json").string();
    {
        std::ofstream f(big);
        f << "{\"_comment\": \"" << std::string(ModelConfigLoader::kMaxFileBytes, 'x') << "\"}";
    }
    CHECK_THAT(errorOf([&] { ModelConfigLoader::loadFile(big); }),
               Catch::EndsWith("a model config is at most 1048576 bytes"));
    std::remove(big.c_str());
}

TEST_CASE("A duplicate key is an error at its second occurrence", "[model][loader][errors]") {
    CHECK(loadError(withLine("\"vocab_size\": 256")) ==
          "m.json:9:3: key 'vocab_size': duplicate key (first given at line 3)");
}
