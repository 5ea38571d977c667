// testbench/ResourceEstimate (issue 13): the memory estimate made before elaboration is close to
// what building the network, the cores and the memory ports really allocates.
#include <catch2/catch.hpp>
#include <memory>

#include "core/CoreArray.h"
#include "hw/MemorySystem.h"
#include "hw/ScenarioLoader.h"
#include "noc/Network.h"
#include "testbench/LinkRecorder.h"
#include "testbench/Preflight.h"
#include "testbench/ResourceEstimate.h"

using namespace wsc;
using tb::ResourceEstimate;

namespace {
hw::ScenarioConfig scenario(const std::string& work, uint32_t side, const std::string& extra = "") {
    return hw::ScenarioLoader::loadString(
        "scenario:\n  name: e\n  workload: " + work +
            "\n  hardware:\n    noc:\n      clock: 1 GHz\n      flit_size: 16 B\n"
            "      topology: {mesh: {x: " +
            std::to_string(side) + ", y: " + std::to_string(side) +
            "}}\n      router: {vcs: 4, vc_buffer: 8 flits}\n"
            "      link: {latency: 1 cycle, width: 16 B}\n" +
            extra,
        "e.yaml");
}
const std::string kTraffic = "{type: traffic}";
const std::string kGemm = "{type: gemm, m: 64, k: 64, n: 64, mesh: 2}";
}  // namespace

TEST_CASE("the network estimate matches what a 48x48 network allocates", "[estimate]") {
    const hw::ScenarioConfig sc = scenario(kTraffic, 48);
    const ResourceEstimate e = ResourceEstimate::of(sc);
    const uint64_t h0 = ResourceEstimate::heapBytes();
    auto net = std::make_unique<noc::Network>(sc.noc, 1);
    const uint64_t built = ResourceEstimate::heapSince(h0);
    INFO("estimate " << e.network << " B, built " << built << " B");
    CHECK(e.routers == 48 * 48);
    CHECK(e.per_router > 0);
    CHECK(double(e.network) == Approx(double(built)).epsilon(0.10));
}

TEST_CASE("the link-record estimate matches a traffic run's three phases", "[estimate]") {
    const hw::ScenarioConfig sc = scenario(kTraffic, 40);
    const ResourceEstimate e = ResourceEstimate::of(sc);
    noc::Network net(sc.noc, 1);
    const uint64_t h0 = ResourceEstimate::heapBytes();
    tb::LinkRecorder rec({{"warm-up", 0}, {"measure", 10}, {"drain", 20}});
    rec.attach(net, nullptr);
    for (uint64_t c : {0, 10, 20}) rec.beforeStep(c);
    rec.finish(30);
    const uint64_t built = ResourceEstimate::heapSince(h0);
    INFO("estimate " << e.records << " B, built " << built << " B");
    CHECK(e.records > 0);
    CHECK(double(e.records) == Approx(double(built)).epsilon(0.10));
}

TEST_CASE("the core estimate matches what a 32x32 core array allocates", "[estimate]") {
    const hw::ScenarioConfig sc = scenario(kGemm, 32);
    const ResourceEstimate e = ResourceEstimate::of(sc);
    auto net = std::make_unique<noc::Network>(sc.noc, 1);
    const uint64_t h0 = ResourceEstimate::heapBytes();
    auto cores = std::make_unique<core::CoreArray>(*net, sc.core);
    const uint64_t built = ResourceEstimate::heapSince(h0);
    INFO("estimate " << e.cores << " B, built " << built << " B");
    CHECK(e.nodes == 32 * 32);
    CHECK(e.per_core > 0);
    CHECK(double(e.cores) == Approx(double(built)).epsilon(0.10));
}

