// Checkpoint offload (docs/LLM.md, "Checkpoint offload"): the ledger of a Sender and its Helper
// against closed forms, the offload's and reload's HBM bytes, the planner's choices against a
// synthetic accounting, and a simulated step that only fits with the offload.
#include <catch2/catch.hpp>
#include <numeric>

#include "firmware/llm/MemoryLedger.h"
#include "firmware/llm/StepBuilder.h"
#include "firmware/watos/OffloadPlanner.h"
#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/LlmTestbench.h"

using namespace wsc;
using namespace wsc::firmware;
using llm::MemKind;

namespace {

std::string src(const std::string& rel) {
    return std::string(WSC_SOURCE_DIR) + "/" + rel;
}

// The 8-layer tiny model, pp = 4 (2 layers per stage), 8 micro-batches of 3 sequences x 56
// tokens on the 2 x 2 test wafer; rank s on die s (row-major), so stage 3 is die 3.
llm::StepProgram tinyStep(const llm::OffloadSpec& off, bool emit) {
    const auto m = hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/tiny-dense-8l.json"));
    const auto p = plan::ParallelPlan::parse("pp=4,mb=8");
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("testbench/tests/llm/hw_offload_2x2.yaml"));
    llm::StepSpec s;
    s.batch = 24;
    s.seq = 56;
    s.offload = off;
    const llm::StepBuilder sb(m, p, {0, 1, 2, 3}, placement::DieArray{2, 2},
                              tb::LlmTestbench::dieSpec(hwc), s);
    return sb.build(0, emit);
}

llm::OffloadSpec firstLayerToLast(double share = 1.0) {
    llm::OffloadSpec o;
    o.layers = {1, 0, 0, 0};
    o.pairs.push_back({0, 3, share});
    if (share < 1.0) o.pairs.push_back({0, 2, 1.0 - share});
    return o;
}

}  // namespace

TEST_CASE(
    "offload: the Sender keeps one micro-batch of its offloaded layer, the Helper holds "
    "the in-flight ones",
    "[llm][offload][memory]") {
    const llm::StepProgram none = tinyStep({}, false);
    const llm::StepProgram off = tinyStep(firstLayerToLast(), false);
    // Stage 0 has pp - 0 = 4 micro-batches in flight: the helper holds all four's layer-0
    // tensors at once, X bytes each.
    REQUIRE(off.offload_held.size() == 4);
    const uint64_t held = off.offload_held[0];
    REQUIRE(held % 4 == 0);
    const uint64_t X = held / 4;
    CHECK(off.offload_held[1] == 0);
    CHECK(off.offload_held[3] == 0);
    // Layer 0's kept tensors of one micro-batch: the block the ledger allocated for it.
    CHECK(X > 0);
    // At the Sender's peak (a backward starting) three of the four are away, the fourth is back
    // (the ledger's blocks are whole 256-byte lines).
    const uint64_t line = (X + 255) / 256 * 256;
    const auto act = [](const llm::StepProgram& p, uint32_t d) {
        return p.ledger.peakBreakdown(d)[size_t(MemKind::Activations)];
    };
    CHECK(act(off, 0) == act(none, 0) - 3 * line);
    CHECK(off.ledger.peak(0) == none.ledger.peak(0) - 3 * line);
    // The Helper (stage 3, die 3) reserves the four slots for the whole step.
    CHECK(off.ledger.peakBreakdown(3)[size_t(MemKind::Checkpoints)] == (held + 255) / 256 * 256);
    CHECK(off.ledger.peak(3) == none.ledger.peak(3) + (held + 255) / 256 * 256);
    // Stages that are neither keep their memory.
    CHECK(off.ledger.peak(1) == none.ledger.peak(1));
    CHECK(off.ledger.peak(2) == none.ledger.peak(2));
    // The model's FLOPs do not change.
    CHECK(off.model_flops == none.model_flops);
}

