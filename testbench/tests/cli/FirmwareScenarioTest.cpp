// `workload: {type: firmware}` (testbench/FirmwareTestbench): a hand-written two-core program run
// from a scenario gives the values its init implies and the cycles of the same program loaded
// through the C++ API.
#include <catch2/catch.hpp>
#include <memory>

#include "core/CoreArray.h"
#include "firmware/ProgramText.h"
#include "hw/MemorySystem.h"
#include "hw/ScenarioLoader.h"
#include "noc/Network.h"
#include "noc/NocShell.h"
#include "testbench/FirmwareTestbench.h"

using namespace wsc;

namespace {
// Measured once (both test cases must agree with it, so the scenario path and the API agree).
constexpr uint64_t kCycles = 172;
}  // namespace

TEST_CASE("a firmware scenario runs the user's programs with init and expect", "[cli][firmware]") {
    const std::string dir = std::string(WSC_SOURCE_DIR) + "/configs/";
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(dir + "firmware_two_core.yaml");
    REQUIRE(sc.workload_type == "firmware");
    REQUIRE(sc.firmware.init.size() == 2);
    noc::NocShell shell("noc", sc.noc.clock_hz);
    const tb::FirmwareResult r = tb::FirmwareTestbench::run(sc, shell, nullptr);
    REQUIRE(r.checks.size() == 2);
    CHECK(r.correct());
    CHECK(r.checks[0].compared == 5);
    CHECK(r.checks[1].compared == 1);
    CHECK(r.checks[1].max_abs_error == 0);
    REQUIRE(r.cores.size() == 2);
    CHECK(r.cores[0].stats.bytes_out == 256);
    CHECK(r.cores[1].stats.bytes_in == 256);
    // Core 1 adds what core 0 sends: it cannot finish before core 0's message left.
    CHECK(r.cores[1].stats.finish_cycle > r.cores[0].stats.finish_cycle);

    CHECK(r.cycles == kCycles);
}

// The same programs and values through the C++ API (its own process: SystemC elaborates once).
TEST_CASE("the firmware scenario's programs take the same cycles through the C++ API",
          "[cli][firmware]") {
    const std::string dir = std::string(WSC_SOURCE_DIR) + "/configs/";
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(dir + "firmware_two_core.yaml");
    noc::NocShell shell("noc", sc.noc.clock_hz);
    const firmware::Firmware fw =
        firmware::ProgramText::loadFile(dir + "firmware/two_core_dot.fw", 2);
    hw::MemorySystem mem(sc.core, sc.noc.clock_hz);
    noc::Network net(sc.noc, 1);
    core::CoreArray cores(net, sc.core);
    cores.load(fw);
    mem.attach(cores, shell, true);
    float* x = cores.core(0).buffer("X");
    std::fill(x, x + 64, 1.0f);
    for (int i = 0; i < 4; ++i) x[i] = float(i + 1);
    float* z = cores.core(1).buffer("Z");
    std::fill(z, z + 64, 0.5f);
    const uint64_t last = shell.run(net, cores);
    cores.finish(last);
    CHECK(last + 1 == kCycles);
    CHECK(cores.core(1).buffer("R")[0] == 172.0f);  // 2 (1 + 2 + 3 + 4) + 2 * 60 + 0.5 * 64
}
