// The models shipped in configs/models/: each loads and expands, and its parameter count equals
// the published size (within 1%; active parameters too where the publisher's convention is
// known, see configs/models/README.md), MoEntwine Table I's layer counts and expert sizes.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ModelTestUtil.h"

using namespace wsc::firmware::model;
using wsc::test::loadModel;
using wsc::test::shape;

namespace {

struct Published {
    const char* file;
    double total;       // parameters, as published
    double active;      // per token (MoE), 0 when the model is dense
    double active_tol;  // relative tolerance for `active`
    const char* source;
};

// Published sizes: model cards and papers (configs/models/README.md).
const std::vector<Published> kPublished = {
    {"llama2-7b", 6.74e9, 0, 0, "Llama 2 paper / model card: 6.74B"},
    {"llama2-13b", 13.0e9, 0, 0, "Llama 2 model card: 13B (13.0B)"},
    {"llama3-8b", 8.03e9, 0, 0, "Llama 3 model card: 8.03B"},
    {"llama3-70b", 70.6e9, 0, 0, "Llama 3 model card: 70.6B"},
    {"llama-30b", 32.5e9, 0, 0, "LLaMA paper Table 2: 32.5B"},
    {"gpt3-6.7b", 6.7e9, 0, 0, "GPT-3 paper Table 2.1: 6.7B"},
    {"gpt3-76b", 76.1e9, 0, 0, "Narayanan et al. 2021 Table 1: 76.1B"},
    {"gpt3-175b", 175e9, 0, 0, "GPT-3 paper Table 2.1: 175B"},
    {"opt-175b", 175e9, 0, 0, "OPT paper Table 1: 175B"},
    {"mixtral-8x7b", 46.7e9, 12.9e9, 0.01, "Mixtral paper: 46.7B total, 12.9B active"},
    {"mixtral-8x22b", 141e9, 39e9, 0.01, "Mistral: 141B total, 39B active"},
    {"qwen3-235b-a22b", 235e9, 22e9, 0.01, "Qwen3 model card: 235B total, 22B active"},
    {"qwen1.5-moe-a2.7b", 14.3e9, 2.7e9, 0.01, "Qwen1.5-MoE model card: 14.3B, 2.7B active"},
    // DeepSeek and Databricks count active parameters without the input embedding table (a
    // lookup); we count every parameter a token touches, 0.9-1.8% more (README).
    {"deepseek-v3", 671e9, 37e9, 0.02, "DeepSeek-V3 report: 671B total, 37B active"},
    {"deepseek-v2", 236e9, 21e9, 0.02, "DeepSeek-V2 paper: 236B total, 21B active"},
    {"dbrx", 132e9, 36e9, 0.02, "Databricks: 132B total, 36B active"},
};

}  // namespace

TEST_CASE("Every shipped model's parameter count is its published size within 1%",
          "[model][shipped]") {
    for (const Published& p : kPublished) {
        INFO(p.file << ": " << p.source);
        const LayerGraph g = LayerGraph::build(loadModel(p.file), shape(1, 1));
        CHECK(std::abs(g.params() / p.total - 1) <= 0.01);
        if (p.active > 0) {
            CHECK(std::abs(g.activeParams() / p.active - 1) <= p.active_tol);
            CHECK(g.activeParams() < g.params());
        } else {
            CHECK(g.activeParams() == g.params());
        }
    }
}

TEST_CASE("Llama 2 7B and Mixtral 8x7B parameter counts are exact", "[model][shipped]") {
    // Llama 2 7B: 32 x (4 h^2 + 3 h i + 2 h) + 2 V h + h.
    const uint64_t h = 4096, i = 11008, V = 32000;
    const LayerGraph llama = LayerGraph::build(loadModel("llama2-7b"), shape(1, 1));
    CHECK(llama.params() == 32 * (4 * h * h + 3 * h * i + 2 * h) + 2 * V * h + h);
    CHECK(llama.params() == 6738415616ULL);  // the count HuggingFace reports
    CHECK(llama.embeddingParams() == V * h);
    CHECK(llama.nonEmbeddingParams() == llama.params() - 2 * V * h);
    // Mixtral 8x7B: GQA with 8 KV heads of 128, 8 experts of 3 h i, a router of 8 h.
    const uint64_t mi = 14336, kv = 8 * 128;
    const uint64_t attn = 2 * h * h + 2 * h * kv, expert = 3 * h * mi;
    const LayerGraph mix = LayerGraph::build(loadModel("mixtral-8x7b"), shape(1, 1));
    CHECK(mix.params() == 32 * (attn + 8 * expert + 8 * h + 2 * h) + 2 * V * h + h);
    CHECK(mix.activeParams() == 32 * (attn + 2 * expert + 8 * h + 2 * h) + 2 * V * h + h);
}

TEST_CASE("MoEntwine Table I: sparse/total layers and single-expert sizes", "[model][shipped]") {
    struct Row {
        const char* file;
        uint64_t sparse, total, experts, active;
        double expert_mb;  // MB of one expert, 1 byte per parameter (MiB, as the table rounds)
    };
    const Row rows[] = {{"deepseek-v3", 58, 61, 256, 8, 42},
                        {"qwen3-235b-a22b", 94, 94, 128, 8, 18},
                        {"deepseek-v2", 59, 60, 160, 6, 23},
                        {"dbrx", 40, 40, 16, 4, 189},
                        {"mixtral-8x22b", 56, 56, 8, 2, 288}};
    for (const Row& r : rows) {
        INFO(r.file);
        const LayerGraph g = LayerGraph::build(loadModel(r.file), shape(1, 1));
        const Block* moe = nullptr;
        for (const Block& b : g.blocks())
            if (b.kind == Block::Kind::Moe) moe = &b;
        REQUIRE(moe);
        CHECK(moe->repeat == r.sparse);
        CHECK(g.model().layers == r.total);
        const Operator* up = moe->find("moe.expert.gate_up");
        const Operator* down = moe->find("moe.expert.down");
        REQUIRE(up);
        REQUIRE(down);
        CHECK(up->instances == r.experts);
        CHECK(moe->experts_per_token == r.active);
        CHECK(std::round((up->params + down->params) / 1048576.0) == r.expert_mb);
    }
}

TEST_CASE("Every configs/models file loads and expands", "[model][shipped]") {
    const std::filesystem::path dir = std::filesystem::path(WSC_SOURCE_DIR) / "configs/models";
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() != ".json") continue;
        INFO(e.path().string());
        const ModelConfig m = wsc::hw::ModelConfigLoader::loadFile(e.path().string());
        CHECK(m.name == e.path().stem().string());
        const LayerGraph g =
            LayerGraph::build(m, shape(2, std::min<uint64_t>(64, m.max_positions)));
        CHECK(g.params() > 0);
        CHECK(g.trainFlops() > g.fwdFlops());
        uint64_t layers = 0;
        for (const Block& b : g.blocks())
            layers += b.kind == Block::Kind::Dense || b.kind == Block::Kind::Moe ? b.repeat : 0;
        CHECK(layers == m.layers);
        ++n;
    }
    CHECK(n >= 18);
}
