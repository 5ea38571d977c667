// --set KEY.PATH=VALUE (hw/ConfigOverrides): an override reaches the typed config with the same
// units and checks as the file, and every error about it names the flag, not a file position.
#include <catch2/catch.hpp>
#include <functional>

#include "hw/ConfigOverrides.h"
#include "hw/HardwareLoader.h"
#include "hw/ScenarioLoader.h"
#include "hw/YamlReader.h"

using namespace wsc::hw;

namespace {

const std::string kMesh = std::string(WSC_SOURCE_DIR) + "/configs/mesh8x8.yaml";

HardwareConfig loadWith(const std::vector<std::string>& sets) {
    return HardwareLoader::loadFile(kMesh, ConfigOverrides(sets));
}

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("a --set override changes a key with its unit and adds a key the file leaves out",
          "[hw][overrides]") {
    const HardwareConfig base = HardwareLoader::loadFile(kMesh);
    REQUIRE(base.noc.router.vcs == 4);
    REQUIRE(base.noc.router.pipeline == 2);

    const HardwareConfig h = loadWith({"noc.router.vcs=2", "noc.router.pipeline=3 cycles",
                                       "noc.clock=2 GHz", "noc.router.vcs=3"});
    CHECK(h.noc.router.vcs == 3);  // the later assignment of the same key wins
    CHECK(h.noc.router.pipeline == 3);
    CHECK_FALSE(h.noc.router.staged);  // the file's model: delay_line stays
    CHECK(h.noc.clock_hz == Approx(2e9));
    CHECK(h.noc.router.vc_buffer_flits == base.noc.router.vc_buffer_flits);  // untouched keys stay

    // A whole map as a YAML value, and a section the file does not have (created on the way).
    const HardwareConfig m =
        loadWith({"noc.router={pipeline: 1 cycle, vcs: 2, vc_buffer: 4 flits}"});
    CHECK(m.noc.router.staged);  // the new map has no model: the one_stage preset
    CHECK(m.noc.router.hopCycles() == 1);
    CHECK(m.noc.router.vc_buffer_flits == 4);
    const HardwareConfig c = loadWith({"core.sram.capacity=64 KB"});
    CHECK(c.core.sram.capacity_bytes == 64 * 1024);
}

TEST_CASE("errors about an overridden key name the --set flag", "[hw][overrides]") {
    CHECK(errorOf([] { loadWith({"noc.router.vcs=0"}); }) ==
          "--set noc.router.vcs=0: key 'noc.router.vcs': expected an integer >= 1, got '0'");
    CHECK(errorOf([] {
              loadWith({"noc.router.pipeline=2"});
          }).rfind("--set noc.router.pipeline=2: key 'noc.router.pipeline': expected", 0) == 0);
    CHECK(errorOf([] { loadWith({"noc.router.vcz=2"}); }) ==
          "--set noc.router.vcz=2: key 'noc.router.vcz': unknown key (did you mean 'vcs'?); "
          "expected one of: model, pipeline, vcs, vc_buffer, stages, preset");
    // An unknown section the flag created is the flag's mistake too.
    CHECK(errorOf([] {
              loadWith({"nocc.router.vcs=2"});
          }).rfind("--set nocc.router.vcs=2: key 'nocc'", 0) == 0);
    CHECK(errorOf([] { loadWith({"noc.router"}); }) ==
          "--set noc.router: expected KEY.PATH=VALUE (e.g. noc.router.pipeline=2), got no '='");
    CHECK(errorOf([] { loadWith({"noc..vcs=1"}); }).find("expected a key path of map keys") !=
          std::string::npos);
    CHECK(errorOf([] { loadWith({"noc.router.vcs="}); }) ==
          "--set noc.router.vcs=: key 'noc.router.vcs': expected a value after '=', got an empty "
          "value");
    CHECK(errorOf([] { loadWith({"noc.clock.x=1"}); })
              .find("--set noc.clock.x=1: key 'noc.clock.x': expected a key inside a map, but "
                    "'noc.clock' in") == 0);
    CHECK(errorOf([] {
              loadWith({"noc.router.vcs=[1"});
          }).rfind("--set noc.router.vcs=[1: key 'noc.router.vcs': expected a YAML value", 0) == 0);
    // Keys the flag did not touch keep their file positions.
    CHECK(errorOf([] {
              loadWith({"noc.topology.mesh.x=3", "noc.routing=torus_dor"});
          }).rfind("--set noc.routing=torus_dor", 0) == 0);
}

TEST_CASE("a scenario passes scenario.hardware overrides on to the hardware file it names",
          "[hw][overrides]") {
    const std::string sc = std::string(WSC_SOURCE_DIR) + "/configs/llm_llama2_7b_train.yaml";
    const ScenarioConfig base = ScenarioLoader::loadFile(sc);
    const ScenarioConfig s = ScenarioLoader::loadFile(
        sc, ConfigOverrides({"scenario.hardware.noc.router.vcs=3", "scenario.name=renamed"}));
    CHECK(base.noc.router.vcs != 3);
    CHECK(s.noc.router.vcs == 3);
    CHECK(s.name == "renamed");
    CHECK(errorOf([&] {
              ScenarioLoader::loadFile(sc, ConfigOverrides({"scenario.hardware.noc.router.vcs=0"}));
          }) ==
          "--set scenario.hardware.noc.router.vcs=0: key 'noc.router.vcs': expected an "
          "integer >= 1, got '0'");

    // Inline hardware: the same key paths, applied to the scenario document itself.
    const std::string inline_sc = R"(scenario:
  name: t
  hardware:
    noc:
      clock: 1 GHz
      flit_size: 16 B
      topology: {mesh: {x: 2, y: 2}}
      link: {latency: 1 cycle, width: 16 B}
  workload: {type: traffic, rate: 0.1}
)";
    const ScenarioConfig i = ScenarioLoader::loadString(
        inline_sc, "t.yaml",
        ConfigOverrides({"scenario.hardware.noc.topology.mesh.x=4", "scenario.workload.rate=0.2"}));
    CHECK(i.noc.topology.x == 4);
    CHECK(i.traffic.rate == Approx(0.2));
    CHECK(errorOf([&] {
              ScenarioLoader::loadString(inline_sc, "t.yaml",
                                         ConfigOverrides({"scenario.workload.rate=2"}));
          }) ==
          "--set scenario.workload.rate=2: key 'scenario.workload.rate': expected a number "
          "<= 1, got '2'");
}
