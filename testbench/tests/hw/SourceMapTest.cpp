// hw/SourceMap (issue 13): checks made after loading report the key's file:line:column.
#include <catch2/catch.hpp>

#include "hw/HardwareLoader.h"
#include "hw/ScenarioLoader.h"

using namespace wsc;

namespace {
const char* kHw =
    "noc:\n"
    "  clock: 1 GHz\n"
    "  flit_size: 16 B\n"
    "  topology: {mesh: {x: 4, y: 4}}\n"
    "  route_limit: 8\n"
    "  link: {latency: 1 cycle, width: 16 B}\n";
}

TEST_CASE("a loaded hardware config locates its keys after loading", "[hw][source]") {
    const hw::HardwareConfig h = hw::HardwareLoader::loadString(kHw, "h.yaml");
    CHECK(std::string(h.source.error("noc.route_limit", "too small").what()) ==
          "h.yaml:5:16: key 'noc.route_limit': too small");
    // A key the file leaves at its default: the nearest key it gives, and says so.
    CHECK(std::string(h.source.error("noc.router.vcs", "too few").what()) ==
          "h.yaml:2:3: key 'noc.router.vcs': too few (not set: its default applies)");
    CHECK(std::string(h.source.error("noc.topology.mesh.x", "odd").what()) ==
          "h.yaml:4:24: key 'noc.topology.mesh.x': odd");
}

TEST_CASE("an inline scenario hardware map locates keys with its prefix", "[hw][source]") {
    const std::string text = std::string(
                                 "scenario:\n"
                                 "  name: s\n"
                                 "  workload: {type: traffic, pattern: bitrev}\n"
                                 "  hardware:\n") +
                             "    noc:\n"
                             "      clock: 1 GHz\n"
                             "      flit_size: 16 B\n"
                             "      topology: {mesh: {x: 4, y: 4}}\n"
                             "      link: {latency: 1 cycle, width: 16 B}\n";
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadString(text, "s.yaml");
    CHECK(std::string(sc.source.error("noc.link.latency", "slow").what()) ==
          "s.yaml:9:23: key 'scenario.hardware.noc.link.latency': slow");
    CHECK(std::string(sc.workload_source.error("pattern", "no").what()) ==
          "s.yaml:3:38: key 'scenario.workload.pattern': no");
    // A config built in C++ has no positions but still names the key.
    hw::HardwareConfig plain;
    CHECK(std::string(plain.source.error("noc.watchdog", "short").what()) ==
          "(config): key 'noc.watchdog': short");
}