TEST_CASE("offload: every micro-batch's tensors leave and come back once, split by the shares",
          "[llm][offload][program]") {
    const llm::StepProgram one = tinyStep(firstLayerToLast(), true);
    const uint64_t X = one.offload_held[0] / 4;
    auto bytes = [](const llm::StepProgram& p, uint32_t die, const std::string& tag) {
        const auto& m = p.hbm_by_op.at(die);
        return m.count(tag) ? m.at(tag) : uint64_t{0};
    };
    // 8 micro-batches: the Sender loads X for each offload and stores X for each reload; the
    // Helper stores what arrives and loads what it sends back.
    CHECK(bytes(one, 0, "checkpoint offload") == 8 * X);
    CHECK(bytes(one, 3, "checkpoint offload") == 8 * X);
    CHECK(bytes(one, 0, "checkpoint reload") == 8 * X);
    CHECK(bytes(one, 3, "checkpoint reload") == 8 * X);
    CHECK(bytes(one, 1, "checkpoint offload") == 0);
    // Two helpers, a quarter and three quarters (elements rounded down, the last takes the rest).
    const llm::StepProgram two = tinyStep(firstLayerToLast(0.25), true);
    const uint64_t q = bytes(two, 3, "checkpoint offload"), r = bytes(two, 2, "checkpoint offload");
    CHECK(q + r == 8 * X);
    CHECK(q == 8 * (X / 2 / 4 * 2));  // fp16: a quarter of X / 2 elements, whole elements
    CHECK(bytes(two, 0, "checkpoint offload") == 8 * X);
    // Each pair has its own two streams on both dies: compute and the pipeline's 5, then 6, 7
    // (stage 0 -> 3) and 8, 9 (stage 0 -> 2).
    CHECK(two.fw.program(0).streams() == 10);
    CHECK(two.fw.program(3).streams() == 8);
    CHECK(two.fw.program(2).streams() == 10);
}

TEST_CASE("offload: refuses what it cannot do, naming it", "[llm][offload]") {
    llm::OffloadSpec o = firstLayerToLast();
    o.pairs[0].share = 0.5;  // shares must sum to 1
    CHECK_THROWS_WITH(tinyStep(o, false), Catch::Contains("shares sum to 0.5"));
    o = firstLayerToLast();
    o.pairs[0].helper = 0;
    CHECK_THROWS_WITH(tinyStep(o, false), Catch::Contains("two different stages"));
    o = firstLayerToLast();
    o.layers = {1, 0, 0, 1};  // stage 3 is a helper and a sender
    o.pairs.push_back({3, 1, 1.0});
    CHECK_THROWS_WITH(tinyStep(o, false), Catch::Contains("both a Sender and a Helper"));
    o = firstLayerToLast();
    o.layers = {1, 0, 0};
    CHECK_THROWS_WITH(tinyStep(o, false), Catch::Contains("per-stage layer counts"));
}

TEST_CASE(
    "offload planner: least layers per Sender, Algorithm 3's helpers, reasons when it "
    "cannot",
    "[llm][offload][planner]") {
    using watos::OffloadPlanner;
    const uint64_t cap = 100;
    // Synthetic accounting: a Sender's extent falls by 15 per offloaded layer and it holds 20
    // per layer on helpers; a Helper's extent rises by its region.
    std::vector<uint64_t> base{140, 110, 60, 50};
    auto account = [&](const llm::OffloadSpec& o) {
        OffloadPlanner::Figures f;
        f.extent = base;
        f.held.assign(base.size(), 0);
        for (size_t s = 0; s < o.layers.size(); ++s) {
            f.extent[s] -= 15 * o.layers[s];
            f.held[s] = 20 * o.layers[s];
        }
        for (const auto& q : o.pairs)
            f.extent[q.helper] += uint64_t(double(f.held[q.sender]) * q.share + 0.5);
        return f;
    };
    // Stage s to stage h costs |s - h| (a line of stages).
    auto cost = [](uint32_t s, uint32_t h) { return double(s > h ? s - h : h - s); };
    const auto p = OffloadPlanner::plan(account, {4, 4, 4, 4}, cap, cost);
    REQUIRE(p.feasible);
    // Stage 0 needs 3 layers (140 - 45 <= 100), stage 1 one (110 - 15): demands 60 and 20.
    CHECK(p.spec.layers == std::vector<uint64_t>{3, 1, 0, 0});
    CHECK(p.held == std::vector<uint64_t>{60, 20, 0, 0});
    // Algorithm 3: the larger demand first, nearest helper first (stage 2 has 40 free, then
    // stage 3 takes the rest); stage 1's 20 then goes to stage 3 (stage 2 is full).
    REQUIRE(p.spec.pairs.size() == 3);
    CHECK(p.spec.pairs[0].sender == 0);
    CHECK(p.spec.pairs[0].helper == 2);
    CHECK(p.spec.pairs[0].share == Approx(40.0 / 60));
    CHECK(p.spec.pairs[1].helper == 3);
    CHECK(p.spec.pairs[1].share == Approx(20.0 / 60));
    CHECK(p.spec.pairs[2].sender == 1);
    CHECK(p.spec.pairs[2].helper == 3);
    CHECK(p.spec.pairs[2].share == Approx(1.0));
    for (uint64_t e : p.after) CHECK(e <= cap);
    // Nothing over capacity: nothing moves.
    base = {90, 80, 60, 50};
    CHECK(OffloadPlanner::plan(account, {4, 4, 4, 4}, cap, cost).spec.empty());
    // The helpers' free memory is short of the demand.
    base = {160, 150, 95, 95};
    auto q = OffloadPlanner::plan(account, {4, 4, 4, 4}, cap, cost);
    CHECK_FALSE(q.feasible);
    CHECK_THAT(q.why, Catch::Contains("cannot hold the offloaded checkpoints"));
    // A Sender that does not fit even with every layer away.
    base = {170, 60, 60, 60};
    q = OffloadPlanner::plan(account, {4, 4, 4, 4}, cap, cost);
    CHECK_FALSE(q.feasible);
    CHECK_THAT(q.why, Catch::Contains("stage 0 needs") && Catch::Contains("all its 4 layers"));
    // Every stage over: nobody can help.
    base = {120, 120, 120, 120};
    q = OffloadPlanner::plan(account, {4, 4, 4, 4}, cap, cost);
    CHECK_FALSE(q.feasible);
    CHECK_THAT(q.why, Catch::Contains("no stage can help"));
}

