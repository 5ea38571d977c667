// LLM steps on a die-level wafer, simulated (SystemC: one test case per process).
#include <catch2/catch.hpp>

#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/LlmTestbench.h"

using namespace wsc;

namespace {

std::string src(const std::string& rel) {
    return std::string(WSC_SOURCE_DIR) + "/" + rel;
}

}  // namespace

TEST_CASE("a tiny model trains one step on 2 x 2 dies under dp x tp", "[llm][step]") {
    const hw::HardwareConfig hwc = hw::HardwareLoader::loadFile(src("configs/llm_die_2x2.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s;
    s.model = hw::ModelConfigLoader::loadFile(src("configs/models/tiny-dense.json"));
    s.plan = firmware::plan::ParallelPlan::parse("dp=2,tp=2");
    s.batch = 4;
    s.seq = 64;
    const tb::LlmResult r = tb::LlmTestbench::run(wafer, s);
    tb::LlmTestbench::printReport(std::cout, r);
    CHECK(r.phases.size() == 1);
    CHECK(r.phases[0].cycles > 0);
}

namespace {

tb::LlmSpec composeSpec(const std::string& plan) {
    tb::LlmSpec s;
    s.model = hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/models/tiny-dense-8l.json"));
    s.plan = firmware::plan::ParallelPlan::parse(plan);
    s.batch = 8;
    s.seq = 64;
    return s;
}

// The composed step (1 and 2 layers per stage simulated) against all layers simulated.
void checkComposition(const std::string& plan) {
    const hw::HardwareConfig hwc = hw::HardwareLoader::loadFile(src("configs/llm_die_2x2.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s = composeSpec(plan);
    const tb::LlmResult composed = tb::LlmTestbench::run(wafer, s);
    s.full = true;
    const tb::LlmResult whole = tb::LlmTestbench::run(wafer, s);
    REQUIRE(composed.runs.size() == 2);
    REQUIRE(whole.runs.size() == 1);
    const double c = composed.phases[0].cycles, w = whole.phases[0].cycles;
    INFO("composed " << c << " cycles, whole " << w << " cycles");
    CHECK(std::abs(c - w) <= 0.02 * w);
    // The model's FLOPs are a closed form of the graph, not composed.
    CHECK(composed.phases[0].model_flops == whole.phases[0].model_flops);
    // Two layers cost more than one: the composition extrapolates a real per-layer increment.
    CHECK(composed.runs[1].cycles > composed.runs[0].cycles);
}

}  // namespace

TEST_CASE("composition T(L) = T(1) + (L-1)(T(2)-T(1)) is within 2% of 8 layers simulated whole",
          "[llm][step][composition]") {
    checkComposition("dp=2,tp=2");
}

TEST_CASE("composition holds per pipeline stage under 1F1B (pp=2, 4 micro-batches)",
          "[llm][step][composition]") {
    checkComposition("tp=2,pp=2,mb=4");
}

TEST_CASE(
    "composition of dense and MoE layers: each kind's increment, within 2% of every layer "
    "simulated",
    "[llm][step][composition][moe]") {
    // 2 dense layers then 4 MoE layers: T(6) = T(1) + (T(2) - T(1)) + 4 (T(3) - T(2)). The rule of
    // one kind, T(1) + 5 (T(2) - T(1)), would never simulate an expert.
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("configs/moentwine_4x4_b200.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s;
    s.train = false;
    s.model =
        hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/models/tiny-moe-mixed.json"));
    s.plan = firmware::plan::ParallelPlan::parse("dp=4,tp=4,ep=16");
    s.placement = "er";
    s.batch = 4;
    s.seq = 64;
    const tb::LlmResult composed = tb::LlmTestbench::run(wafer, s);
    s.full = true;
    const tb::LlmResult whole = tb::LlmTestbench::run(wafer, s);
    REQUIRE(composed.runs.size() == 3);
    CHECK(composed.composition ==
          "T(L) = T(1) + 1 (T(2) - T(1)) [dense layers] + 4 (T(3) - T(2)) [MoE layers] per stage");
    const double c = composed.phases[0].cycles, w = whole.phases[0].cycles;
    INFO("composed " << c << " cycles, whole " << w << " cycles");
    CHECK(std::abs(c - w) <= 0.02 * w);
    // The expert all-to-alls are in the composed phase, four MoE layers' worth.
    const double a2a = composed.phases[0].comm.at("ep dispatch");
    const double a2a_whole = whole.phases[0].comm.at("ep dispatch");
    CHECK(std::abs(a2a - a2a_whole) <= 0.05 * a2a_whole);
    // A mixed model cannot be composed over pipeline stages: they hold different layers.
    s.full = false;
    s.plan = firmware::plan::ParallelPlan::parse("dp=2,tp=4,pp=2,ep=8");
    s.placement = "ring";
    CHECK_THROWS_WITH(tb::LlmTestbench::run(wafer, s),
                      Catch::Matchers::Contains("composing needs identical stages: give --full"));
}

TEST_CASE("memory fidelity: cycle-level HBM3 and the stack's bandwidth model agree within 5%",
          "[llm][step][memory]") {
    // A streaming-dominated step: one 2-channel HBM3 stack per die under a PE array 16x larger
    // than configs/llm_die_2x2.yaml's, so the GEMMs wait for their tiles.
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("testbench/tests/llm/hw_stream_2x2.yaml"));
    hw::Wafer cycle("cycle", hwc, hw::MemoryTarget::Hbm);
    hw::Wafer model("model", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s;
    s.model = hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/models/small-dense.json"));
    s.plan = firmware::plan::ParallelPlan::parse("dp=2,tp=2");
    s.batch = 2;
    s.seq = 256;
    s.full = true;
    const tb::LlmResult a = tb::LlmTestbench::run(cycle, s);
    const tb::LlmResult b = tb::LlmTestbench::run(model, s);
    const tb::LlmPhase &pa = a.phases[0], &pb = b.phases[0];
    INFO("hbm " << pa.cycles << " cycles, bandwidth model " << pb.cycles << " cycles");
    // Streaming-dominated: the critical die moves HBM data for most of the step, the PE array
    // and vector unit are busy for less than half of it.
    CHECK(pa.hbm_bytes / (a.hbm_bytes_per_cycle * pa.cycles) > 0.5);
    CHECK(pa.compute_busy < 0.5 * pa.cycles);
    CHECK(pa.hbm_bytes == pb.hbm_bytes);  // the same program moves the same bytes
    CHECK(std::abs(pa.cycles - pb.cycles) <= 0.05 * pa.cycles);
}

TEST_CASE("pipeline tensors larger than the receive buffer flow without back-pressure (1F1B, pp=4)",
          "[llm][step][pipeline]") {
    // Llama2-7B's micro-batch activations (1 sequence x 2048 tokens x 4096 x fp16 = 16 MB) are
    // larger than the TEMP die's receive buffer (13.6 MB): with eager sends the early segments
    // filled it and blocked the TP all-reduce behind them (firmware deadlock). Receiver-driven
    // transfers send a segment only once its receive is posted.
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("configs/temp_4x8_die_level.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s;
    s.model = hw::ModelConfigLoader::loadFile(src("configs/models/llama2-7b.json"));
    s.plan = firmware::plan::ParallelPlan::parse("dp=2,tp=4,pp=4,mb=4");
    s.batch = 8;
    s.seq = 2048;
    const tb::LlmResult r = tb::LlmTestbench::run(wafer, s);
    tb::LlmTestbench::printReport(std::cout, r);
    REQUIRE(r.runs.size() == 2);
    for (const auto& run : r.runs) {
        INFO("run of " << run.layers << " layers per stage: " << run.rx_refusals
                       << " refused flits, receive buffer peak " << run.rx_held_peak << " B");
        CHECK(run.cycles > 0);
        CHECK(run.exposed.count("pp recv") == 1);  // stage > 0 waited for its activations
        // No pipeline segment arrives before its receive, so nothing is refused at any
        // ejection port (eager sends: thousands of flits refused, then the deadlock); what
        // waits in the receive buffers are collective pieces that ran ahead (measured 2.7 and
        // 3.9 MB of its 13.6 MB).
        CHECK(run.rx_refusals == 0);
        CHECK(run.rx_held_peak > 0);
    }
}

TEST_CASE("a TATP plan trains one step: the model's FLOPs of DP, weights streamed in rounds",
          "[llm][step][tatp]") {
    // dp=2 x tatp=2 and tatp=4 against dp=4 on 2 x 2 dies: the same graph, so the same model
    // FLOPs; TATP's transfers run on the pipeline streams ("tatp stream") and K, V are gathered
    // over the group for attention.
    const hw::HardwareConfig hwc = hw::HardwareLoader::loadFile(src("configs/llm_die_2x2.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s;
    s.model = hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/models/small-dense.json"));
    s.batch = 4;
    s.seq = 128;
    s.plan = firmware::plan::ParallelPlan::parse("dp=4");
    const tb::LlmResult dp = tb::LlmTestbench::run(wafer, s);
    for (const char* plan : {"dp=2,tatp=2", "tatp=4"}) {
        INFO(plan);
        s.plan = firmware::plan::ParallelPlan::parse(plan);
        const tb::LlmResult t = tb::LlmTestbench::run(wafer, s);
        REQUIRE(t.phases.size() == 1);
        const tb::LlmPhase& ph = t.phases[0];
        CHECK(ph.model_flops == dp.phases[0].model_flops);
        CHECK(ph.comm.count("tatp stream") == 1);
        CHECK(ph.comm.count("tatp all-gather") == 1);
        CHECK(ph.comm.count("tatp all-reduce") == 1);  // the replicated norms and embedding
        // Weights (and their gradients and Adam states) shrink with the group: each die holds
        // 1/N of every matrix (the embedding and the norms stay whole), DP a whole copy.
        const uint32_t n = s.plan.tatp;
        CHECK(double(t.at_peak[0][size_t(firmware::llm::MemKind::Weights)]) <
              double(dp.at_peak[0][size_t(firmware::llm::MemKind::Weights)]) * (0.2 + 0.8 / n));
    }
}

TEST_CASE("composition holds for a TATP plan (tatp=4)", "[llm][step][composition][tatp]") {
    checkComposition("tatp=4");
}
