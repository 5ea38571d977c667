// Activation recomputation (docs/LLM.md, "Recomputation"): the items and re-runs of a block,
// WATOS Algorithm 2's programme against brute force, the ledger and FLOPs of recomputed steps
// against closed forms, and simulated steps under the uniform and GCMR policies.
#include <catch2/catch.hpp>
#include <numeric>
#include <random>

#include "firmware/llm/Gcmr.h"
#include "firmware/llm/MemoryLedger.h"
#include "firmware/llm/RecomputeBlock.h"
#include "firmware/llm/StepBuilder.h"
#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/LlmTestbench.h"
#include "testbench/tests/llm/TestDies.h"

using namespace wsc;
using namespace wsc::firmware;
using llm::MemKind;
using llm::RecomputeBlock;

namespace {

std::string src(const std::string& rel) {
    return std::string(WSC_SOURCE_DIR) + "/" + rel;
}

// Llama2-7B: H = 4096, I = 11008, 32 heads (multi-head attention).
constexpr uint64_t H = 4096, I = 11008;

llm::StepProgram llamaStep(const std::vector<uint64_t>& masks) {
    const auto m = hw::ModelConfigLoader::loadFile(src("configs/models/llama2-7b.json"));
    const auto p = plan::ParallelPlan::parse("tp=4,pp=8,mb=8");
    std::vector<uint32_t> rank_die(p.dies());
    std::iota(rank_die.begin(), rank_die.end(), 0);
    llm::StepSpec s;
    s.batch = 128;
    s.seq = 4096;
    s.recompute = masks;
    const llm::StepBuilder sb(m, p, rank_die, placement::DieArray{4, 8}, test::tempDie(), s);
    return sb.build(0, /*emit=*/false);
}

// A training graph as StepBuilder builds it (fused attention, no dropout).
model::LayerGraph trainGraph(const std::string& model, uint64_t sequences, uint64_t seq_len) {
    model::GraphShape g;
    g.sequences = sequences;
    g.seq_len = seq_len;
    g.flash_attention = true;
    g.dropout = false;
    return model::LayerGraph::build(hw::ModelConfigLoader::loadFile(src("configs/models/" + model)),
                                    g);
}

const model::Block& llamaBlock(model::LayerGraph& keep) {
    keep = trainGraph("llama2-7b.json", 1, 128);
    return keep.blocks()[1];
}

}  // namespace

TEST_CASE("a dense block has two segments, six droppable items and re-runs along the chain",
          "[llm][recompute]") {
    model::LayerGraph g;
    const model::Block& b = llamaBlock(g);
    const RecomputeBlock rb(b);
    CHECK(rb.segments() == 2);
    std::vector<std::string> names;
    for (size_t i : rb.droppable()) names.push_back(rb.items()[i].name);
    CHECK(names == std::vector<std::string>{"attn.qkv", "attention", "attn.out", "mlp.gate_up",
                                            "mlp.act", "mlp.down"});
    auto op = [&](const std::string& n) {
        for (size_t i = 0; i < b.ops.size(); ++i)
            if (b.ops[i].name == n) return i;
        FAIL("no operator " << n);
        return size_t{0};
    };
    // Dropping mlp.act (bit 4) re-runs mlp.gate_up only; dropping mlp.down (bit 5) the
    // activation only.
    auto r = rb.reruns(uint64_t{1} << 4);
    REQUIRE(r.size() == 1);
    CHECK(r[0].first == op("mlp.gate_up"));
    CHECK(r[0].last == op("mlp.gate_up") + 1);
    CHECK(r[0].segment == 1);
    r = rb.reruns(uint64_t{1} << 5);
    REQUIRE(r.size() == 1);
    CHECK(r[0].first == op("mlp.act"));
    // Dropping the attention (bit 1) and the output projection's input (bit 2): one range from
    // the QKV projection through the fused attention (score, softmax, context).
    r = rb.reruns(0b110);
    REQUIRE(r.size() == 1);
    CHECK(r[0].first == op("attn.qkv"));
    CHECK(r[0].last == op("attn.context") + 1);
    CHECK(r[0].segment == 0);
    // Everything: one range per segment, from the norm (its input is the checkpoint).
    r = rb.reruns(rb.fullMask());
    REQUIRE(r.size() == 2);
    CHECK(r[0].first == op("attn.norm"));
    CHECK(r[0].last == op("attn.context") + 1);
    CHECK(r[1].first == op("mlp.norm"));
    CHECK(r[1].last == op("mlp.act") + 1);
    // The norms and residuals are never dropped.
    for (const char* n : {"attn.norm", "attn.residual", "mlp.norm", "mlp.residual"})
        CHECK_FALSE(rb.drops(rb.fullMask(), op(n)));
    CHECK(rb.describe(0) == "none");
    CHECK(rb.describe(0b100001) == "attn.qkv+mlp.down");
}

