// Scenario files: the shipped default scenario, hardware by path or inline, the traffic
// workload's keys, and their errors.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hw/ConfigError.h"
#include "hw/HardwareLoader.h"
#include "hw/ScenarioLoader.h"

using wsc::hw::ConfigError;
using wsc::hw::HardwareLoader;
using wsc::hw::ScenarioConfig;
using wsc::hw::ScenarioLoader;

namespace {

// A scenario named as if it lived in configs/, so that "mesh8x8.yaml" resolves next to it.
std::string configsName() {
    return std::string(WSC_SOURCE_DIR) + "/configs/test-scenario.yaml";
}

std::string scenario(const std::string& workloadLines,
                     const std::string& hardware = "mesh8x8.yaml") {
    return "scenario:\n"  // 1
           "  name: t\n"  // 2
           "  hardware: " +
           hardware +
           "\n"                     // 3
           "  workload:\n"          // 4
           "    type: traffic\n" +  // 5
           workloadLines;           // 6...
}

std::string errorOf(const std::string& text, const std::string& name = "s.yaml") {
    try {
        ScenarioLoader::loadString(text, name);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("Shipped configs/default.yaml loads as a traffic scenario", "[hw][scenario]") {
    const ScenarioConfig s =
        ScenarioLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/default.yaml");
    CHECK(s.name == "default-traffic-8x8");
    CHECK(s.workload_type == "traffic");
    CHECK(s.traffic.pattern == "uniform");
    CHECK(s.traffic.rate == Approx(0.3));
    CHECK(s.traffic.packet_flits == 1);
    CHECK(s.traffic.warmup_cycles == 1000);
    CHECK(s.traffic.measure_cycles == 10000);
    CHECK(s.traffic.drain_cycles == 100000);  // default
    CHECK(s.traffic.seed == 1);
    CHECK(s.noc.topology.x == 8);
    CHECK(s.noc.topology.y == 8);
    CHECK(s.noc.router.vcs == 4);
    CHECK(s.noc.link.energy_pj_per_bit == Approx(0.1));
}

TEST_CASE("Scenario inline hardware equals configs/mesh8x8.yaml", "[hw][scenario]") {
    const auto inl =
        ScenarioLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/default.yaml").noc;
    const auto file =
        HardwareLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/mesh8x8.yaml").noc;
    CHECK(inl.clock_hz == file.clock_hz);
    CHECK(inl.flit_bytes == file.flit_bytes);
    CHECK(inl.topology.x == file.topology.x);
    CHECK(inl.router.vc_buffer_flits == file.router.vc_buffer_flits);
    CHECK(inl.link.width_bytes == file.link.width_bytes);
    CHECK(inl.watchdog_cycles == file.watchdog_cycles);
}

TEST_CASE("Scenario hardware given as a path is resolved next to the scenario file",
          "[hw][scenario]") {
    const ScenarioConfig s = ScenarioLoader::loadString(scenario("    pattern: hotspot\n"
                                                                 "    rate: 1e-1\n"
                                                                 "    packet_size: 64 B\n"
                                                                 "    hotspot_node: 63\n"
                                                                 "    hotspot_fraction: 0.5\n"
                                                                 "    warmup: 1 us\n"
                                                                 "    measure: 5000 cycles\n"
                                                                 "    drain: 0 cycles\n"
                                                                 "    seed: 12345678901\n"),
                                                        configsName());
    CHECK(s.name == "t");
    CHECK(s.noc.topology.x == 8);
    CHECK(s.traffic.pattern == "hotspot");
    CHECK(s.traffic.rate == Approx(0.1));
    CHECK(s.traffic.packet_flits == 4);
    CHECK(s.traffic.hotspot_node == 63);
    CHECK(s.traffic.hotspot_fraction == Approx(0.5));
    CHECK(s.traffic.warmup_cycles == 1000);
    CHECK(s.traffic.measure_cycles == 5000);
    CHECK(s.traffic.drain_cycles == 0);
    CHECK(s.traffic.seed == 12345678901ULL);
}

TEST_CASE("Scenario error: an unknown workload type names the allowed set", "[hw][scenario]") {
    std::string text = scenario("");
    text.replace(text.find("type: traffic"), 13, "type: rtl");
    CHECK(errorOf(text, configsName()) ==
          configsName() +
              ":5:11: key 'scenario.workload.type': expected one "
              "of traffic, gemm, dma_stream, llm, firmware, trace, got "
              "'rtl'");
}

TEST_CASE("Scenario error: unknown workload key and bad workload values", "[hw][scenario]") {
    CHECK(errorOf(scenario("    patern: uniform\n"), configsName()) ==
          configsName() +
              ":6:5: key 'scenario.workload.patern': unknown key (did you mean "
              "'pattern'?); expected one of: type, pattern, rate, packet_size, "
              "hotspot_node, hotspot_fraction, warmup, measure, drain, seed");
    CHECK(errorOf(scenario("    pattern: random\n"), configsName()) ==
          configsName() +
              ":6:14: key 'scenario.workload.pattern': expected one of uniform, "
              "transpose, bitcomp, bitrev, shuffle, tornado, neighbor, hotspot, got "
              "'random'");
    CHECK(errorOf(scenario("    rate: 0\n"), configsName()) ==
          configsName() +
              ":6:11: key 'scenario.workload.rate': expected a rate > 0 and <= 1 "
              "(flits/node/cycle), got '0'");
    CHECK(errorOf(scenario("    rate: 1.5\n"), configsName()) ==
          configsName() +
              ":6:11: key 'scenario.workload.rate': expected a number <= 1, got "
              "'1.5'");
    CHECK(errorOf(scenario("    packet_size: 8 B\n"), configsName()) ==
          configsName() +
              ":6:18: key 'scenario.workload.packet_size': expected at least one "
              "16 B flit, got '8 B' (smaller than a flit)");
    CHECK(errorOf(scenario("    hotspot_node: 64\n"), configsName()) ==
          configsName() +
              ":6:19: key 'scenario.workload.hotspot_node': expected an integer <= "
              "63, got '64'");
    CHECK(errorOf(scenario("    measure: 0 cycles\n"), configsName()) ==
          configsName() +
              ":6:14: key 'scenario.workload.measure': expected a duration >= 1 "
              "cycle, got '0 cycles'");
    CHECK(errorOf(scenario("    warmup: 1000\n"), configsName()) ==
          configsName() +
              ":6:13: key 'scenario.workload.warmup': expected a whole number of "
              "cycles ('3 cycles') or a time (ps, ns, us, ms, s), got '1000' (a unit "
              "is required)");
}

TEST_CASE("Scenario error: missing hardware file is reported where the scenario names it",
          "[hw][scenario]") {
    CHECK(errorOf(scenario("", "nope.yaml"), configsName()) ==
          configsName() + ":3:13: key 'scenario.hardware': cannot load hardware file '" +
              std::string(WSC_SOURCE_DIR) +
              "/configs/nope.yaml': cannot open file: No such file or directory");
}

TEST_CASE("Scenario error: inline hardware errors carry the inline position", "[hw][scenario]") {
    const std::string text =
        "scenario:\n"
        "  name: t\n"
        "  workload: {type: traffic}\n"
        "  hardware:\n"
        "    noc:\n"
        "      clock: 1 GHz\n"
        "      flit_size: 16 B\n"
        "      topology: {mesh: {x: 8, y: 8}}\n"
        "      link: {latency: 1 cycle, width: 0 B}\n";
    CHECK(errorOf(text) ==
          "s.yaml:9:39: key 'scenario.hardware.noc.link.width': expected a size >= 1 B, got "
          "'0 B'");
    CHECK(ScenarioLoader::loadString(
              "scenario:\n  name: t\n  workload: {type: traffic}\n  hardware:\n    noc:\n"
              "      clock: 1 GHz\n      flit_size: 16 B\n      topology: {mesh: {x: 2, y: 2}}\n"
              "      link: {latency: 1 cycle, width: 16 B}\n",
              "s.yaml")
              .noc.topology.x == 2);
}

TEST_CASE("Scenario error: hardware of the wrong kind, missing sections, unknown top level",
          "[hw][scenario]") {
    CHECK(errorOf(scenario("", "[a, b]")) ==
          "s.yaml:3:13: key 'scenario.hardware': expected an inline hardware map (with 'noc:') "
          "or a path to a hardware YAML file, got a sequence");
    CHECK(errorOf("scenario:\n  name: t\n  hardware: mesh8x8.yaml\n", configsName()) ==
          configsName() + ":2:3: key 'scenario.workload': missing required key (expected a map)");
    CHECK(errorOf("senario:\n  name: t\n") ==
          "s.yaml:1:1: key 'senario': unknown key (did you mean 'scenario'?); expected one of: "
          "scenario");
}

TEST_CASE("dma_stream port: attach takes the routers of the hardware's hbm.attach",
          "[hw][scenario][hbm_edge]") {
    const ScenarioConfig s =
        ScenarioLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/hbm_edge.yaml");
    CHECK(s.workload_type == "dma_stream");
    // {edge: west, at: all} on the 8 x 8 die: routers (0, y) = 8 y, in order.
    CHECK(s.dma_stream.attach_routers == std::vector<uint32_t>{0, 8, 16, 24, 32, 40, 48, 56});
    // The single-router form leaves the list empty.
    const ScenarioConfig one =
        ScenarioLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/hbm_stream.yaml");
    CHECK(one.dma_stream.attach_routers.empty());
    CHECK(one.dma_stream.port_y == 1);
}

TEST_CASE("dma_stream port: attach needs an hbm: section, other words are rejected",
          "[hw][scenario][hbm_edge]") {
    const std::string head =
        "scenario:\n  name: t\n  hardware: mesh8x8.yaml\n  workload:\n    type: dma_stream\n";
    CHECK_THAT(errorOf(head + "    port: attach\n", configsName()),
               Catch::Contains("test-scenario.yaml:6:11: key 'scenario.workload.port'") &&
                   Catch::Contains("needs an hbm: section"));
    CHECK_THAT(errorOf(head + "    port: edge\n", configsName()),
               Catch::Contains("key 'scenario.workload.port'") && Catch::Contains("'edge'"));
}
