// wafer:, hbm: and energy: sections: what they fill in, and that bad input names file, line,
// column and key.
#include <catch2/catch.hpp>

#include "hw/ConfigError.h"
#include "hw/HardwareLoader.h"
#include "noc/Topology.h"

using namespace wsc;

namespace {
const char* kNoc = R"(
noc:
  clock: 1 GHz
  flit_size: 16 B
  link: {latency: 1 cycle, width: 16 B}
  d2d: {bandwidth: 16 GB/s, latency: 10 ns}
)";

std::string thrown(const std::string& yaml) {
    try {
        hw::HardwareLoader::loadString(yaml, "t.yaml");
    } catch (const hw::ConfigError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("wafer: dies x cores per die fill the NoC topology with D2D links between dies") {
    const auto hw = hw::HardwareLoader::loadString(std::string(R"(
wafer:
  dies: {x: 3, y: 2}
  cores_per_die: {x: 4, y: 2}
  die_pitch: 20 mm
  core_pitch: 2 mm
)") + kNoc,
                                                   "t.yaml");
    CHECK(hw.wafer.present);
    CHECK(hw.noc.topology.x == 12);
    CHECK(hw.noc.topology.y == 4);
    CHECK(hw.noc.topology.die_x == 4);
    CHECK(hw.noc.topology.die_y == 2);
    CHECK(hw.noc.topology.die_pitch_mm == Approx(20));
    noc::Topology t(hw.noc.topology);
    CHECK(t.isD2D(t.router(3, 0), noc::Topology::kEast));   // die 0 -> die 1
    CHECK(!t.isD2D(t.router(2, 0), noc::Topology::kEast));  // inside die 0
    CHECK(t.linkLengthMm(t.router(3, 0), noc::Topology::kEast) == Approx(20 - 3 * 2));
}

TEST_CASE("wafer: a die-level wafer is cores_per_die 1 x 1 (the default)") {
    const auto hw = hw::HardwareLoader::loadString(
        std::string("wafer:\n  dies: {x: 4, y: 8}\n") + kNoc, "t.yaml");
    CHECK(hw.noc.topology.x == 4);
    CHECK(hw.noc.topology.y == 8);
    CHECK(hw.noc.topology.die_x == 1);
}

TEST_CASE("wafer: noc.topology beside a wafer section is rejected naming the key") {
    const std::string e = thrown(std::string("wafer:\n  dies: {x: 2, y: 2}\n") + kNoc +
                                 "  topology: {mesh: {x: 2, y: 2}}\n");
    CHECK_THAT(e, Catch::Contains("t.yaml:9:") && Catch::Contains("noc.topology") &&
                      Catch::Contains("wafer"));
}

TEST_CASE("wafer: a die pitch smaller than a die's cores is rejected with the needed span") {
    const std::string e = thrown(std::string(R"(
wafer:
  dies: {x: 2, y: 2}
  cores_per_die: {x: 8, y: 8}
  die_pitch: 10 mm
  core_pitch: 2 mm
)") + kNoc);
    CHECK_THAT(e, Catch::Contains("t.yaml:5:") && Catch::Contains("wafer.die_pitch") &&
                      Catch::Contains("14 mm"));
}

TEST_CASE("hbm: starts from HBM3 defaults, converts times at tCK and keeps energies") {
    const auto hw = hw::HardwareLoader::loadString(std::string(kNoc) + R"(
  topology: {mesh: {x: 2, y: 2}}
hbm:
  stacks: 2
  timing: {tCL: 15 ns, tRC: 80 cycles}
  energy: {read: 5 pJ/bit, write: 7 pJ/bit, activate: 1 nJ}
  bandwidth: 1.5 TB/s
)",
                                                   "t.yaml");
    REQUIRE(hw.hbm);
    const auto def = dram::HbmParams::hbm3Default();
    CHECK(hw.hbm->stacks == 2);
    CHECK(hw.hbm->tCL == 24);  // 15 ns / 0.625 ns
    CHECK(hw.hbm->tRC == 80);
    CHECK(hw.hbm->tRP == def.tRP);
    CHECK(hw.hbm->read_pj_per_bit == Approx(5));
    CHECK(hw.hbm->write_pj_per_bit == Approx(7));
    CHECK(hw.hbm->act_pj == Approx(1000));
    CHECK(hw.hbm->required_bandwidth_gbps == Approx(1500));
}

TEST_CASE("hbm: validate() errors become ConfigErrors at the key they are about") {
    const std::string base = std::string(kNoc) + "  topology: {mesh: {x: 2, y: 2}}\nhbm:\n";
    CHECK_THAT(thrown(base + "  timing: {tRAS: 40 ns, tRC: 30 ns}\n"),
               Catch::Contains("t.yaml:9:") && Catch::Contains("hbm.timing.tRC") &&
                   Catch::Contains("tRAS"));
    CHECK_THAT(thrown(base + "  channels: 12\n"),
               Catch::Contains("hbm.channels") && Catch::Contains("power of two"));
    CHECK_THAT(thrown(base + "  bandwidth: 2 TB/s\n"),
               Catch::Contains("hbm.bandwidth") && Catch::Contains("needs at least 3 stacks"));
    CHECK_THAT(thrown(base + "  capacity: 100 GB\n"), Catch::Contains("hbm.capacity"));
    CHECK_THAT(thrown(base + "  address_mapping: RoRoBaCoBgPc\n"),
               Catch::Contains("hbm.address_mapping"));
    CHECK_THAT(thrown(base + "  energy: {activate: 800}\n"),
               Catch::Contains("hbm.energy.activate") && Catch::Contains("pJ"));
    CHECK_THAT(thrown(base + "  tRC: 3 ns\n"),
               Catch::Contains("unknown") && Catch::Contains("timing"));
}

TEST_CASE("energy: compute from TFLOPS/W or pJ/FLOP, SRAM per byte") {
    const std::string base = std::string(kNoc) + "  topology: {mesh: {x: 2, y: 2}}\nenergy:\n";
    auto hw = hw::HardwareLoader::loadString(base + "  compute: 2 TFLOPS/W\n  sram: 0.5 pJ/B\n",
                                             "t.yaml");
    CHECK(hw.energy.compute_pj_per_flop == Approx(0.5));
    CHECK(hw.energy.sram_pj_per_byte == Approx(0.5));
    hw = hw::HardwareLoader::loadString(base + "  compute: 0.25 pJ/FLOP\n  sram: 0.1 pJ/bit\n",
                                        "t.yaml");
    CHECK(hw.energy.compute_pj_per_flop == Approx(0.25));
    CHECK(hw.energy.sram_pj_per_byte == Approx(0.8));
    CHECK_THAT(thrown(base + "  compute: 2 TFLOPS\n"), Catch::Contains("t.yaml:9:") &&
                                                           Catch::Contains("energy.compute") &&
                                                           Catch::Contains("TFLOPS/W"));
}

namespace {
// 2 x 1 dies of 4 x 2 cores, for the hbm.attach cases.
const char* kTwoDies = R"(
wafer:
  dies: {x: 2, y: 1}
  cores_per_die: {x: 4, y: 2}
  die_pitch: 20 mm
  core_pitch: 2 mm
)";
}  // namespace

TEST_CASE("hbm.attach: edges and positions per stack, the middle by default, round the die") {
    const std::string base = std::string(kTwoDies) + kNoc + "hbm:\n  stacks: 2\n";
    auto hw =
        hw::HardwareLoader::loadString(base + "  attach: [south, {edge: west, at: 1}]\n", "t.yaml");
    REQUIRE(hw.hbm_attach.stacks.size() == 2);
    CHECK(hw.hbm_attach.stacks[0].edge == hw::HbmAttachParams::Edge::South);
    CHECK(hw.hbm_attach.stacks[0].at ==
          std::vector<uint32_t>{1});  // middle of 4 routers along x: (4 - 1) / 2
    CHECK(hw.hbm_attach.stacks[1].edge == hw::HbmAttachParams::Edge::West);
    CHECK(hw.hbm_attach.stacks[1].at == std::vector<uint32_t>{1});
    CHECK(hw.hbm_attach.sync == 2);
    // Without attach: west, east, north, south in turn, each at its edge's middle.
    hw = hw::HardwareLoader::loadString(base + "  sync: 3 cycles\n", "t.yaml");
    REQUIRE(hw.hbm_attach.stacks.size() == 2);
    CHECK(hw.hbm_attach.stacks[0].edge == hw::HbmAttachParams::Edge::West);
    CHECK(hw.hbm_attach.stacks[0].at == std::vector<uint32_t>{0});  // (2 - 1) / 2
    CHECK(hw.hbm_attach.stacks[1].edge == hw::HbmAttachParams::Edge::East);
    CHECK(hw.hbm_attach.sync == 3);
}

TEST_CASE("hbm.attach: a stack across several edge routers, a list of positions or all") {
    const std::string base = std::string(kTwoDies) + kNoc + "hbm:\n  stacks: 2\n";
    const auto hw = hw::HardwareLoader::loadString(
        base + "  attach: [{edge: north, at: [3, 0, 2]}, {edge: west, at: all}]\n", "t.yaml");
    REQUIRE(hw.hbm_attach.stacks.size() == 2);
    CHECK(hw.hbm_attach.stacks[0].edge == hw::HbmAttachParams::Edge::North);
    CHECK(hw.hbm_attach.stacks[0].at == std::vector<uint32_t>{3, 0, 2});  // the file's order
    CHECK(hw.hbm_attach.stacks[1].edge == hw::HbmAttachParams::Edge::West);
    CHECK(hw.hbm_attach.stacks[1].at == std::vector<uint32_t>{0, 1});  // every west router
    // A one-element list is the single-router form.
    const auto one = hw::HardwareLoader::loadString(
        base + "  attach: [{edge: south, at: [1]}, {edge: east, at: 1}]\n", "t.yaml");
    CHECK(one.hbm_attach.stacks[0].at == std::vector<uint32_t>{1});
    CHECK(one.hbm_attach.stacks[1].at == std::vector<uint32_t>{1});
}

TEST_CASE("hbm.attach: bad position lists are rejected with file, line, key and expectation") {
    const std::string base = std::string(kTwoDies) + kNoc + "hbm:\n  stacks: 2\n";
    // Line 15 is the attach line.
    CHECK_THAT(thrown(base + "  attach: [west, {edge: east, at: [0, 2]}]\n"),
               Catch::Contains("t.yaml:15:") && Catch::Contains("hbm.attach[1].at[1]") &&
                   Catch::Contains("along the east edge in [0, 1]") && Catch::Contains("'2'"));
    CHECK_THAT(thrown(base + "  attach: [west, {edge: north, at: [1, 3, 1]}]\n"),
               Catch::Contains("t.yaml:15:") && Catch::Contains("hbm.attach[1].at[2]") &&
                   Catch::Contains("position 1 of the north edge is listed twice"));
    CHECK_THAT(thrown(base + "  attach: [west, {edge: east, at: []}]\n"),
               Catch::Contains("hbm.attach[1].at") && Catch::Contains("non-empty list"));
    CHECK_THAT(thrown(base + "  attach: [west, {edge: east, at: [\"0\"]}]\n"),
               Catch::Contains("hbm.attach[1].at[0]") && Catch::Contains("position along"));
    CHECK_THAT(thrown(base + "  attach: [west, {edge: east, at: [-1]}]\n"),
               Catch::Contains("hbm.attach[1].at[0]") && Catch::Contains("'-1'"));
    CHECK_THAT(thrown(base + "  attach: [west, {edge: east, at: every}]\n"),
               Catch::Contains("hbm.attach[1].at") && Catch::Contains("'every'"));
    CHECK_THAT(thrown(base + "  attach: [west, {edge: east, at: \"all\"}]\n"),
               Catch::Contains("hbm.attach[1].at"));
}

TEST_CASE("hbm.attach: bad entries are rejected with file, line, key and expectation") {
    const std::string base = std::string(kTwoDies) + kNoc + "hbm:\n  stacks: 2\n";
    // Line 15 is the attach line (the kNoc block starts with an empty line).
    CHECK_THAT(thrown(base + "  attach: [west]\n"),
               Catch::Contains("t.yaml:15:") && Catch::Contains("key 'hbm.attach'") &&
                   Catch::Contains("one entry per stack (hbm.stacks = 2), got 1 entry"));
    CHECK_THAT(thrown(base + "  attach: [west, up]\n"),
               Catch::Contains("t.yaml:15:") && Catch::Contains("hbm.attach[1]") &&
                   Catch::Contains("west, east, north or south") && Catch::Contains("'up'"));
    CHECK_THAT(thrown(base + "  attach: [west, {edge: east, at: 2}]\n"),
               Catch::Contains("t.yaml:15:") && Catch::Contains("hbm.attach[1].at") &&
                   Catch::Contains("along the east edge in [0, 1]") && Catch::Contains("'2'"));
    CHECK_THAT(thrown(base + "  attach: [west, {edge: east, pos: 1}]\n"),
               Catch::Contains("hbm.attach[1]") && Catch::Contains("pos"));
    CHECK_THAT(thrown(base + "  attach: west\n"),
               Catch::Contains("key 'hbm.attach'") && Catch::Contains("one entry per stack"));
    CHECK_THAT(thrown(base + "  sync: 100 cycles\n"), Catch::Contains("hbm.sync"));
}

TEST_CASE("noc.d2d.clock: D2D widths and latencies are in D2D cycles, default the NoC clock") {
    const std::string topo = "  topology: {mesh: {x: 2, y: 1}, die: {x: 1, y: 1}}\n";
    const std::string head = R"(
noc:
  clock: 1 GHz
  flit_size: 16 B
  link: {latency: 1 cycle, width: 16 B}
)";
    auto hw = hw::HardwareLoader::loadString(
        head + topo + "  d2d: {bandwidth: 32 GB/s, latency: 10 ns}\n", "t.yaml");
    CHECK(hw.noc.d2d.clock_hz == 0);  // the NoC clock: no crossing
    CHECK(hw.noc.d2d.width_bytes == 32);
    CHECK(hw.noc.d2d.latency == 10);
    hw = hw::HardwareLoader::loadString(
        head + topo +
            "  d2d: {bandwidth: 32 GB/s, latency: 10 ns, clock: 500 MHz, sync: 3 cycles}\n",
        "t.yaml");
    CHECK(hw.noc.d2d.clock_hz == Approx(5e8));
    CHECK(hw.noc.d2d.width_bytes == 64);  // 32 GB/s / 500 MHz
    CHECK(hw.noc.d2d.latency == 5);       // 10 ns at 500 MHz
    CHECK(hw.noc.d2d.sync == 3);
    CHECK(hw.noc.d2d.fec_latency == 105);  // 210 ns at 500 MHz
    CHECK_THAT(thrown(head + topo + "  d2d: {bandwidth: 32 GB/s, latency: 10 ns, clock: 0 GHz}\n"),
               Catch::Contains("t.yaml:7:") && Catch::Contains("noc.d2d.clock"));
    CHECK_THAT(thrown(head + topo + "  d2d: {bandwidth: 32 GB/s, latency: 10 ns, clock: 5}\n"),
               Catch::Contains("noc.d2d.clock"));
}