TEST_CASE("a step that only fits with checkpoint offload, simulated", "[llm][offload][step]") {
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("testbench/tests/llm/hw_offload_2x2.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s;
    s.model = hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/tiny-dense-8l.json"));
    s.plan = plan::ParallelPlan::parse("pp=4,mb=8");
    s.batch = 24;
    s.seq = 56;
    CHECK_THROWS_AS(tb::LlmTestbench::run(wafer, s), llm::OutOfMemoryError);
    s.offload = true;
    const tb::LlmResult r = tb::LlmTestbench::run(wafer, s);
    tb::LlmTestbench::printReport(std::cout, r);
    REQUIRE_FALSE(r.offload.spec.empty());
    CHECK(r.offload.spec.layers[0] > 0);
    for (uint64_t p : r.peak) CHECK(p <= r.hbm_capacity);
    const auto& ph = r.phases.at(0);
    for (const char* k : {"checkpoint offload", "checkpoint reload"}) {
        REQUIRE(ph.comm.count(k));
        CHECK(ph.comm.at(k) > 0);
    }
    // Two layers per stage and the first offloaded: composing needs builds of 2 and 3, so every
    // layer is simulated.
    CHECK(r.runs.size() == 1);
    // Against recomputation (per-die GCMR), which re-runs operators instead.
    s.offload = false;
    s.recompute = llm::RecomputePlanner::Policy::Gcmr;
    const tb::LlmResult g = tb::LlmTestbench::run(wafer, s);
    CHECK(g.phases[0].model_flops == ph.model_flops);
    CHECK(g.offload.spec.empty());
}

TEST_CASE("offload: composed from builds of k + 1 and k + 2 layers, within 1% of the whole",
          "[llm][offload][step]") {
    // 16 layers over pp = 4 (4 per stage) on 8 MB dies; stage 0 offloads its first layer, so the
    // composition is T(2) + 2 (T(3) - T(2)).
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("testbench/tests/llm/hw_offload_2x2_8mb.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s;
    s.model = hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/tiny-dense-16l.json"));
    s.plan = plan::ParallelPlan::parse("pp=4,mb=8");
    s.batch = 24;
    s.seq = 56;
    s.offload = true;
    const tb::LlmResult c = tb::LlmTestbench::run(wafer, s);
    REQUIRE(c.offload.spec.layers == std::vector<uint64_t>{1, 0, 0, 0});
    REQUIRE(c.runs.size() == 2);
    CHECK(c.runs[0].layers == 2);
    CHECK(c.runs[1].layers == 3);
    s.full = true;
    const tb::LlmResult w = tb::LlmTestbench::run(wafer, s);
    REQUIRE(w.runs.size() == 1);
    CHECK(c.phases[0].cycles == Approx(w.phases[0].cycles).epsilon(0.01));
}