TEST_CASE("an MoE block keeps its experts' tensors (only attention and the router re-run)",
          "[llm][recompute]") {
    const auto g = trainGraph("tiny-moe.json", 1, 64);
    const model::Block& b = g.blocks()[1];
    const RecomputeBlock rb(b);
    for (size_t i : rb.droppable()) {
        const auto& it = rb.items()[i];
        for (size_t k = it.first; k < it.last; ++k)
            CHECK(b.ops[k].ffn != model::FfnRole::RoutedExpert);
    }
    CHECK(rb.droppable().size() >= 3);
}

TEST_CASE("GCMR's programme finds the brute-force optimum (per-stage and pooled memory)",
          "[llm][recompute]") {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 300; ++trial) {
        const size_t S = 1 + rng() % 4, O = 1 + rng() % 4;
        std::vector<std::vector<double>> t(S, std::vector<double>(O));
        std::vector<std::vector<uint64_t>> mem(S, std::vector<uint64_t>(O));
        std::vector<uint64_t> cap(S);
        for (size_t s = 0; s < S; ++s) {
            cap[s] = 40 + rng() % 40;
            // Options: more recomputation, less memory (as a menu is).
            uint64_t m = 30 + rng() % 80;
            double x = double(10 + rng() % 10);
            for (size_t o = 0; o < O; ++o) {
                t[s][o] = x, mem[s][o] = m;
                x += double(rng() % 7);
                m = m > 20 ? m - rng() % 20 : m;
            }
        }
        for (bool pooled : {false, true}) {
            const auto dp = llm::Gcmr::solve(t, mem, cap, pooled, 1);
            const auto bf = llm::Gcmr::bruteForce(t, mem, cap, pooled);
            INFO("trial " << trial << " pooled " << pooled);
            REQUIRE(dp.feasible == bf.feasible);
            if (!bf.feasible) continue;
            CHECK(dp.max_time == bf.max_time);
            CHECK(dp.total_time == bf.total_time);
            uint64_t total = 0;
            for (size_t s = 0; s < S; ++s) {
                if (!pooled) CHECK(mem[s][dp.choice[s]] <= cap[s]);
                total += mem[s][dp.choice[s]];
            }
            CHECK(total <= std::accumulate(cap.begin(), cap.end(), uint64_t{0}));
        }
    }
}

TEST_CASE("GCMR: a later stage with fewer micro-batches in flight recomputes less",
          "[llm][recompute]") {
    // Two stages, three options; stage 0 (more activations) only fits with the last one.
    const std::vector<std::vector<double>> t = {{10, 12, 15}, {9, 11, 14}};
    const std::vector<std::vector<uint64_t>> m = {{120, 100, 80}, {90, 70, 50}};
    const auto r = llm::Gcmr::solve(t, m, {100, 100}, false, 1);
    REQUIRE(r.feasible);
    CHECK(r.choice == std::vector<size_t>{1, 0});
    CHECK(r.max_time == 12);
    // Pooled (offload to a Helper): stage 0 may exceed its die (120 of 100) when stage 1 has
    // room (70 of 100); keeping everything on both (210) would not fit the 200.
    const auto p = llm::Gcmr::solve(t, m, {100, 100}, true, 1);
    CHECK(p.choice == std::vector<size_t>{0, 1});
    CHECK(p.memory == 190);
    CHECK(p.max_time == 11);
    CHECK_FALSE(llm::Gcmr::solve(t, m, {60, 40}, false, 1).feasible);
}

