#include "hw/ScenarioLoader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "hw/DmaStreamLoader.h"
#include "hw/FirmwareWorkloadLoader.h"
#include "hw/HardwareLoader.h"
#include "hw/InputLimits.h"
#include "hw/LlmWorkloadLoader.h"

namespace wsc::hw {

ScenarioConfig ScenarioLoader::loadFile(const std::string& path, const ConfigOverrides& ov) {
    return load(YamlReader::loadFile(path), ov);
}

ScenarioConfig ScenarioLoader::loadString(const std::string& text, const std::string& name,
                                          const ConfigOverrides& ov) {
    return load(YamlReader::loadString(text, name), ov);
}

ScenarioConfig ScenarioLoader::load(const YamlReader& root, const ConfigOverrides& ov) {
    // Overrides outside scenario.hardware first: one of them may replace the hardware path.
    ov.outside("scenario.hardware").applyTo(root);
    const bool included = !ov.empty() && hardwareFile(root).has_value();
    if (!included) ov.applyTo(root);  // all of them, in order, on the inline hardware too
    root.checkKeys({"scenario"});
    const YamlReader sc = root.child("scenario");
    sc.checkKeys({"name", "hardware", "workload"});
    ScenarioConfig cfg;
    cfg.name = sc.getString("name");
    if (cfg.name.empty()) sc.fail("name", "a non-empty name");
    // Hardware first: the workload's cycle and flit quantities convert at its clock and flit size.
    const HardwareConfig hw =
        loadHardware(sc, included ? ov.under("scenario.hardware") : ConfigOverrides{});
    cfg.setHardware(hw);
    const YamlReader w = sc.child("workload");
    cfg.workload_source = w.source();
    // The type decides which keys are valid, so it is checked before the key set.
    cfg.workload_type =
        w.getEnum("type", {"traffic", "gemm", "dma_stream", "llm", "firmware", "trace"});
    if (cfg.workload_type == "gemm")
        cfg.gemm = loadGemm(w, cfg.noc);
    else if (cfg.workload_type == "dma_stream")
        cfg.dma_stream = loadDmaStream(w, cfg.noc, hw.hbm ? &hw.hbm_attach : nullptr);
    else if (cfg.workload_type == "llm")
        cfg.llm = loadLlmWorkload(w);
    else if (cfg.workload_type == "firmware")
        cfg.firmware = loadFirmwareWorkload(w, cfg.noc);
    else if (cfg.workload_type == "trace")
        cfg.trace_path = loadTracePath(w);
    else
        cfg.traffic = loadTraffic(w, cfg.noc);
    return cfg;
}

std::optional<std::string> ScenarioLoader::hardwareFile(const YamlReader& root) {
    if (!root.has("scenario") || !root.entry("scenario").isMap()) return std::nullopt;
    const YamlReader sc = root.entry("scenario");
    if (!sc.has("hardware") || !sc.entry("hardware").isScalar()) return std::nullopt;
    std::filesystem::path path(sc.entry("hardware").node().Scalar());
    if (path.is_relative()) path = std::filesystem::path(root.file()).parent_path() / path;
    return path.string();
}

std::string ScenarioLoader::loadTracePath(const YamlReader& w) {
    // The trace itself is read against the NoC by Preflight and the run (testbench/TrafficTrace).
    w.checkKeys({"type", "trace"});
    const std::string rel = w.getString("trace");
    if (rel.empty()) w.fail("trace", "a traffic trace file (docs/NOC.md, \"Trace replay\")");
    std::filesystem::path path(rel);
    if (path.is_relative()) path = std::filesystem::path(w.file()).parent_path() / path;
    return path.string();
}

HardwareConfig ScenarioLoader::loadHardware(const YamlReader& sc, const ConfigOverrides& file_ov) {
    const YamlReader hw = sc.entry("hardware");
    if (hw.isMap()) return HardwareLoader::load(hw);
    const std::string expected =
        "an inline hardware map (with 'noc:') or a path to a hardware "
        "YAML file";
    const std::string rel = hw.scalar(expected);
    if (rel.empty()) hw.failHere(expected);
    std::filesystem::path path(rel);
    if (path.is_relative()) path = std::filesystem::path(sc.file()).parent_path() / path;
    try {
        return HardwareLoader::loadFile(path.string(), file_ov);
    } catch (const ConfigError& e) {
        // Errors inside the hardware file carry their own position; only an unreadable file is
        // better reported where the scenario names it.
        if (e.line() != 0 || e.file() != path.string()) throw;
        throw hw.errorHere("cannot load hardware file '" + path.string() + "': " + e.message());
    }
}

noc::TrafficParams ScenarioLoader::loadTraffic(const YamlReader& w, const noc::NocParams& noc) {
    w.checkKeys({"type", "pattern", "rate", "packet_size", "hotspot_node", "hotspot_fraction",
                 "warmup", "measure", "drain", "seed"});
    noc::TrafficParams t;
    t.pattern = w.getEnum(
        "pattern",
        {"uniform", "transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "hotspot"},
        t.pattern);
    t.rate = w.getDouble("rate", 0.0, 1.0, t.rate);
    if (!(t.rate > 0.0)) w.fail("rate", "a rate > 0 and <= 1 (flits/node/cycle)");
    // 65535: the network counts a packet's flits in 16 bits.
    t.packet_flits = w.getFlits("packet_size", noc.flit_bytes, 1, 65535, t.packet_flits);
    const uint64_t nodes = uint64_t{noc.topology.x} * noc.topology.y * noc.topology.local_ports;
    t.hotspot_node = w.getUInt("hotspot_node", 0, static_cast<uint32_t>(nodes - 1), t.hotspot_node);
    t.hotspot_fraction = w.getDouble("hotspot_fraction", 0.0, 1.0, t.hotspot_fraction);
    // Each phase at most 2^40 cycles (hw/InputLimits.h): window end and drain limit cannot wrap.
    const uint64_t maxPhase = limits::kMaxPhaseCycles;
    t.warmup_cycles = w.getCycles64("warmup", noc.clock_hz, 0, maxPhase, t.warmup_cycles);
    t.measure_cycles = w.getCycles64("measure", noc.clock_hz, 1, maxPhase, t.measure_cycles);
    t.drain_cycles = w.getCycles64("drain", noc.clock_hz, 0, maxPhase, t.drain_cycles);
    t.seed = w.getUInt64("seed", 0, YamlReader::kMaxU64, t.seed);
    return t;
}

firmware::GemmWorkload ScenarioLoader::loadGemm(const YamlReader& w, const noc::NocParams& noc) {
    w.checkKeys({"type", "m", "k", "n", "mesh", "functional", "seed", "memory_path"});
    firmware::GemmWorkload g;
    g.m = w.getUInt("m", 1, 1u << 20);
    g.k = w.getUInt("k", 1, 1u << 20);
    g.n = w.getUInt("n", 1, 1u << 20);
    const uint32_t side = std::min(noc.topology.x, noc.topology.y);
    g.mesh = w.getUInt("mesh", 1, side, side);
    for (const char* key : {"m", "k", "n"})
        if (w.getUInt(key, 1, 1u << 20) % g.mesh)
            w.fail(key, fmt::format("a multiple of the core block side mesh = {}", g.mesh));
    g.functional = w.getBool("functional", g.functional);
    g.seed = w.getUInt64("seed", 0, YamlReader::kMaxU64, g.seed);
    g.memory_over_noc = w.getEnum("memory_path", {"direct", "noc"}, "direct") == "noc";
    return g;
}

}  // namespace wsc::hw
