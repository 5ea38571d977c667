// Memory per die of whole training steps (StepBuilder accounting builds, no simulation) against
// the closed forms of mixed-precision training: fp16 weights and gradients (2 B each) and fp32
// Adam states (master copy, m, v: 12 B) per stored parameter; DP replicates them, TP and PP
// divide them, FSDP (ZeRO-3) shards all three (Rajbhandari et al., "ZeRO", Sec. 5); 1F1B keeps
// min(pp - s, micro-batches) micro-batches' activations on stage s (Narayanan et al. 2021).
#include <catch2/catch.hpp>
#include <numeric>

#include "firmware/llm/StepBuilder.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/tests/llm/TestDies.h"

using namespace wsc;
using namespace wsc::firmware;
using Catch::Matchers::Contains;
using llm::MemKind;
using wsc::test::tempDie;

namespace {

std::string src(const std::string& rel) {
    return std::string(WSC_SOURCE_DIR) + "/" + rel;
}

struct Built {
    llm::StepProgram sp;
    model::ModelConfig m;
};

Built build(const std::string& model, const std::string& plan, uint64_t batch, uint64_t seq) {
    Built b;
    b.m = hw::ModelConfigLoader::loadFile(src("configs/models/" + model));
    const auto p = plan::ParallelPlan::parse(plan);
    std::vector<uint32_t> rank_die(p.dies());
    std::iota(rank_die.begin(), rank_die.end(), 0);
    llm::StepSpec s;
    s.batch = batch;
    s.seq = seq;
    llm::StepBuilder sb(b.m, p, rank_die, placement::DieArray{4, 8}, tempDie(), s);
    b.sp = sb.build(0, /*emit=*/false);
    return b;
}

uint64_t at(const llm::StepProgram& sp, uint32_t die, MemKind k) {
    return sp.ledger.peakBreakdown(die)[size_t(k)];
}

// Llama2-7B: L = 32, H = 4096, I = 11008, V = 32000, multi-head attention, untied head.
constexpr uint64_t L = 32, H = 4096, I = 11008, V = 32000;
constexpr uint64_t kLayer = 4 * H * H + 3 * H * I + 2 * H;  // attention, gated MLP, two norms
constexpr uint64_t kParams = 2 * V * H + L * kLayer + H;    // embedding, head, final norm
constexpr uint64_t kNorms = (2 * L + 1) * H;                // replicated under TP

}  // namespace

TEST_CASE("Llama2-7B under pure DP holds 16 B per parameter on every die and does not fit",
          "[llm][memory]") {
    const Built b = build("llama2-7b.json", "dp=32", 128, 4096);
    REQUIRE(b.m.layers == L);
    for (uint32_t d : {0u, 17u, 31u}) {
        CHECK(at(b.sp, d, MemKind::Weights) == 2 * kParams);
        CHECK(at(b.sp, d, MemKind::Gradients) == 2 * kParams);
        CHECK(at(b.sp, d, MemKind::Optimizer) == 12 * kParams);
    }
    // 16 B x 6.74e9 = 108 GB of state alone on a 96 GB die: refused naming the die and the parts.
    CHECK_THROWS_WITH(b.sp.ledger.check(), Contains("die 0") && Contains("HBM holds 96.00 GB") &&
                                               Contains("optimizer states 75.31 GB"));
}

TEST_CASE("Megatron TP divides every matrix and replicates the norms", "[llm][memory]") {
    const Built b = build("llama2-7b.json", "dp=8,tp=4,mb=8", 128, 4096);
    const uint64_t per_die = (kParams - kNorms) / 4 + kNorms;
    for (uint32_t d = 0; d < 32; d += 5) {
        CHECK(at(b.sp, d, MemKind::Weights) == 2 * per_die);
        CHECK(at(b.sp, d, MemKind::Gradients) == 2 * per_die);
        CHECK(at(b.sp, d, MemKind::Optimizer) == 12 * per_die);
    }
    CHECK_NOTHROW(b.sp.ledger.check());
    // One micro-batch of 16 sequences keeps 8x the activations: refused, naming them.
    const Built one = build("llama2-7b.json", "dp=8,tp=4,mb=1", 128, 4096);
    // (each operator's share of its saved elements is rounded on its own: within 1e-6)
    CHECK(double(at(one.sp, 0, MemKind::Activations)) ==
          Approx(8.0 * double(at(b.sp, 0, MemKind::Activations))).epsilon(1e-6));
    CHECK_THROWS_WITH(one.sp.ledger.check(),
                      Contains("die 0 needs") && Contains("activations 114.29 GB"));
}