TEST_CASE("a simple memory port costs what the estimate's constant says", "[estimate]") {
    // SystemC modules: measured here (the estimate cannot build them), 64 ports beyond the first.
    core::CoreParams cp;
    cp.memory.ports = 1;
    const uint64_t h0 = ResourceEstimate::heapBytes();
    hw::MemorySystem one(cp, 1e9);
    const uint64_t first = ResourceEstimate::heapSince(h0);
    cp.memory.ports = 65;
    const uint64_t h1 = ResourceEstimate::heapBytes();
    hw::MemorySystem many(cp, 1e9);
    const double per_port = double(ResourceEstimate::heapSince(h1) - first) / 64;
    INFO("a port costs " << per_port << " B; the estimate uses "
                         << ResourceEstimate::kSimplePortBytes);
    CHECK(double(ResourceEstimate::kSimplePortBytes) == Approx(per_port).epsilon(0.15));
}

TEST_CASE("an HBM stack costs the estimate's fixed and per-pseudo-channel constants",
          "[estimate]") {
    core::CoreParams cp;
    cp.memory.ports = 4;
    for (uint32_t channels : {16u, 4u}) {
        dram::HbmParams h = dram::HbmParams::hbm3Default();
        h.channels = channels;
        const uint64_t h0 = ResourceEstimate::heapBytes();
        hw::MemorySystem stacks(cp, 1e9, hw::MemoryTarget::Hbm, h);
        const double per_stack = double(ResourceEstimate::heapSince(h0)) / 4;
        INFO(channels << " channels: " << per_stack << " B per stack; the estimate uses "
                      << ResourceEstimate::hbmStackBytes(h));
        CHECK(double(ResourceEstimate::hbmStackBytes(h)) == Approx(per_stack).epsilon(0.15));
    }
}

TEST_CASE("memory ports and the operands they hold are counted per port", "[estimate]") {
    // A functional GEMM writes A and B (and reads back C) at every port: 64x64x64 fp32 on a 2x2
    // core mesh is 3 x 16 KB per port.
    hw::ScenarioConfig sc = scenario("{type: gemm, m: 64, k: 64, n: 64, mesh: 2, functional: true}",
                                     2, "    core: {memory: {ports: 4}}\n");
    tb::ResourceEstimate e = tb::Preflight::check(sc);
    CHECK(e.ports == 4);
    CHECK(e.per_port == ResourceEstimate::kSimplePortBytes);
    CHECK(e.memory == 4 * (ResourceEstimate::kSimplePortBytes + 3 * 64 * 64 * 4));
    CHECK(e.firmware > 0);
}

TEST_CASE("faults add the quadratic routing tables to the estimate", "[estimate]") {
    hw::ScenarioConfig sc = scenario(kTraffic, 16);
    const uint64_t base = ResourceEstimate::of(sc).routing;
    sc.noc.faults.routers = {5};
    CHECK(base == 0);
    CHECK(ResourceEstimate::of(sc).routing == 3ull * 256 * 256);
}

TEST_CASE("a refusal points at the key of the largest term", "[estimate]") {
    const hw::ScenarioConfig sc = scenario(kTraffic, 4096);
    const ResourceEstimate e = ResourceEstimate::of(sc);
    CHECK(e.dominantKey(sc) == "noc.topology");
    const std::string m = ResourceEstimate::exceeds(e, 1 << 20, "allowed by --max-memory");
    CHECK_THAT(m, Catch::Contains("network") && Catch::Contains("16777216 routers") &&
                      Catch::Contains("more than the 1.0 MB allowed by --max-memory"));
    try {
        ResourceEstimate::enforce(e, sc, 1 << 20, "allowed by --max-memory");
        FAIL("not refused");
    } catch (const hw::ConfigError& err) {
        CHECK_THAT(err.what(), Catch::StartsWith("e.yaml:") &&
                                   Catch::Contains("key 'scenario.hardware.noc.topology'"));
    }
    CHECK(ResourceEstimate::exceeds(e, 0, "").empty());  // 0 = no limit
    hw::ScenarioConfig ports = scenario(kGemm, 256, "    core: {memory: {ports: 65536}}\n");
    CHECK(ResourceEstimate::of(ports).dominantKey(ports) == "core.memory.ports");
}
