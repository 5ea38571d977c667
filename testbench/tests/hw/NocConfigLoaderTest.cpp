// The `noc:` section: the shipped config loads into the expected NocParams, optional keys and
// defaults, and one test per bad-config case checking file, line:column, key and expectation.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "hw/ConfigError.h"
#include "hw/HardwareLoader.h"
#include "hw/NocConfigLoader.h"
#include "noc/Network.h"

using wsc::hw::ConfigError;
using wsc::hw::HardwareLoader;
namespace noc = wsc::noc;

namespace {

// Same content as configs/mesh8x8.yaml without comments, so that line numbers are fixed here, and
// without its `model: delay_line`: the router here is the stage-accurate default.
const char* const kBase =
    "noc:\n"                         // 1
    "  clock: 1 GHz\n"               // 2
    "  flit_size: 16 B\n"            // 3
    "  topology:\n"                  // 4
    "    mesh: {x: 8, y: 8}\n"       // 5
    "    local_ports: 1\n"           // 6
    "  routing: xy\n"                // 7
    "  route_limit: 24\n"            // 8
    "  router:\n"                    // 9
    "    pipeline: 2 cycles\n"       // 10
    "    vcs: 4\n"                   // 11
    "    vc_buffer: 8 flits\n"       // 12
    "  link:\n"                      // 13
    "    latency: 1 cycle\n"         // 14
    "    width: 16 B\n"              // 15
    "    credit_latency: 1 cycle\n"  // 16
    "    energy: 0.1 pJ/bit\n"       // 17
    "  watchdog: 10000 cycles\n";    // 18

std::vector<std::string> baseLines() {
    std::vector<std::string> lines;
    std::istringstream in(kBase);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

// kBase with 1-based line `n` replaced.
std::string withLine(int n, const std::string& text) {
    auto lines = baseLines();
    lines.at(n - 1) = text;
    return join(lines);
}

// kBase with `text` inserted after 1-based line `n`.
std::string insertAfter(int n, const std::string& text) {
    auto lines = baseLines();
    lines.insert(lines.begin() + n, text);
    return join(lines);
}

std::string withoutLine(int n) {
    auto lines = baseLines();
    lines.erase(lines.begin() + (n - 1));
    return join(lines);
}

noc::NocParams load(const std::string& text) {
    return HardwareLoader::loadString(text, "bad.yaml").noc;
}

std::string errorOf(const std::string& text) {
    try {
        load(text);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("Shipped configs/mesh8x8.yaml loads into the expected NocParams", "[hw][noc-config]") {
    const noc::NocParams p =
        HardwareLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/mesh8x8.yaml").noc;
    CHECK(p.clock_hz == 1e9);
    CHECK(p.flit_bytes == 16);
    CHECK(p.routing == noc::RoutingAlgo::XY);
    CHECK(p.route_limit == 24);
    CHECK(p.topology.x == 8);
    CHECK(p.topology.y == 8);
    CHECK(p.topology.die_x == 0);
    CHECK(p.topology.die_y == 0);
    CHECK(p.topology.local_ports == 1);
    CHECK(p.topology.core_pitch_mm == Approx(1.0));
    CHECK(p.topology.die_pitch_mm == Approx(26.0));
    CHECK_FALSE(p.topology.wrap);
    CHECK(p.router.vcs == 4);
    CHECK(p.router.vc_buffer_flits == 8);
    CHECK(p.router.pipeline == 2);
    CHECK(p.link.latency == 1);
    CHECK(p.link.width_bytes == 16);
    CHECK(p.link.credit_latency == 1);
    CHECK(p.link.energy_pj_per_bit == Approx(0.1));
    CHECK(p.local_link.latency == 1);
    CHECK(p.local_link.width_bytes == 16);  // one flit per cycle by default
    CHECK(p.local_link.credit_latency == 1);
    CHECK(p.local_link.energy_pj_per_bit == 0.0);
    CHECK(p.d2d.fec_latency == 210);  // 210 ns at 1 GHz
    CHECK(p.d2d.fec_threshold_mm == Approx(50.0));
    CHECK(p.watchdog_cycles == 10000);
}

TEST_CASE("noc config: every optional key is read and converted at the clock", "[hw][noc-config]") {
    const char* text =
        "noc:\n"
        "  clock: 500 MHz\n"
        "  flit_size: 2 KB\n"
        "  topology:\n"
        "    mesh: {x: 8, y: 4}\n"
        "    die: {x: 4, y: 2}\n"
        "    core_pitch: 2 mm\n"
        "    die_pitch: 30 mm\n"
        "    wrap: true\n"
        "    local_ports: 2\n"
        "  routing: table\n"
        "  route_limit: 1024\n"
        "  router:\n"
        "    pipeline: 4 ns\n"
        "    vcs: 2\n"
        "    vc_buffer: 8 KB\n"
        "  link:\n"
        "    latency: 10 ns\n"
        "    width: 1 KB\n"
        "    credit_latency: 3 cycles\n"
        "    energy: 8 pJ/B\n"
        "  local_link:\n"
        "    latency: 2 cycles\n"
        "    width: 512 B\n"
        "  d2d:\n"
        "    bandwidth: 100 Gb/s\n"
        "    latency: 200 ns\n"
        "    serdes_latency: 5 cycles\n"
        "    fec_threshold: 5 cm\n"
        "    fec_latency: 100 ns\n"
        "    energy: 500 fJ/bit\n"
        "    ber: 1e-12\n"
        "  watchdog: 1 ms\n";
    const noc::NocParams p = load(text);
    CHECK(p.clock_hz == 500e6);
    CHECK(p.flit_bytes == 2048);
    CHECK(p.topology.die_x == 4);
    CHECK(p.topology.die_y == 2);
    CHECK(p.topology.core_pitch_mm == Approx(2.0));
    CHECK(p.topology.die_pitch_mm == Approx(30.0));
    CHECK(p.topology.wrap);
    CHECK(p.topology.local_ports == 2);
    CHECK(p.routing == noc::RoutingAlgo::Table);
    CHECK(p.route_limit == 1024);
    CHECK(p.router.pipeline == 2);
    CHECK(p.router.vcs == 2);
    CHECK(p.router.vc_buffer_flits == 4);
    CHECK(p.link.latency == 5);
    CHECK(p.link.width_bytes == 1024);
    CHECK(p.link.credit_latency == 3);
    CHECK(p.link.energy_pj_per_bit == Approx(1.0));
    CHECK(p.local_link.latency == 2);
    CHECK(p.local_link.width_bytes == 512);
    CHECK(p.local_link.credit_latency == 1);
    CHECK(p.d2d.width_bytes == 25);  // 12.5 GB/s / 0.5 GHz
    CHECK(p.d2d.latency == 100);
    CHECK(p.d2d.serdes_latency == 5);
    CHECK(p.d2d.fec_threshold_mm == Approx(50.0));
    CHECK(p.d2d.fec_latency == 50);
    CHECK(p.d2d.energy_pj_per_bit == Approx(0.5));
    CHECK(p.d2d.ber == Approx(1e-12));
    CHECK(p.watchdog_cycles == 500000);
}

TEST_CASE("noc config: D2D width is bandwidth / clock rounded down", "[hw][noc-config]") {
    const auto d2d = [](const std::string& bw) {
        return insertAfter(6, "    die: {x: 4, y: 4}") + "  d2d:\n    bandwidth: " + bw +
               "\n    latency: 200 ns\n";
    };
    CHECK(load(d2d("16 GB/s")).d2d.width_bytes == 16);
    CHECK(load(d2d("16.9 GB/s")).d2d.width_bytes == 16);
    CHECK(load(d2d("1 GB/s")).d2d.width_bytes == 1);
    CHECK(load(d2d("16 GB/s")).d2d.fec_latency == 210);
    CHECK(errorOf(d2d("0.5 GB/s")) ==
          "bad.yaml:21:16: key 'noc.d2d.bandwidth': expected a bandwidth of at least 1 byte per "
          "cycle (1 GB/s at the 1 GHz clock), got '0.5 GB/s'");
}

TEST_CASE("noc config error: unknown key", "[hw][noc-config]") {
    CHECK(errorOf(withLine(11, "    vc: 4")) ==
          "bad.yaml:11:5: key 'noc.router.vc': unknown key (did you mean 'vcs'?); expected one "
          "of: model, pipeline, vcs, vc_buffer, stages, preset");
    CHECK(errorOf(insertAfter(1, "  hbm: 1")) ==
          "bad.yaml:2:3: key 'noc.hbm': unknown key; expected one of: clock, flit_size, "
          "topology, routing, route_limit, router, link, local_link, d2d, w2w, watchdog, "
          "rtl_routers, "
          "faults, injection, threads");
}

TEST_CASE("noc config error: wrong type, a map where a scalar is expected", "[hw][noc-config]") {
    CHECK(errorOf(withLine(11, "    vcs: {a: 1}")) ==
          "bad.yaml:11:10: key 'noc.router.vcs': expected an integer between 1 and 16, got a "
          "map");
    CHECK(errorOf(withLine(2, "  clock: [1, GHz]")) ==
          "bad.yaml:2:10: key 'noc.clock': expected a frequency with a unit (Hz, kHz, MHz, GHz), "
          "got a sequence");
}

TEST_CASE("noc config error: wrong type, a string where an integer is expected",
          "[hw][noc-config]") {
    CHECK(errorOf(withLine(11, "    vcs: four")) ==
          "bad.yaml:11:10: key 'noc.router.vcs': expected an integer between 1 and 16, got "
          "'four'");
    CHECK(errorOf(withLine(11, "    vcs: \"4\"")) ==
          "bad.yaml:11:10: key 'noc.router.vcs': expected an integer between 1 and 16, got the "
          "quoted string \"4\"");
    CHECK(errorOf(withLine(11, "    vcs: 0")) ==
          "bad.yaml:11:10: key 'noc.router.vcs': expected an integer >= 1, got '0'");
}

TEST_CASE("noc config error: a map where a section is expected is a scalar", "[hw][noc-config]") {
    CHECK(errorOf(withLine(5, "    mesh: 8")) ==
          "bad.yaml:5:11: key 'noc.topology.mesh': expected a map, got '8'");
}

TEST_CASE("noc config error: zero-size mesh", "[hw][noc-config]") {
    CHECK(errorOf(withLine(5, "    mesh: {x: 0, y: 8}")) ==
          "bad.yaml:5:15: key 'noc.topology.mesh.x': expected an integer >= 1, got '0'");
    CHECK(errorOf(withLine(5, "    mesh: {x: 8}")) ==
          "bad.yaml:5:11: key 'noc.topology.mesh.y': missing required key (expected an integer "
          "between 1 and 65535)");
}

TEST_CASE("noc config error: zero link width", "[hw][noc-config]") {
    CHECK(errorOf(withLine(15, "    width: 0 B")) ==
          "bad.yaml:15:12: key 'noc.link.width': expected a size >= 1 B, got '0 B'");
    CHECK(errorOf(withLine(15, "    width: 0.5 B")) ==
          "bad.yaml:15:12: key 'noc.link.width': expected a whole number of bytes, got '0.5 B'");
}

TEST_CASE("noc config error: buffer smaller than a flit", "[hw][noc-config]") {
    CHECK(errorOf(withLine(12, "    vc_buffer: 8 B")) ==
          "bad.yaml:12:16: key 'noc.router.vc_buffer': expected at least one 16 B flit, got "
          "'8 B' (smaller than a flit)");
    CHECK(errorOf(withLine(12, "    vc_buffer: 0 flits")) ==
          "bad.yaml:12:16: key 'noc.router.vc_buffer': expected at least one 16 B flit, got "
          "'0 flits' (smaller than a flit)");
    CHECK(errorOf(withLine(12, "    vc_buffer: 256 flits")) ==
          "bad.yaml:12:16: key 'noc.router.vc_buffer': expected at most 255 flits, got "
          "'256 flits'");
}

TEST_CASE("noc config error: negative or zero latency", "[hw][noc-config]") {
    CHECK(errorOf(withLine(14, "    latency: -1 cycle")) ==
          "bad.yaml:14:14: key 'noc.link.latency': expected a whole number of cycles "
          "('3 cycles') or a time (ps, ns, us, ms, s), got '-1 cycle' (negative values are not "
          "allowed)");
    CHECK(errorOf(withLine(14, "    latency: -2 ns")) ==
          "bad.yaml:14:14: key 'noc.link.latency': expected a whole number of cycles "
          "('3 cycles') or a time (ps, ns, us, ms, s), got '-2 ns' (negative values are not "
          "allowed)");
    CHECK(errorOf(withLine(14, "    latency: 0 cycles")) ==
          "bad.yaml:14:14: key 'noc.link.latency': expected a duration >= 1 cycle, got "
          "'0 cycles'");
    CHECK(errorOf(withLine(16, "    credit_latency: 0 ns")) ==
          "bad.yaml:16:21: key 'noc.link.credit_latency': expected a duration >= 1 cycle, got "
          "'0 ns'");
    CHECK(errorOf(withLine(10, "    pipeline: 5 cycles")) ==
          "bad.yaml:10:15: key 'noc.router.pipeline': expected a duration <= 4 cycles, got "
          "'5 cycles'");
}

TEST_CASE("noc config error: bare number where a unit is needed", "[hw][noc-config]") {
    CHECK(errorOf(withLine(15, "    width: 16")) ==
          "bad.yaml:15:12: key 'noc.link.width': expected a size with a unit (B, KB, MB, GB, TB, "
          "KiB, MiB, GiB, TiB), got '16' (a unit is required)");
    CHECK(errorOf(withLine(2, "  clock: 1000000000")) ==
          "bad.yaml:2:10: key 'noc.clock': expected a frequency with a unit (Hz, kHz, MHz, GHz), "
          "got '1000000000' (a unit is required)");
    CHECK(errorOf(withLine(14, "    latency: 1")) ==
          "bad.yaml:14:14: key 'noc.link.latency': expected a whole number of cycles "
          "('3 cycles') or a time (ps, ns, us, ms, s), got '1' (a unit is required)");
}

TEST_CASE("noc config error: die not dividing the mesh", "[hw][noc-config]") {
    CHECK(errorOf(insertAfter(6, "    die: {x: 3, y: 4}")) ==
          "bad.yaml:7:14: key 'noc.topology.die.x': expected a divisor of the mesh width 8 "
          "(routers per die along x), got '3'");
    CHECK(errorOf(insertAfter(6, "    die: {x: 4, y: 16}")) ==
          "bad.yaml:7:20: key 'noc.topology.die.y': expected a divisor of the mesh height 8 "
          "(routers per die along y), got '16'");
}

TEST_CASE("noc config error: several dies without a d2d section", "[hw][noc-config]") {
    CHECK(errorOf(insertAfter(6, "    die: {x: 4, y: 4}")) ==
          "bad.yaml:2:3: key 'noc.d2d': missing required key: the topology has die-to-die links "
          "(more than one die), which need d2d.bandwidth and d2d.latency");
    // A single die covering the whole mesh has no D2D links.
    CHECK(load(insertAfter(6, "    die: {x: 8, y: 8}")).topology.die_x == 8);
}

TEST_CASE("noc config error: dies that do not fit their pitch", "[hw][noc-config]") {
    CHECK(errorOf(insertAfter(6, "    die: {x: 4, y: 4}\n    die_pitch: 3 mm")) ==
          "bad.yaml:8:16: key 'noc.topology.die_pitch': expected a die pitch > 3 mm (3 core "
          "pitches of 1 mm: the span of a die's routers), got '3 mm'");
}

TEST_CASE("noc config error: torus with a single virtual channel", "[hw][noc-config]") {
    std::string torus = insertAfter(6, "    wrap: true");
    torus.replace(torus.find("    vcs: 4"), 10, "    vcs: 1");
    torus += "  d2d: {bandwidth: 16 GB/s, latency: 200 ns}\n";
    CHECK(errorOf(torus) ==
          "bad.yaml:12:10: key 'noc.router.vcs': expected at least 2 virtual channels when "
          "topology.wrap is true (a torus needs two VC classes for the dateline), got '1'");
}

TEST_CASE("noc config error: flit size and clock out of range", "[hw][noc-config]") {
    CHECK(errorOf(withLine(3, "  flit_size: 128 KB")) ==
          "bad.yaml:3:14: key 'noc.flit_size': expected a size <= 64 KB, got '128 KB'");
    CHECK(errorOf(withLine(3, "  flit_size: 32 b")) ==
          "bad.yaml:3:14: key 'noc.flit_size': expected a size with a unit (B, KB, MB, GB, TB, "
          "KiB, MiB, GiB, TiB), got '32 b' (bits are not a size; use bytes (B))");
    CHECK(errorOf(withLine(2, "  clock: 0 GHz")) ==
          "bad.yaml:2:10: key 'noc.clock': expected a frequency between 1 MHz and 1000 GHz, got "
          "'0 GHz'");
    // Issue 13: a 1 Hz NoC made nanosecond defaults whole seconds and never finished.
    CHECK(errorOf(withLine(2, "  clock: 1 Hz")) ==
          "bad.yaml:2:10: key 'noc.clock': expected a frequency between 1 MHz and 1000 GHz, got "
          "'1 Hz'");
}

TEST_CASE("noc config error: missing required link key points at the link map",
          "[hw][noc-config]") {
    CHECK(errorOf(withoutLine(15)) ==
          "bad.yaml:14:5: key 'noc.link.width': missing required key (expected a size with a "
          "unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB))");
}

TEST_CASE("noc config error: malformed YAML syntax", "[hw][noc-config]") {
    CHECK(errorOf(withLine(11, "   vcs: 4")) ==
          "bad.yaml:11:4: invalid YAML syntax: end of map not found");
    CHECK(errorOf(withLine(5, "    mesh: {x: 8, y: 8")) ==
          "bad.yaml:6:16: invalid YAML syntax: end of map flow not found");
}

TEST_CASE("noc config error: missing hardware file", "[hw][noc-config]") {
    try {
        HardwareLoader::loadFile("configs/does-not-exist.yaml");
        FAIL("no error");
    } catch (const ConfigError& e) {
        CHECK(std::string(e.what()) ==
              "configs/does-not-exist.yaml: cannot open file: No such file or directory");
    }
}

TEST_CASE("hardware file: unknown top-level section is rejected", "[hw][noc-config]") {
    CHECK(errorOf(std::string(kBase) + "dram:\n  stacks: 4\n") ==
          "bad.yaml:19:1: key 'dram': unknown key; expected one of: noc, core, wafer, hbm, energy");
    CHECK(errorOf("# nothing\nfoo: 1\nnoc: {}\n").find("key 'foo': unknown key") !=
          std::string::npos);
}

TEST_CASE("noc injection: fifo by default, interleave on request, anything else named",
          "[hw][noc-config]") {
    CHECK_FALSE(load(insertAfter(1, "  injection: fifo")).interleave_injection);
    CHECK(load(insertAfter(1, "  injection: interleave")).interleave_injection);
    CHECK_THAT(errorOf(insertAfter(1, "  injection: round")),
               Catch::Contains("bad.yaml:2:") && Catch::Contains("noc.injection") &&
                   Catch::Contains("interleave"));
}

TEST_CASE("several wafers: links between them take the w2w section, the others d2d",
          "[hw][noc-config]") {
    // Two wafers of 2 x 2 dies side by side (die level): 4 x 2 routers; the links between x = 1
    // and x = 2 cross the wafer border.
    const std::string yaml =
        "wafer:\n"
        "  dies: {x: 2, y: 2}\n"
        "  wafers: {x: 2, y: 1}\n"
        "  die_pitch: 30 mm\n"
        "noc:\n"
        "  clock: 1 GHz\n"
        "  flit_size: 16 B\n"
        "  link: {latency: 1 cycle, width: 16 B}\n"
        "  d2d: {bandwidth: 16 GB/s, latency: 20 ns}\n"
        "  w2w: {bandwidth: 8 GB/s, latency: 50 ns, energy: 2 pJ/bit}\n";
    const auto hw = HardwareLoader::loadString(yaml, "two_wafers.yaml");
    CHECK(hw.wafer.dies_x == 4);
    CHECK(hw.wafer.wafers_x == 2);
    CHECK(hw.noc.topology.wafer_x == 2);
    CHECK(hw.noc.w2w.latency == 50);
    CHECK(hw.noc.w2w.width_bytes == 8);
    CHECK(hw.noc.w2w.energy_pj_per_bit == Approx(2.0));
    noc::Network net(hw.noc);
    uint32_t w2w = 0, d2d = 0;
    for (const auto& l : net.links()) {
        if (l.kind() != noc::Link::Kind::D2D) continue;
        const uint32_t xs = net.topology().x(l.src), xd = net.topology().x(l.dst);
        const bool crosses = (xs < 2) != (xd < 2);
        CHECK(l.spec().latency == (crosses ? 50u : 20u));
        CHECK(l.spec().width_bytes == (crosses ? 8u : 16u));
        (crosses ? w2w : d2d)++;
    }
    CHECK(w2w == 2 * 2);          // 2 rows, both directions
    CHECK(d2d == 2 * 4 + 2 * 4);  // per wafer: 2 horizontal + 2 vertical links, both directions
    // The w2w section is required with several wafers and refused with one.
    auto err = [](const std::string& text) {
        try {
            HardwareLoader::loadString(text, "w.yaml");
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    std::string no_w2w = yaml.substr(0, yaml.find("  w2w:"));
    CHECK_THAT(err(no_w2w), Catch::Contains("w2w") && Catch::Contains("wafer.wafers"));
    std::string one = yaml;
    one.replace(one.find("  wafers: {x: 2, y: 1}\n"), 23, "");
    CHECK_THAT(err(one), Catch::Contains("w2w") && Catch::Contains("more than one wafer"));
}

TEST_CASE("noc config: router presets and stage maps select the stage-accurate router",
          "[hw][noc-config][stages]") {
    struct Case {
        const char* preset;
        uint32_t rc, va, sa, st;
    };
    // In the order of their cycles per hop, which is what `pipeline: N cycles` names.
    const Case presets[] = {{"single_cycle", 0, 0, 0, 0},
                            {"one_stage", 0, 0, 1, 0},
                            {"lookahead", 0, 0, 1, 1},
                            {"speculative", 1, 0, 1, 1},
                            {"four_stage", 1, 1, 1, 1}};
    for (uint32_t n = 0; n < 5; ++n) {
        const Case c = presets[n];
        INFO(c.preset);
        const auto by_name = load(withLine(10, std::string("    preset: ") + c.preset));
        const auto by_cycles = load(withLine(10, fmt::format("    pipeline: {} cycles", n)));
        for (const auto& p : {by_name, by_cycles}) {
            CHECK(p.router.staged);
            CHECK(p.router.stages.rc == c.rc);
            CHECK(p.router.stages.va == c.va);
            CHECK(p.router.stages.sa == c.sa);
            CHECK(p.router.stages.st == c.st);
            CHECK(p.router.hopCycles() == n);
        }
        // model: delay_line keeps the delay line of the same length.
        const auto d =
            load(withLine(10, fmt::format("    model: delay_line\n    pipeline: {} cycles", n)));
        CHECK_FALSE(d.router.staged);
        CHECK(d.router.pipeline == n);
        CHECK(d.router.hopCycles() == n);
    }
    const auto m =
        load(withLine(10, "    stages: {rc: 2 cycles, va: 0 cycles, sa: 1 cycle, st: 3 cycles}"));
    CHECK(m.router.staged);
    CHECK(m.router.hopCycles() == 6);
    // kBase's `pipeline: 2 cycles` under the default model, and no router map at all: lookahead.
    CHECK(load(kBase).router.staged);
    CHECK(load(kBase).router.stages.rc == 0);
    CHECK(load(kBase).router.stages.sa == 1);
    CHECK(load(kBase).router.hopCycles() == 2);
    std::string bare = kBase;
    bare.erase(bare.find("  router:\n"), bare.find("  link:\n") - bare.find("  router:\n"));
    CHECK(load(bare).router.staged);
    CHECK(load(bare).router.hopCycles() == 2);
    CHECK(load(bare).router.stages.st == 1);
}

TEST_CASE(
    "noc config: pipeline with stages, an unknown preset or model and RTL routers with the staged "
    "router are refused",
    "[hw][noc-config][stages]") {
    CHECK_THAT(errorOf(insertAfter(10, "    preset: four_stage")),
               Catch::Contains("bad.yaml:11:") &&
                   Catch::Contains("only one of pipeline (shorthand for the preset with that "
                                   "many cycles per hop), preset and stages"));
    CHECK_THAT(errorOf(withLine(10, "    model: delay_line\n    preset: four_stage")),
               Catch::Contains("key 'noc.router.preset'") &&
                   Catch::Contains("no stages or preset with model: delay_line"));
    CHECK_THAT(
        errorOf(withLine(10, "    model: delay_lines")),
        Catch::Contains("key 'noc.router.model'") && Catch::Contains("one of staged, delay_line"));
    CHECK_THAT(
        errorOf(withLine(10, "    preset: five_stage")),
        Catch::Contains("key 'noc.router.preset'") &&
            Catch::Contains("one of single_cycle, one_stage, lookahead, speculative, four_stage"));
    CHECK_THAT(errorOf(withLine(10, "    stages: {rc: 5 cycles}")),
               Catch::Contains("noc.router.stages.rc"));
    CHECK_THAT(errorOf(withLine(10, "    stages: {rc: 1 cycle, vc: 1 cycle}")),
               Catch::Contains("noc.router.stages.vc"));
    CHECK_THAT(errorOf(withLine(10, "    preset: lookahead") + "  rtl_routers: [3]\n"),
               Catch::Contains("no RTL routers unless router.model is delay_line"));
    CHECK_THAT(errorOf(kBase + std::string("  rtl_routers: [3]\n")),
               Catch::Contains("no RTL routers unless router.model is delay_line"));
}
