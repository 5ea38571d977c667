// Expert migration simulated (SystemC: one test case per process): NI-Balancer's parts run on
// the migration stream beside the step, invasive parts before it. Each case compares the same
// routing and copies with and without the migration traffic (RoutingOptions::migrate).
#include <catch2/catch.hpp>
#include <cmath>

#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/LlmTestbench.h"

using namespace wsc;

namespace {

std::string src(const std::string& rel) {
    return std::string(WSC_SOURCE_DIR) + "/" + rel;
}

// Prefill of batch x seq tokens of tiny-moe-16 (16 experts of 0.2 M parameters, top-4) on
// 4x4 B200-like dies, ER-Mapping, temporal gating, iteration 1, every layer simulated.
tb::LlmSpec spec(const std::string& balancer, bool migrate, uint64_t batch, uint64_t seq) {
    tb::LlmSpec s;
    s.train = false;
    s.model = hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/models/tiny-moe-16.json"));
    s.plan = firmware::plan::ParallelPlan::parse("dp=4,tp=4,ep=16");
    s.placement = "er";
    s.batch = batch, s.seq = seq;
    s.full = true;
    s.routing.source = firmware::llm::RoutingOptions::Source::Gating;
    s.routing.gating.kind = firmware::moe::GatingKind::Temporal;
    s.routing.iteration = 1;
    s.routing.balancer = balancer;
    s.routing.migrate = migrate;
    return s;
}

uint64_t running(const tb::LlmPhase& p, const std::string& prefix) {
    double c = 0;
    for (const auto& [k, v] : p.comm)
        if (k.rfind(prefix, 0) == 0) c += v;
    return uint64_t(c);
}

}  // namespace

TEST_CASE(
    "expert migration simulated: NI-Balancer's parts hide on cold links when the phases are "
    "long enough and lengthen the step when they are not, invasive parts add their time before "
    "the step",
    "[llm][routing][migration][sim]") {
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("configs/moentwine_4x4_b200.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    // 16384 tokens: every all-reduce and all-to-all phase outlasts a part (0.4 MB).
    const tb::LlmResult ni = tb::LlmTestbench::run(wafer, spec("ni", true, 64, 256));
    const tb::LlmResult still = tb::LlmTestbench::run(wafer, spec("ni", false, 64, 256));
    tb::LlmTestbench::printReport(std::cout, ni);
    const auto& pn = ni.phases.at(0);
    const auto& ps = still.phases.at(0);
    INFO(ni.routing);
    // The parts ran on the critical die's migration stream, and compute never waited for them.
    CHECK(running(pn, "expert migration") > 0);
    for (const auto& [k, v] : pn.exposed) CHECK(k.rfind("expert migration", 0) != 0);
    // Hidden: within 0.5% of the same step without the traffic (same copies, same routing).
    CHECK(std::abs(pn.cycles - ps.cycles) <= 0.005 * ps.cycles);

    // Invasive: the dies taking part wait for their migrations before computing.
    const tb::LlmResult topo = tb::LlmTestbench::run(wafer, spec("topo", true, 64, 256));
    const tb::LlmResult topo0 = tb::LlmTestbench::run(wafer, spec("topo", false, 64, 256));
    const auto& pt = topo.phases.at(0);
    REQUIRE(pt.exposed.count("expert migration (invasive)"));
    const double waited = pt.exposed.at("expert migration (invasive)");
    CHECK(waited > 0);
    CHECK(pt.cycles > topo0.phases.at(0).cycles + waited / 2);

    // 1024 tokens: the phases are shorter than the parts, which then contend with the
    // collectives and run past them; the step is longer.
    const tb::LlmResult short_ni = tb::LlmTestbench::run(wafer, spec("ni", true, 16, 64));
    const tb::LlmResult short_still = tb::LlmTestbench::run(wafer, spec("ni", false, 16, 64));
    CHECK(short_ni.phases.at(0).cycles > 1.01 * short_still.phases.at(0).cycles);
}

TEST_CASE(
    "overlapped micro-batches simulated: the same FLOPs in fewer cycles, the all-reduces "
    "and the combine hidden behind the other micro-batch's compute",
    "[llm][overlap][sim]") {
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("configs/moentwine_4x4_b200.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s = spec("none", true, 64, 256);
    s.routing = {};
    s.plan = firmware::plan::ParallelPlan::parse("dp=4,tp=4,ep=16,mb=2");
    const tb::LlmResult seq = tb::LlmTestbench::run(wafer, s);
    s.overlap = true;
    const tb::LlmResult ov = tb::LlmTestbench::run(wafer, s);
    tb::LlmTestbench::printReport(std::cout, ov);
    const auto& a = seq.phases.at(0);
    const auto& b = ov.phases.at(0);
    CHECK(b.model_flops == a.model_flops);
    CHECK(b.cycles < 0.9 * a.cycles);
    double ea = 0, eb = 0;
    for (const auto& [k, v] : a.exposed) ea += v;
    for (const auto& [k, v] : b.exposed) eb += v;
    CHECK(eb < 0.7 * ea);
}

TEST_CASE(
    "expert migration simulated: every balancer, 1 to 4 slots and three iterations run to "
    "the end (no part waits for an event nothing raises)",
    "[llm][routing][migration][sim]") {
    const hw::HardwareConfig hwc =
        hw::HardwareLoader::loadFile(src("configs/moentwine_4x4_b200.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    uint32_t runs = 0;
    for (const char* b : {"greedy", "topo", "ni"})
        for (uint32_t slots : {1u, 2u, 4u})
            for (uint32_t it : {1u, 2u, 3u}) {
                tb::LlmSpec s = spec(b, true, 16, 64);
                s.routing.slots = slots;
                s.routing.iteration = it;
                INFO(b << " slots " << slots << " iteration " << it);
                const tb::LlmResult r = tb::LlmTestbench::run(wafer, s);
                CHECK(r.phases.at(0).cycles > 0);
                ++runs;
            }
    CHECK(runs == 27);
}
