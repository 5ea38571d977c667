// wsc: command-line front end. Subcommands:
//   run [SCENARIO]      run a scenario (the embedded default when none is given)
//   --version           wsc version and git describe of the build
//   validate FILE...    check hardware, scenario or model (.json) files without simulating
//   config --resolved F print a config as a run resolves it (overrides, includes, defaults)
//   traffic CONFIG      synthetic NoC traffic: one rate, or --sweep up to saturation
//   bench noc           simulation-speed benchmark
//   kernel gemm|gemv    WaferLLM kernels on a P x P core mesh (testbench/KernelCli)
//   moe trace|map       MoEntwine expert traces and mappings (testbench/MoeCli)
//   tatp                TEMP's TATP / ring TSPP of one linear operator (testbench/TatpCli)
//   bench kernels       MeshGEMM / MeshGEMV simulation speed
// Exit codes: 0 ok, 1 runtime error, 2 bad input (config or flags), 3 deadlock.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "core/SramOverflowError.h"
#include "firmware/ParseError.h"
#include "firmware/model/LayerGraph.h"
#include "firmware/moe/TraceError.h"
#include "hw/ConfigError.h"
#include "hw/HardwareLoader.h"
#include "hw/InputLimits.h"
#include "hw/MemorySystem.h"
#include "hw/ModelConfigLoader.h"
#include "hw/ResolvedConfig.h"
#include "hw/ScenarioLoader.h"
#include "hw/Wafer.h"
#include "hw/YamlReader.h"
#include "hw/rtl/RtlRouterFactory.h"
#include "noc/DeadlockError.h"
#include "noc/NocShell.h"
#include "noc/ParamError.h"
#include "testbench/BuildInfo.h"
#include "testbench/CliArgs.h"
#include "testbench/DmaStreamCli.h"
#include "testbench/FaultSweep.h"
#include "testbench/FirmwareTestbench.h"
#include "testbench/GemmTestbench.h"
#include "testbench/HugePageHeap.h"
#include "testbench/KernelCli.h"
#include "testbench/LlmCli.h"
#include "testbench/LlmSearchCli.h"
#include "testbench/MoeCli.h"
#include "testbench/NocBench.h"
#include "testbench/Preflight.h"
#include "testbench/ProgressObserver.h"
#include "testbench/RtlBench.h"
#include "testbench/RunOutputs.h"
#include "testbench/RunProvenance.h"
#include "testbench/StatsSchema.h"
#include "testbench/SvgPlot.h"
#include "testbench/TatpCli.h"
#include "testbench/TracePlayer.h"
#include "testbench/TrafficPattern.h"
#include "testbench/TrafficTestbench.h"
#include "testbench/TrafficTrace.h"
#include "testbench/sweep/SweepCli.h"

extern const char* const kDefaultScenarioYaml;

using namespace wsc;