TEST_CASE("recomputing every droppable item keeps two residual-stream tensors per layer",
          "[llm][recompute][memory]") {
    model::LayerGraph g;
    const RecomputeBlock rb(llamaBlock(g));
    const llm::StepProgram none = llamaStep({});
    const llm::StepProgram full = llamaStep(std::vector<uint64_t>(8, rb.fullMask()));
    // Micro-batch: 16 sequences of 4096 tokens; tp = 4 splits heads and matrices.
    const uint64_t T = 16 * 4096, e = 2;
    // Kept per layer without recomputation: two norms' inputs (T H each), QKV's input (T H),
    // Q and K (2 T H / 4), the log-sum-exp (fp32 per row and head: T x 32 / 4 x 2 elements),
    // V (T H / 4), the output projection's input (T H / 4), the MLP's input (T H), the
    // activation's input (2 T I / 4), down's input (T I / 4).
    const uint64_t kept_none = T * (5 * H + 16 + 3 * I / 4);
    const uint64_t kept_full = T * 2 * H;
    // The MLP segment's re-run regenerates T H + 2 T I / 4 + T I / 4, the largest transient.
    const uint64_t transient = T * (H + 3 * I / 4);
    // Stage 3 (dies 12..15) holds pp - s = 5 micro-batches of its 4 layers at its peak.
    for (uint32_t d : {12u, 15u}) {
        CHECK(none.ledger.peakBreakdown(d)[size_t(MemKind::Activations)] == 5 * 4 * kept_none * e);
        CHECK(full.ledger.peakBreakdown(d)[size_t(MemKind::Activations)] ==
              5 * 4 * kept_full * e + transient * e);
    }
    // The model's FLOPs are the graph's either way; the re-runs are extra work on the dies.
    CHECK(full.model_flops == none.model_flops);
    CHECK(none.recompute_flops == 0);
    // Re-run per layer and micro-batch: both norms replicated, QKV, the fused attention,
    // gate_up and the activation split by tp = 4; on 32 dies x 4 layers x 8 micro-batches.
    uint64_t per_die = 0;
    const auto big = trainGraph("llama2-7b.json", 16, 4096);
    for (const auto& o : big.blocks()[1].ops) {
        const bool rerun = o.name == "attn.norm" || o.name == "attn.qkv" ||
                           o.name == "attn.score" || o.name == "attn.softmax" ||
                           o.name == "attn.context" || o.name == "mlp.norm" ||
                           o.name == "mlp.gate_up" || o.name == "mlp.act";
        if (!rerun) continue;
        per_die += o.tp == model::TpSplit::Replicated ? o.fwd_flops : o.fwd_flops / 4;
    }
    CHECK(full.recompute_flops == 32 * 4 * 8 * per_die);
}

TEST_CASE("a step that only fits with recomputation: uniform and GCMR simulated",
          "[llm][recompute][step]") {
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("testbench/tests/llm/hw_tight_2x2.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s;
    s.model = hw::ModelConfigLoader::loadFile(src("configs/models/tiny-dense.json"));
    s.plan = plan::ParallelPlan::parse("tp=2,pp=2,mb=4");
    s.batch = 16;
    s.seq = 64;
    using P = llm::RecomputePlanner::Policy;
    s.recompute = P::None;
    CHECK_THROWS_AS(tb::LlmTestbench::run(wafer, s), llm::OutOfMemoryError);
    s.recompute = P::Uniform;
    const tb::LlmResult u = tb::LlmTestbench::run(wafer, s);
    s.recompute = P::Gcmr;
    const tb::LlmResult g = tb::LlmTestbench::run(wafer, s);
    tb::LlmTestbench::printReport(std::cout, g);
    const uint64_t cap = u.hbm_capacity;
    CHECK(cap == 1ull << 20);
    REQUIRE(u.recompute.masks.size() == 2);
    REQUIRE(g.recompute.masks.size() == 2);
    // Uniform: one choice everywhere, sized for stage 0 (4 micro-batches in flight against 1
    // on stage 1); GCMR: stage 1 drops a strict subset of what stage 0 drops.
    CHECK(u.recompute.masks[0] == u.recompute.masks[1]);
    CHECK(g.recompute.masks[0] == u.recompute.masks[0]);
    CHECK((g.recompute.masks[1] & ~g.recompute.masks[0]) == 0);
    CHECK(g.recompute.masks[1] != g.recompute.masks[0]);
    for (const auto* r : {&u, &g}) {
        for (uint64_t p : r->recompute.peak) CHECK(p <= cap);
        for (uint64_t p : r->peak) CHECK(p <= cap);
        const auto& ph = r->phases.at(0);
        REQUIRE(ph.comm.count("recompute"));
        CHECK(ph.comm.at("recompute") > 0);
        CHECK(ph.comm.at("recompute") < ph.cycles);
        CHECK(ph.hbm_by_op.count("mlp.gate_up recompute"));
    }
    CHECK(g.phases[0].model_flops == u.phases[0].model_flops);
    CHECK(g.phases[0].cycles < u.phases[0].cycles);
}