TEST_CASE("FSDP (ZeRO-3) shards weights, gradients and Adam states over its group",
          "[llm][memory]") {
    // Each unit (embedding, layer, head) is sharded on its own, rounded up: at most one element
    // per unit above P / N.
    const uint64_t units = L + 2;
    for (const auto& [plan, n, tp] :
         {std::tuple<const char*, uint64_t, uint64_t>{"fsdp=32", 32, 1}, {"fsdp=8,tp=4", 8, 4}}) {
        const uint64_t per_rank = (kParams - kNorms) / tp + kNorms;
        CAPTURE(plan);
        const Built b = build("llama2-7b.json", plan, 128, 4096);
        for (uint32_t d : {0u, 13u, 31u}) {
            const uint64_t w = at(b.sp, d, MemKind::Weights) / 2;
            CHECK(w >= per_rank / n);
            CHECK(w <= per_rank / n + units);
            CHECK(at(b.sp, d, MemKind::Gradients) == 2 * w);
            CHECK(at(b.sp, d, MemKind::Optimizer) == 12 * w);
            // Two gathered units (the one in use and the prefetched one), each the largest unit
            // (a transformer layer) whole within the TP rank.
            CHECK(at(b.sp, d, MemKind::Buffers) >= 2 * 2 * ((kLayer - 2 * H) / tp + 2 * H));
        }
    }
}

TEST_CASE("1F1B: stage s keeps min(pp - s, micro-batches) micro-batches' activations",
          "[llm][memory]") {
    // tp=4 x pp=8, 8 micro-batches of 16 sequences: stages 1..6 hold only transformer layers.
    const Built b = build("llama2-7b.json", "tp=4,pp=8,mb=8", 128, 4096);
    const uint64_t per_stage = L / 8;
    auto die_of_stage = [](uint32_t s) { return s * 4; };  // tp fastest: ranks 4s..4s+3
    // Weights: stage 0 has the embedding, stage 7 the head and the final norm.
    const uint64_t layers = per_stage * ((kLayer - 2 * H) / 4 + 2 * H);
    CHECK(at(b.sp, die_of_stage(0), MemKind::Weights) == 2 * (V * H / 4 + layers));
    CHECK(at(b.sp, die_of_stage(3), MemKind::Weights) == 2 * layers);
    CHECK(at(b.sp, die_of_stage(7), MemKind::Weights) == 2 * (V * H / 4 + layers + H));
    // Activations: 7 micro-batches in flight on stage 1, 2 on stage 6, all layers alike.
    const uint64_t a1 = at(b.sp, die_of_stage(1), MemKind::Activations);
    const uint64_t a6 = at(b.sp, die_of_stage(6), MemKind::Activations);
    REQUIRE(a6 > 0);
    CHECK(a1 * 2 == a6 * 7);
    for (uint32_t s = 1; s < 7; ++s)
        CHECK(at(b.sp, die_of_stage(s), MemKind::Activations) * 2 == a6 * (8 - s));
    // So the peak falls from the first stages to the last (the skew WATOS balances).
    CHECK(b.sp.ledger.peak(die_of_stage(1)) > b.sp.ledger.peak(die_of_stage(6)));
}

TEST_CASE("uneven stages: the last layers mod pp stages take one more layer, 1F1B alike",
          "[llm][memory]") {
    // Llama-30B has 60 layers: over pp=8, stages 0-3 hold 7 and stages 4-7 hold 8 (WATOS runs it
    // at tp=4, pp=8); 16 micro-batches, so stage s has pp - s in flight.
    const Built b = build("llama-30b.json", "tp=4,pp=8,mb=16", 128, 2048);
    REQUIRE(b.m.layers == 60);
    uint64_t sum = 0;
    for (uint32_t s = 0; s < 8; ++s) {
        CHECK(llm::StepBuilder::stageLayers(b.m, 8, s) == (s < 4 ? 7u : 8u));
        CHECK(llm::StepBuilder::firstLayer(b.m, 8, s) == sum);
        sum += llm::StepBuilder::stageLayers(b.m, 8, s);
    }
    CHECK(sum == 60);
    // Activations per (micro-batch in flight x layer) are the same on every stage without the
    // embedding or the head.
    auto act = [&](uint32_t s) { return at(b.sp, s * 4, MemKind::Activations); };
    auto layers = [&](uint32_t s) { return llm::StepBuilder::stageLayers(b.m, 8, s); };
    for (uint32_t s = 2; s < 7; ++s)
        CHECK(act(s) * (8 - 1) * layers(1) == act(1) * (8 - s) * layers(s));
    // A stage's weights follow its layers: stage 4's 8 layers against stage 3's 7.
    CHECK(at(b.sp, 4 * 4, MemKind::Weights) * 7 == at(b.sp, 3 * 4, MemKind::Weights) * 8);
}
