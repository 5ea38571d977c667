// A 4x4 mesh with some positions RTL (configs/mesh4x4_rtl.yaml, key noc.rtl_routers) runs the
// synthetic traffic testbench and must report exactly what the all-C++ mesh reports for the same
// seed: latency statistics, throughput, hops, link utilisation, energy, occupancy, cycle counts.
#include <catch2/catch.hpp>

#if WSC_WITH_VERILATOR

#include <systemc>

#include "hw/ScenarioLoader.h"
#include "noc/NocShell.h"
#include "testbench/TrafficTestbench.h"

using namespace wsc;

namespace {

void requireSame(const tb::TrafficResult& a, const tb::TrafficResult& b) {
    CHECK(a.offered_actual == b.offered_actual);
    CHECK(a.accepted == b.accepted);
    CHECK(a.measured_packets == b.measured_packets);
    CHECK(a.latency_avg == b.latency_avg);
    CHECK(a.latency_p50 == b.latency_p50);
    CHECK(a.latency_p99 == b.latency_p99);
    CHECK(a.latency_max == b.latency_max);
    CHECK(a.network_latency_avg == b.network_latency_avg);
    CHECK(a.hops_avg == b.hops_avg);
    CHECK(a.zero_load_latency == b.zero_load_latency);
    CHECK(a.link_util_avg == b.link_util_avg);
    CHECK(a.link_util_max == b.link_util_max);
    CHECK(a.link_util_max_name == b.link_util_max_name);
    CHECK(a.drained == b.drained);
    CHECK(a.warmup == b.warmup);
    CHECK(a.measure == b.measure);
    CHECK(a.drain == b.drain);
    CHECK(a.total_cycles == b.total_cycles);
    CHECK(a.flit_router_traversals == b.flit_router_traversals);
    CHECK(a.flits_injected == b.flits_injected);
    CHECK(a.flits_ejected == b.flits_ejected);
    CHECK(a.link_retries == b.link_retries);
    CHECK(a.link_energy_pj == b.link_energy_pj);
    CHECK(a.max_vc_occupancy == b.max_vc_occupancy);
    CHECK(a.conservation_ok == b.conservation_ok);
}

}  // namespace

TEST_CASE("mixed 4x4 mesh (RTL positions from YAML) equals the all-C++ mesh", "[rtl][mesh]") {
    hw::ScenarioConfig sc =
        hw::ScenarioLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/mesh4x4_rtl.yaml");
    REQUIRE(sc.noc.rtl_routers == std::vector<uint32_t>{0, 5, 6, 10, 15});
    noc::NocShell shell("noc", sc.noc.clock_hz);
    noc::NocParams all_cpp = sc.noc;
    all_cpp.rtl_routers.clear();
    // Below, near and past saturation (a 4-flit-packet 4x4 mesh saturates near 0.45).
    for (double rate : {0.1, 0.3, 0.6}) {
        for (uint64_t seed : {1u, 2u}) {
            noc::TrafficParams tp = sc.traffic;
            tp.rate = rate;
            tp.seed = seed;
            tp.drain_cycles = 20000;
            INFO("rate " << rate << " seed " << seed);
            tb::TrafficResult mixed = tb::TrafficTestbench::run(sc.noc, tp, shell);
            tb::TrafficResult ref = tb::TrafficTestbench::run(all_cpp, tp, shell);
            CHECK(ref.flit_router_traversals > 0);
            requireSame(mixed, ref);
        }
    }
}

TEST_CASE("every position RTL: the 4x4 mesh still equals the all-C++ mesh", "[rtl][mesh]") {
    hw::ScenarioConfig sc =
        hw::ScenarioLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/mesh4x4_rtl.yaml");
    noc::NocShell shell("noc", sc.noc.clock_hz);
    noc::NocParams all_rtl = sc.noc, all_cpp = sc.noc;
    all_rtl.rtl_routers.clear();
    for (uint32_t r = 0; r < 16; ++r) all_rtl.rtl_routers.push_back(r);
    all_cpp.rtl_routers.clear();
    noc::TrafficParams tp = sc.traffic;
    tp.pattern = "transpose";
    tp.rate = 0.25;
    requireSame(tb::TrafficTestbench::run(all_rtl, tp, shell),
                tb::TrafficTestbench::run(all_cpp, tp, shell));
}

TEST_CASE("rtl_routers errors for parameters without a variant and for YX routing",
          "[rtl][config]") {
    hw::ScenarioConfig sc =
        hw::ScenarioLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/mesh4x4_rtl.yaml");
    noc::NocShell shell("noc", sc.noc.clock_hz);
    noc::NocParams p = sc.noc;
    p.router.vc_buffer_flits = 7;
    CHECK_THROWS_WITH(tb::TrafficTestbench::run(p, sc.traffic, shell),
                      Catch::Contains("no Verilated router with ports=5 vcs=4 depth=7 pipeline=2"));
    p = sc.noc;
    p.routing = noc::RoutingAlgo::YX;
    CHECK_THROWS_WITH(tb::TrafficTestbench::run(p, sc.traffic, shell),
                      Catch::Contains("XY routing only"));
}

#endif