namespace {

using tb::CliArgs;
using tb::UsageError;

// A config file is a scenario when its root map has a `scenario:` key, else a hardware file.
// Read once, through YamlReader::loadFile (regular files of bounded size only: a FIFO or
// /dev/zero is refused, not read forever).
hw::ScenarioConfig loadAny(const std::string& path, const hw::ConfigOverrides& ov) {
    const hw::YamlReader root = hw::YamlReader::loadFile(path);
    if (root.has("scenario")) return hw::ScenarioLoader::load(root, ov);
    ov.applyTo(root);
    hw::ScenarioConfig sc;
    sc.name = path;
    sc.setHardware(hw::HardwareLoader::load(root));
    return sc;
}

// A HuggingFace config.json: loaded, expanded for one token, summarised on one line.
std::string describeModel(const std::string& path) {
    namespace fm = firmware::model;
    const fm::ModelConfig m = hw::ModelConfigLoader::loadFile(path);
    const fm::LayerGraph g = fm::LayerGraph::build(m, fm::GraphShape{});
    uint64_t moe = 0;
    for (uint64_t l = 0; l < m.layers; ++l) moe += m.moeLayer(l);
    std::string layers = fmt::format("{} layers", m.layers);
    if (moe)
        layers += fmt::format(" ({} MoE, {} of {} experts per token)", moe, m.moe.experts_per_token,
                              m.moe.experts);
    return fmt::format("model {} ({}), {}, {:.2f}B params, {:.2f}B active", m.name, m.architecture,
                       layers, g.params() / 1e9, g.activeParams() / 1e9);
}

bool isModelFile(const std::string& path) {
    return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

// Comma-separated router indices below `routers` (--trace, --pipelines).
std::vector<uint32_t> parseList(const std::string& s, const std::string& flag, uint32_t min,
                                uint32_t max) {
    std::vector<uint32_t> out;
    for (uint64_t v : CliArgs::parseUIntList(s, flag, min, max))
        out.push_back(static_cast<uint32_t>(v));
    return out;
}

// Comma-separated fractions in (0, 1], or [0, 1] with allow_zero; `flag` names the option.
std::vector<double> parseRates(const std::string& s, const std::string& flag = "--rates",
                               bool allow_zero = false) {
    return CliArgs::parseDoubleList(s, flag, 0.0, 1.0, !allow_zero);
}

struct OutputOpts {
    std::string stats, vcd, trace, rtl_fst;
    std::string heatmap, perfetto;
    std::string perfetto_cores;
    std::string perfetto_unit = "ns";
    double heatmap_scale = 0;
    uint64_t perfetto_max_spans = tb::CoreTimelineRecorder::kDefaultMaxSpans;
    // `sc`'s chip bounds the core indices of --perfetto-cores.
    tb::CoreTimelineRecorder::Options traceOptions(const hw::ScenarioConfig& sc) const {
        tb::CoreTimelineRecorder::Options t;
        const auto& topo = sc.noc.topology;
        if (!perfetto_cores.empty())
            t.cores = tb::CoreTimelineRecorder::parseCores(
                perfetto_cores, "--perfetto-cores",
                static_cast<uint32_t>(
                    std::min<uint64_t>(uint64_t{topo.x} * topo.y * topo.local_ports,
                                       tb::CoreTimelineRecorder::kMaxCores)));
        t.max_spans = perfetto_max_spans;
        return t;
    }
};

void addOutputFlags(CLI::App* app, OutputOpts& o) {
    app->add_option("--stats", o.stats, "write every counter to this JSON file");
    app->add_option("--vcd", o.vcd, "write a VCD waveform of the traced routers (GTKWave)");
    app->add_option("--trace", o.trace,
                    "routers in the VCD: comma-separated indices (default: 0 and the centre)");
    app->add_option("--heatmap", o.heatmap,
                    "write link-utilization heatmaps (SVG): FILE for the measurement window or the "
                    "run, FILE with .warm-up/.drain before the extension for the other phases");
    CliArgs::addDouble(app, "--heatmap-scale", o.heatmap_scale, 0.0, 1.0,
                       "the link utilization drawn red in --heatmap, in (0, 1] (default: auto, the "
                       "busiest link rounded up; a fixed value makes heatmaps comparable)",
                       true);
    app->add_option(
        "--perfetto", o.perfetto,
        "write a Chrome/Perfetto trace JSON: per core a state track and one track per unit "
        "(compute, vector, send, receive, dma, relay), NoC phases and counters");
    app->add_option("--perfetto-unit", o.perfetto_unit,
                    "time unit of the Perfetto trace: ns (real time at the NoC clock, default) or "
                    "cycles (the viewer's us reads as cycles)")
        ->check(CLI::IsMember({"ns", "cycles"}));
    app->add_option("--perfetto-cores", o.perfetto_cores,
                    "cores in the Perfetto trace: indices and ranges, e.g. 0-15,32 (default: all)");
    CliArgs::addUInt(app, "--perfetto-max-spans", o.perfetto_max_spans, 0, UINT64_MAX,
                     fmt::format("core tracks stop at the cycle this many spans are recorded "
                                 "(default {}, 0: no cap)",
                                 tb::CoreTimelineRecorder::kDefaultMaxSpans));
    app->add_option("--rtl-fst", o.rtl_fst,
                    "write the RTL routers' internals as FST (one file per router, docs/RTL.md)");
}

// Flags of one run that its mode does not use are errors, and its output files are checked
// before anything is simulated (testbench/CliArgs). `mode`: "traffic", "gemm", "dma_stream",
// "sweep" or "fault sweep"; `inputs`: the files the run reads.
void checkRunFlags(const CLI::App* app, const OutputOpts& o, const hw::ScenarioConfig& sc,
                   const std::string& mode, std::vector<std::string> inputs) {
    if (app->count("--trace") && o.vcd.empty())
        throw UsageError("--trace needs --vcd FILE (it picks the routers of the waveform)");
    if (o.heatmap.empty() && app->count("--heatmap-scale"))
        throw UsageError("--heatmap-scale needs --heatmap FILE.svg");
    if (o.perfetto.empty() && (app->count("--perfetto-cores") ||
                               app->count("--perfetto-max-spans") || app->count("--perfetto-unit")))
        throw UsageError(
            "--perfetto-cores, --perfetto-max-spans and --perfetto-unit need --perfetto FILE.json");
    const std::string what = mode == "sweep"         ? "a sweep (--sweep)"
                             : mode == "fault sweep" ? "a fault sweep (--fault-rates)"
                                                     : fmt::format("a {} run", mode);
    if (mode != "traffic")
        CliArgs::rejectUnused(app, {"--vcd", "--trace"},
                              what + " (waveforms are of synthetic traffic runs)");
    if (mode == "traffic" || mode == "sweep" || mode == "fault sweep" || mode == "dma_stream" ||
        mode == "llm")
        CliArgs::rejectUnused(app, {"--perfetto-cores", "--perfetto-max-spans"},
                              what + " (it has no core tracks)");
    if (mode != "traffic" && mode != "gemm" && mode != "llm")
        CliArgs::rejectUnused(app, {"--heatmap", "--perfetto"}, what);
    if (mode == "fault sweep") CliArgs::rejectUnused(app, {"--stats"}, what);
    if (mode != "traffic" || sc.noc.rtl_routers.empty())
        CliArgs::rejectUnused(
            app, {"--rtl-fst"},
            mode != "traffic" ? what : "a run whose config has no noc.rtl_routers");
    inputs.push_back(sc.source.file());
    inputs.push_back(sc.workload_source.file());
    std::vector<std::pair<std::string, std::string>> outs = {{"--stats", o.stats},
                                                             {"--vcd", o.vcd},
                                                             {"--perfetto", o.perfetto},
                                                             {"--heatmap", o.heatmap}};
    if (!o.heatmap.empty() && mode == "traffic")
        for (const char* phase : {"warm-up", "drain"})
            outs.push_back({"--heatmap", tb::RunOutputs::phasePath(o.heatmap, phase)});
    if (!o.rtl_fst.empty())
        for (uint32_t r : sc.noc.rtl_routers)
            outs.push_back({"--rtl-fst", rtl::RtlRouterFactory::tracePath(o.rtl_fst, r)});
    CliArgs::checkOutputs(outs, inputs);
}

int runTraffic(const hw::ScenarioConfig& sc, const OutputOpts& o, tb::RunProvenance& prov) {
    noc::NocShell shell("noc", sc.noc.clock_hz);
    tb::TrafficRunOptions opt;
    nlohmann::json stats;
    if (!o.stats.empty()) opt.stats = &stats;
    opt.vcd_path = o.vcd;
    opt.rtl_fst_path = o.rtl_fst;
    if (!o.vcd.empty()) {
        uint32_t R = sc.noc.topology.x * sc.noc.topology.y;
        opt.trace_routers =
            o.trace.empty() ? std::vector<uint32_t>{0} : parseList(o.trace, "--trace", 0, R - 1);
        if (o.trace.empty() && R > 1)
            opt.trace_routers.push_back(sc.noc.topology.x * (sc.noc.topology.y / 2) +
                                        sc.noc.topology.x / 2);
    }
    opt.progress = true;
    tb::RunOutputs outputs(sc, o.heatmap, o.perfetto, o.traceOptions(sc));
    outputs.setHeatmapScale(o.heatmap_scale);
    outputs.setPerfettoUnit(o.perfetto_unit);
    opt.observers = outputs.observers();
    tb::TrafficResult r = tb::TrafficTestbench::run(sc.noc, sc.traffic, shell, opt);
    tb::TrafficTestbench::printReport(std::cout, sc.noc, sc.traffic, r);
    for (const auto& w : r.warnings) fmt::print(stderr, "warning: {}\n", w);
    prov.note("warnings", r.warnings);
    outputs.finishTraffic(r, std::cout, o.stats.empty() ? nullptr : &stats);
    if (!o.stats.empty()) {
        stats["scenario"] = sc.name;
        prov.note("seed", sc.traffic.seed);
        prov.note("workload", "traffic " + sc.traffic.pattern);
        prov.writeStats(o.stats, std::move(stats));
        fmt::print("  stats               {}\n", o.stats);
    }
    if (!o.vcd.empty()) fmt::print("  waveform            {}\n", o.vcd);
    for (uint32_t rt : o.rtl_fst.empty() ? std::vector<uint32_t>{} : sc.noc.rtl_routers)
        fmt::print("  RTL waveform        {}\n", rtl::RtlRouterFactory::tracePath(o.rtl_fst, rt));
    return 0;
}

int runFirmware(const hw::ScenarioConfig& sc, const OutputOpts& o, tb::RunProvenance& prov) {
    nlohmann::json stats;
    noc::NocShell shell("noc", sc.noc.clock_hz);
    const tb::FirmwareResult r =
        tb::FirmwareTestbench::run(sc, shell, o.stats.empty() ? nullptr : &stats);
    tb::FirmwareTestbench::printReport(std::cout, sc, r);
    if (!o.stats.empty()) {
        stats["scenario"] = sc.name;
        prov.note("workload", "firmware " + sc.firmware.path);
        prov.writeStats(o.stats, std::move(stats));
        fmt::print("  stats               {}\n", o.stats);
    }
    return r.correct() ? 0 : 1;
}

// A traffic trace replayed on the scenario's NoC (docs/NOC.md, "Trace replay").
int runTrace(const hw::ScenarioConfig& sc, const std::string& trace_path, const OutputOpts& o,
             tb::RunProvenance& prov) {
    const auto& t = sc.noc.topology;
    const tb::TrafficTrace trace =
        tb::TrafficTrace::loadFile(trace_path, uint32_t(uint64_t{t.x} * t.y * t.local_ports));
    noc::NocShell shell("noc", sc.noc.clock_hz);
    nlohmann::json stats;
    const tb::TraceResult r =
        tb::TracePlayer::replay(sc.noc, trace, shell, o.stats.empty() ? nullptr : &stats);
    tb::TracePlayer::printReport(std::cout, sc.noc, r);
    if (!o.stats.empty()) {
        stats["scenario"] = sc.name;
        prov.note("workload", "trace " + trace_path);
        prov.writeStats(o.stats, std::move(stats));
        fmt::print("  stats               {}\n", o.stats);
    }
    return 0;
}

int runGemm(const hw::ScenarioConfig& sc, const OutputOpts& o, tb::RunProvenance& prov) {
    tb::GemmRunOptions opt;
    nlohmann::json stats;
    if (!o.stats.empty()) opt.stats = &stats;
    tb::RunOutputs outputs(sc, o.heatmap, o.perfetto, o.traceOptions(sc));
    outputs.setHeatmapScale(o.heatmap_scale);
    outputs.setPerfettoUnit(o.perfetto_unit);
    opt.observers = outputs.observers();
    tb::ProgressObserver progress;
    opt.observers.push_back(&progress);
    tb::GemmResult r;
    if (sc.hbm) {
        // HBM stacks beside every die, attached at their edge routers (hbm.attach): the chip top
        // owns them and each core uses the nearest stack of its own die.
        hw::Wafer wafer("wafer", sc.hardware());
        r = tb::GemmTestbench::run(wafer, sc.gemm, opt);
    } else {
        // No HBM: core.memory's simple memory ports, port p at node p mod nodes.
        noc::NocShell shell("noc", sc.noc.clock_hz);
        hw::MemorySystem mem(sc.core, sc.noc.clock_hz);
        r = tb::GemmTestbench::run(sc.noc, sc.core, sc.gemm, shell, mem, opt);
    }
    tb::GemmTestbench::printReport(std::cout, sc.gemm, r);
    outputs.finishGemm(r, std::cout, o.stats.empty() ? nullptr : &stats);
    if (!o.stats.empty()) {
        stats["scenario"] = sc.name;
        prov.note("seed", sc.gemm.seed);
        prov.note("workload", "gemm");
        prov.writeStats(o.stats, std::move(stats));
        fmt::print("  stats               {}\n", o.stats);
    }
    return r.checked && !r.correct ? 1 : 0;
}

}  // namespace

// libsystemc references sc_main; wsc has its own main (so the SystemC banner can be switched off
// before the kernel starts) and never goes through SystemC's.
extern "C" int sc_main(int, char**) {
    return 1;
}

int main(int argc, char** argv) {
    tb::HugePageHeap::enable(argv);  // may start wsc again with huge pages for its heap
    setenv("SYSC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    CLI::App app{"wsc: cycle-level SystemC model of wafer-scale chips"};
    app.set_version_flag("--version", fmt::format("wsc {} ({})", tb::BuildInfo::version(),
                                                  tb::BuildInfo::gitDescribe()));
    app.require_subcommand(1);

    // run
    std::string scenario;
    OutputOpts run_out;
    auto* run = app.add_subcommand("run", "run a scenario (no argument: the embedded default)");
    run->add_option("scenario", scenario, "scenario YAML");
    std::vector<std::string> sets;  // --set of run, validate and traffic
    CliArgs::addSet(run, sets, "the scenario (scenario.workload.rate=0.1)");
    addOutputFlags(run, run_out);
    uint32_t run_threads = 0;
    CliArgs::addUInt(run, "--threads", run_threads, 1, 256,
                     "threads that step the network's routers, from 4096 routers; same results "
                     "(default noc.threads, else 1; docs/NOC.md \"Threads\")");

    // validate
    std::vector<std::string> vfiles;
    auto* validate =
        app.add_subcommand("validate", "check hardware, scenario or model (.json) files");
    validate->add_option("files", vfiles, "YAML hardware/scenario files, JSON model files")
        ->required();
    CliArgs::addSet(validate, sets, "every YAML file given");
    // The memory budget of a run (testbench/ResourceEstimate), on every subcommand that builds one.
    uint64_t max_memory = 0;
    const std::string max_memory_help =
        "refuse a run whose estimated memory exceeds SIZE, e.g. 8GB (default: the memory "
        "available, MemAvailable)";
    CliArgs::addBytes(validate, "--max-memory", max_memory, max_memory_help);
    CliArgs::addBytes(run, "--max-memory", max_memory, max_memory_help);

    // stats keys | stats check FILE...
    auto* stats_cmd = app.add_subcommand(
        "stats",
        "the keys of --stats files: list them (docs/STATS.md) or check files against them");
    auto* stats_keys = stats_cmd->add_subcommand(
        "keys",
        "print every documented key, unit and meaning (the generated part of docs/STATS.md)");
    std::vector<std::string> stats_files;
    auto* stats_check = stats_cmd->add_subcommand(
        "check", "list the keys of --stats files that docs/STATS.md does not document (exit 1)");
    stats_check->add_option("files", stats_files, "--stats JSON files")->required();
    stats_cmd->require_subcommand(1);
    // config --resolved
    std::string resolved_file;
    auto* config = app.add_subcommand(
        "config", "print a hardware or scenario file as a run resolves it (docs/CONFIG.md)");
    config
        ->add_option("--resolved", resolved_file,
                     "the file: printed after --set, with an included hardware file inlined "
                     "and every default the loaders apply marked '# default'")
        ->required();
    CliArgs::addSet(config, sets, "the file");

    // traffic
    std::string tconfig, pattern, rates, svg, table, pipelines;
    std::string compat;  // traffic --compat booksim
    double rate = 0;
    uint32_t packet = 0;
    uint64_t warmup = 0, measure = 0, drain = 0, seed = 0;
    bool sweep = false;
    OutputOpts t_out;
    auto* traffic = app.add_subcommand("traffic", "synthetic traffic on a NoC config");
    // A traffic flag overrides the scenario's workload key; a hardware file takes the defaults.
    const noc::TrafficParams d;
    auto defaulted = [](const std::string& what, const auto& v) {
        return fmt::format("{} (default: the scenario's workload value, else {})", what, v);
    };
    traffic->add_option("config", tconfig, "hardware or scenario YAML")->required();
    CliArgs::addSet(traffic, sets, "the config file");
    traffic->add_option("--pattern", pattern, defaulted("traffic pattern", d.pattern))
        ->check(CLI::IsMember(tb::TrafficPattern::names()));
    // The same ranges as the scenario keys they override (hw/InputLimits.h, docs/CONFIG.md).
    const uint64_t maxPhase = hw::limits::kMaxPhaseCycles;
    CliArgs::addDouble(traffic, "--rate", rate, 0.0, 1.0,
                       defaulted("offered load, flits/node/cycle", d.rate), true);
    CliArgs::addUInt(traffic, "--packet-size", packet, 1, 65535,
                     defaulted("packet length in flits", d.packet_flits));
    CliArgs::addUInt(traffic, "--warmup", warmup, 0, maxPhase,
                     defaulted("warm-up cycles", d.warmup_cycles));
    CliArgs::addUInt(traffic, "--measure", measure, 1, maxPhase,
                     defaulted("measurement cycles", d.measure_cycles));
    CliArgs::addUInt(traffic, "--drain", drain, 0, maxPhase,
                     defaulted("max drain cycles", d.drain_cycles));
    CliArgs::addUInt(traffic, "--seed", seed, 0, UINT64_MAX, defaulted("random seed", d.seed));
    uint32_t threads = 1;
    CliArgs::addUInt(traffic, "--threads", threads, 1, 256,
                     "threads that step the routers (same results for every count; from 4096 "
                     "routers, docs/NOC.md \"Threads\"; default noc.threads, else 1)");
    traffic
        ->add_option("--compat", compat,
                     "also report in another simulator's accounting: booksim (latency + 1 "
                     "source cycle, hops as routers; docs/NOC.md \"Definitions\")")
        ->check(CLI::IsMember({"booksim"}));
    traffic->add_flag("--sweep", sweep, "sweep injection rates up to saturation");
    traffic->add_option("--rates", rates,
                        "sweep rates, comma-separated (default 0.02, 0.05, then steps of 0.05)");
    traffic->add_option("--svg", svg, "sweep: write the latency/throughput curve as SVG");
    traffic->add_option(
        "--pipelines", pipelines,
        "sweep: repeat for these router cycles per hop, e.g. 1,2,4 (the delay line's "
        "length, or a stage-accurate router's preset)");
    std::string fault_rates;
    uint32_t fault_seeds = 3;
    traffic->add_option(
        "--fault-rates", fault_rates,
        "throughput vs link-fault rate: comma-separated rates in [0, 1] (TEMP Fig. 20b)");
    CliArgs::addUInt(traffic, "--fault-seeds", fault_seeds, 1, 100,
                     "fault maps per rate (default 3)");
    traffic->add_option("--table", table, "sweep: write the curve as a markdown table");
    std::string trace_file;
    traffic->add_option("--trace-file", trace_file,
                        "replay the messages of this trace instead of a synthetic pattern "
                        "(docs/NOC.md, \"Trace replay\"; --trace picks VCD routers)");
    addOutputFlags(traffic, t_out);
    CliArgs::addBytes(traffic, "--max-memory", max_memory, max_memory_help);

    // bench
    auto* bench = app.add_subcommand("bench", "simulation-speed benchmarks");
    bool quick = false;
    auto* bnoc = bench->add_subcommand("noc", "NoC: cycles/s, flit-router traversals/s, peak RSS");
    bnoc->add_flag("--quick", quick, "small cases only");
    std::vector<uint32_t> bench_meshes;
    std::vector<unsigned> bench_threads;
    bnoc->add_option("--meshes", bench_meshes, "only these mesh sizes, e.g. 8,256")
        ->delimiter(',')
        ->check(CLI::IsMember({8, 32, 128, 256, 512, 1024}));
    bnoc->add_option("--threads", bench_threads,
                     "run every case at each of these thread counts, e.g. 1,2 (default: one "
                     "thread, and also two from 128x128)")
        ->delimiter(',')
        ->check(CLI::Range(1, 256));
    unsigned bench_repeat = 1;
    bnoc->add_option("--repeat", bench_repeat,
                     "run each case this many times, thread counts in turn; report the median "
                     "and each round's speed-up over one thread")
        ->check(CLI::Range(1, 100));
    auto* brtl =
        bench->add_subcommand("rtl", "RTL router co-simulation: cycles/s, 1 router and 4x4 meshes");
    brtl->add_flag("--quick", quick, "short runs");
    tb::KernelCli::Options kopt;
    auto* bkern = tb::KernelCli::addBench(bench, kopt);
    bench->require_subcommand(1);
    auto* kernel = tb::KernelCli::add(app, kopt);
    tb::LlmCli::Options lopt;
    auto* llm = tb::LlmCli::add(app, lopt);
    tb::LlmSearchCli::Options lsopt;
    auto* lsearch = tb::LlmSearchCli::add(llm, lsopt);
    auto* bllm = tb::LlmCli::addBench(bench, lopt);
    tb::TatpCli::Options topt;
    auto* tatp = tb::TatpCli::add(app, topt);
    tb::MoeCli::Options mopt;
    auto* moe = tb::MoeCli::add(app, mopt);
    tb::sweep::SweepCli::Options sopt;
    auto* sweepCmd = tb::sweep::SweepCli::add(app, sopt);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }

    tb::RunProvenance prov(argc, argv);
    try {
        const hw::ConfigOverrides overrides(sets);
        prov.setOverrides(sets);
        if (*run) {
            hw::ScenarioConfig sc =
                scenario.empty()
                    ? hw::ScenarioLoader::loadString(kDefaultScenarioYaml,
                                                     "<embedded default scenario>", overrides)
                    : hw::ScenarioLoader::loadFile(scenario, overrides);
            if (run_threads) sc.noc.threads = run_threads;
            // Every check validate makes, before anything is built (testbench/Preflight).
            const auto budget = tb::Preflight::Budget::of(max_memory);
            const tb::ResourceEstimate est = tb::Preflight::check(sc, {}, budget);
            sc.traffic.max_live_packets = est.packetBudget(budget.bytes);
            std::vector<std::string> inputs{scenario};
            if (sc.workload_type == "firmware") inputs.push_back(sc.firmware.path);
            if (sc.workload_type == "trace") inputs.push_back(sc.trace_path);
            checkRunFlags(run, run_out, sc, sc.workload_type, inputs);
            fmt::print("scenario: {}\n", sc.name);
            // The documents as the run resolved them (ScenarioLoader: scenario.hardware
            // overrides go into a hardware file the scenario names by path).
            const bool included = !scenario.empty() && sc.source.file() != scenario;
            if (scenario.empty())
                prov.addConfigText("<embedded default scenario>", kDefaultScenarioYaml, overrides);
            else
                prov.addConfigFile(scenario,
                                   included ? overrides.outside("scenario.hardware") : overrides);
            if (included)
                prov.addConfigFile(sc.source.file(), overrides.under("scenario.hardware"));
            prov.note("workload", sc.workload_type);
            if (sc.workload_type == "gemm") return runGemm(sc, run_out, prov);
            if (sc.workload_type == "firmware") return runFirmware(sc, run_out, prov);
            if (sc.workload_type == "trace") return runTrace(sc, sc.trace_path, run_out, prov);
            if (sc.workload_type == "dma_stream")
                return tb::runDmaStreamScenario(sc, run_out.stats, prov);
            if (sc.workload_type == "llm")
                return tb::LlmCli::runScenario(sc, scenario, run_out.stats, run_out.heatmap,
                                               run_out.perfetto, prov, std::cout);
            if (sc.workload_type != "traffic")
                throw UsageError(
                    fmt::format("workload type '{}' is not supported yet", sc.workload_type));
            return runTraffic(sc, run_out, prov);
        }
        if (*config) {
            fmt::print("{}", hw::ResolvedConfig::print(resolved_file, overrides));
            return 0;
        }
        if (*stats_keys) {
            fmt::print("{}", tb::StatsSchema::markdown());
            return 0;
        }
        if (*stats_check) {
            int rc = 0;
            for (const auto& f : stats_files) {
                std::ifstream in(f);
                if (!in) throw UsageError(fmt::format("{}: cannot open the file", f));
                nlohmann::json j;
                try {
                    in >> j;
                } catch (const nlohmann::json::exception& e) {
                    throw UsageError(fmt::format("{}: not a JSON stats file: {}", f, e.what()));
                }
                const auto bad = tb::StatsSchema::undocumented(j);
                for (const auto& k : bad) fmt::print("{}: undocumented key {}\n", f, k);
                if (bad.empty()) fmt::print("{}: every key documented\n", f);
                rc = bad.empty() ? rc : 1;
            }
            return rc;
        }
        if (*validate) {
            for (const auto& f : vfiles) {
                if (isModelFile(f)) {
                    fmt::print("{}: ok ({})\n", f, describeModel(f));
                    continue;
                }
                if (hw::YamlReader::loadFile(f).has("sweep")) {
                    if (!sets.empty())
                        throw UsageError(fmt::format(
                            "{}: a sweep spec takes no --set (its axes set the keys)", f));
                    fmt::print("{}: ok ({})\n", f, tb::sweep::SweepCli::validate(f));
                    continue;
                }
                hw::ScenarioConfig sc;
                try {
                    sc = loadAny(f, overrides);
                } catch (const hw::ConfigError& e) {
                    // A --set error names the flag, not the file: with several files say which.
                    const std::string what = e.what();
                    if (vfiles.size() > 1 && what.rfind("--set", 0) == 0)
                        throw std::invalid_argument(fmt::format("{}: {}", f, what));
                    throw;
                }
                // The network and the workload, as a run checks them, and the memory it needs.
                const tb::ResourceEstimate est =
                    tb::Preflight::check(sc, {}, tb::Preflight::Budget::of(max_memory));
                fmt::print("{}: ok ({}; estimated memory {})\n", f,
                           tb::TrafficTestbench::describe(sc.noc),
                           tb::ResourceEstimate::bytes(est.total()));
            }
            return 0;
        }
        if (*traffic) {
            hw::ScenarioConfig sc = loadAny(tconfig, overrides);
            if (sc.workload_type != "traffic")
                throw UsageError(fmt::format(
                    "{}: a {} scenario; `wsc traffic` runs synthetic traffic on a hardware file or "
                    "a traffic scenario and would replace its workload (use `wsc run {}`)",
                    tconfig, sc.workload_type, tconfig));
            auto& tp = sc.traffic;
            tb::Preflight::Overrides overridden;
            if (!pattern.empty()) overridden["pattern"] = "--pattern";
            if (traffic->count("--packet-size")) overridden["packet_size"] = "--packet-size";
            if (!pattern.empty()) tp.pattern = pattern;
            if (traffic->count("--rate")) tp.rate = rate;
            if (traffic->count("--packet-size")) tp.packet_flits = packet;
            if (traffic->count("--warmup")) tp.warmup_cycles = warmup;
            if (traffic->count("--measure")) tp.measure_cycles = measure;
            if (traffic->count("--drain")) tp.drain_cycles = drain;
            if (traffic->count("--seed")) tp.seed = seed;
            if (traffic->count("--threads")) sc.noc.threads = threads;
            tp.compat_booksim = compat == "booksim";
            const auto budget = tb::Preflight::Budget::of(max_memory);
            const tb::ResourceEstimate est = tb::Preflight::check(sc, overridden, budget);
            tp.max_live_packets = est.packetBudget(budget.bytes);
            if (traffic->count("--trace-file") && trace_file.empty())
                throw UsageError("--trace-file: expected a trace file, got an empty path");
            if (!trace_file.empty()) {
                CliArgs::rejectUnused(
                    traffic,
                    {"--pattern", "--rate", "--packet-size", "--warmup", "--measure", "--drain",
                     "--seed", "--sweep", "--rates", "--svg", "--pipelines", "--fault-rates",
                     "--fault-seeds", "--table"},
                    "a trace replay (--trace-file: the trace gives the traffic)");
                checkRunFlags(traffic, t_out, sc, "trace", {tconfig, trace_file});
                prov.addConfigFile(tconfig, overrides);
                return runTrace(sc, trace_file, t_out, prov);
            }
            const std::string mode = !fault_rates.empty() ? "fault sweep"
                                     : sweep              ? "sweep"
                                                          : "traffic";
            checkRunFlags(traffic, t_out, sc, mode, {tconfig});
            // Flags of the other traffic modes.
            if (mode == "fault sweep")
                CliArgs::rejectUnused(traffic, {"--sweep", "--rates", "--pipelines", "--rate"},
                                      "a fault sweep (--fault-rates: it finds each map's "
                                      "saturation throughput itself)");
            if (mode == "sweep")
                CliArgs::rejectUnused(traffic, {"--rate", "--fault-seeds"},
                                      "a sweep (--sweep: its rates are --rates)");
            if (mode == "traffic") {
                if (traffic->count("--svg") || traffic->count("--table") ||
                    traffic->count("--rates") || traffic->count("--pipelines"))
                    throw UsageError("--svg, --table, --rates and --pipelines need --sweep");
                CliArgs::rejectUnused(traffic, {"--fault-seeds"},
                                      "a traffic run (it needs --fault-rates)");
            }
            CliArgs::checkOutputs({{"--svg", svg}, {"--table", table}, {"--stats", t_out.stats}},
                                  {tconfig, sc.source.file()});
            if (!fault_rates.empty()) {
                const std::vector<double> fr = parseRates(fault_rates, "--fault-rates", true);
                noc::NocShell shell("noc", sc.noc.clock_hz);
                fmt::print(
                    "wsc fault sweep: {}\n  {} traffic, saturation throughput of {} fault maps per "
                    "rate\n",
                    tb::TrafficTestbench::describe(sc.noc), tp.pattern, fault_seeds);
                auto pts = tb::FaultSweep::run(sc.noc, tp, fr, fault_seeds, shell, &std::cout);
                if (!table.empty()) {
                    std::ofstream f(table);
                    if (!f) throw std::runtime_error("cannot write " + table);
                    tb::FaultSweep::printTable(f, pts);
                }
                if (!svg.empty()) {
                    tb::SvgPlot plot(
                        fmt::format("throughput vs link-fault rate, {}x{} mesh, {} traffic",
                                    sc.noc.topology.x, sc.noc.topology.y, tp.pattern),
                        "link fault rate", "accepted throughput (flits/node/cycle)");
                    tb::SvgPlot::Series s{"accepted (mean)", {}};
                    for (const auto& p : pts) s.points.push_back({p.fault_rate, p.accepted});
                    plot.add(s);
                    plot.write(svg);
                    fmt::print("plot: {}\n", svg);
                }
                return 0;
            }
            prov.addConfigFile(tconfig, overrides);
            if (!sweep) {
                return runTraffic(sc, t_out, prov);
            }
            std::vector<double> rs =
                rates.empty() ? std::vector<double>{0.02, 0.05} : parseRates(rates);
            if (rates.empty())
                for (int i = 2; i <= 20; ++i) rs.push_back(0.05 * i);
            noc::NocShell shell("noc", sc.noc.clock_hz);
            std::vector<uint32_t> depths = pipelines.empty()
                                               ? std::vector<uint32_t>{sc.noc.router.pipeline}
                                               : parseList(pipelines, "--pipelines", 1, 4);
            std::ofstream tf;
            if (!table.empty()) {
                tf.open(table);
                if (!tf) throw std::runtime_error("cannot write " + table);
            }
            tb::SvgPlot plot(
                fmt::format("{} traffic, {}x{} {}", tp.pattern, sc.noc.topology.x,
                            sc.noc.topology.y, sc.noc.topology.wrap ? "torus" : "mesh"),
                "offered load (flits/node/cycle)", "average packet latency (cycles)");
            std::vector<tb::TrafficResult> all;
            double ylim = 50;
            for (uint32_t d : depths) {
                // A stage-accurate router takes the preset with d cycles per hop, as the YAML
                // shorthand pipeline: d does; a delay line becomes d cycles long.
                if (sc.noc.router.staged)
                    sc.noc.router.usePreset(d);
                else
                    sc.noc.router.pipeline = d;
                fmt::print("wsc traffic sweep: {}\n  {} traffic, {}-flit packets\n",
                           tb::TrafficTestbench::describe(sc.noc), tp.pattern, tp.packet_flits);
                auto results = tb::TrafficTestbench::sweep(sc.noc, tp, rs, shell, &std::cout);
                if (tf.is_open()) {
                    fmt::print(tf, "\n### {} traffic, pipeline {}\n\n{}\n\n", tp.pattern, d,
                               tb::TrafficTestbench::describe(sc.noc));
                    tb::TrafficTestbench::printSweep(tf, results);
                }
                tb::SvgPlot::Series s{fmt::format("pipeline {}", d), {}};
                for (const auto& r : results) s.points.push_back({r.offered_actual, r.latency_avg});
                if (!results.empty()) ylim = std::max(ylim, results.front().latency_avg * 6);
                plot.add(s);
                all.insert(all.end(), results.begin(), results.end());
            }
            auto results = all;
            if (!svg.empty()) {
                plot.setYMax(ylim);
                plot.write(svg);
                fmt::print("plot: {}\n", svg);
            }
            if (!t_out.stats.empty()) {
                nlohmann::json j = nlohmann::json::array();
                for (const auto& r : results) {
                    nlohmann::json e;
                    tb::TrafficTestbench::toJson(e, r);
                    j.push_back(e);
                }
                prov.note("seed", tp.seed);
                prov.note("workload", "traffic sweep " + tp.pattern);
                nlohmann::json sweep;
                sweep["sweep"] = std::move(j);
                prov.writeStats(t_out.stats, std::move(sweep));
            }
            return 0;
        }
        if (*kernel) {
            prov.addConfigFile(kopt.config, hw::ConfigOverrides(kopt.set));
            prov.setOverrides(kopt.set);
            prov.note("workload",
                      fmt::format("kernel {} {}", kernel->got_subcommand("gemv") ? "gemv" : "gemm",
                                  kopt.algo));
            prov.note("seed", kopt.seed);
            kopt.provenance = &prov;
            return tb::KernelCli::run(kernel, kopt, std::cout);
        }
        if (*tatp) return tb::TatpCli::run(tatp, topt, std::cout);
        if (*sweepCmd) return tb::sweep::SweepCli::run(sweepCmd, sopt, std::cout);
        if (*moe) return tb::MoeCli::run(moe, mopt, std::cout);
        if (*llm && *lsearch) return tb::LlmSearchCli::run(lsopt, std::cout);
        if (*llm) {
            prov.addConfigFile(lopt.hw, hw::ConfigOverrides(lopt.set));
            prov.setOverrides(lopt.set);
            prov.note("workload", fmt::format("llm {} {} plan {}",
                                              llm->got_subcommand("infer") ? "infer" : "train",
                                              lopt.model, lopt.plan));
            prov.note("seed", lopt.seed);
            lopt.provenance = &prov;
            return tb::LlmCli::run(llm, lopt, std::cout);
        }
        if (*bench) {
            if (*bkern) return tb::KernelCli::runBench(kopt, std::cout);
            if (*bllm) return tb::LlmCli::runBench(lopt, std::cout);
            if (*bnoc)
                tb::NocBench::run(std::cout,
                                  tb::NocBench::defaultCases(quick, bench_meshes, bench_threads),
                                  bench_repeat);
            if (*brtl) tb::RtlBench::run(std::cout, quick);
            return 0;
        }
    } catch (const hw::ConfigError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 2;
    } catch (const UsageError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 2;
    } catch (const firmware::ParseError& e) {
        // A user's firmware text (file:line, and the core and instruction when validation fails).
        fmt::print(stderr, "error: {}\n", e.what());
        return 2;
    } catch (const firmware::moe::TraceError& e) {
        // An expert trace that cannot be read or written (file, line, column, key).
        fmt::print(stderr, "error: {}\n", e.what());
        return 2;
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 2;
    } catch (const noc::ParamError& e) {
        // A NocParams value the network refused outside Preflight (e.g. a kernel's routes).
        fmt::print(stderr, "error: {} (key {})\n", e.what(), e.key());
        return 2;
    } catch (const tb::ResourceError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 2;
    } catch (const core::SramOverflowError& e) {
        // Buffers come from the workload and core.sram: an input that does not fit, not a bug.
        fmt::print(stderr, "error: {}\n", e.what());
        return 2;
    } catch (const noc::DeadlockError& e) {
        fmt::print(stderr, "error: {}", e.what());
        return 3;
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 1;
    }
    return 0;
}
