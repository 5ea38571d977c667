#include "testbench/KernelCli.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/SramOverflowError.h"
#include "firmware/model/ModelConfig.h"
#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "noc/DeadlockError.h"
#include "testbench/CliArgs.h"
#include "testbench/ForkedRun.h"
#include "testbench/KernelTestbench.h"
#include "testbench/Preflight.h"
#include "testbench/ResourceEstimate.h"
#include "testbench/RunOutputs.h"

namespace wsc::tb {

namespace {

// Strict (testbench/CliArgs): "4x", "4,", "-1", "0" are refused.
std::vector<uint32_t> parseUInts(const std::string& s, const std::string& flag, char sep) {
    std::vector<uint32_t> out;
    for (uint64_t v : CliArgs::parseUIntList(s, flag, 1, 1u << 20, sep))
        out.push_back(static_cast<uint32_t>(v));
    return out;
}

void addCommon(CLI::App* c, KernelCli::Options& o, const std::string& algos,
               const std::string& shape_help) {
    c->add_option("--algo", o.algo, "algorithm: " + algos);
    c->add_option("--mesh", o.mesh,
                  "P (a P x P core mesh) or PxQ (P rows, Q columns; every algorithm but "
                  "meshgemm-t), or a comma-separated list");
    c->add_option("--shape", o.shape, shape_help);
    c->add_option("--config", o.config, "hardware YAML (default configs/wse2_kernels.yaml)");
    CliArgs::addSet(c, o.set, "the --config file");
    c->add_flag("--compare", o.compare,
                "run every algorithm on the same shape and mesh, one table");
    c->add_flag("--timing-only", o.timing_only, "carry no values (same cycles, faster, no check)");
    c->add_flag("--unroll", o.unroll,
                "run the firmware's straight-line form (loops unrolled, swaps applied): same "
                "cycles, O(P) instructions per core");
    c->add_option("--table", o.table, "also write the table (markdown) to this file");
    c->add_option("--dump-firmware", o.firmware_text,
                  "write the firmware the run loads in the text form (docs/ISA.md)");
    CliArgs::addUInt(c, "--seed", o.seed, 0, UINT64_MAX, "seed of the operand values (default 1)");
    CliArgs::addUInt(c, "--threads", o.threads, 1, 256,
                     "threads that step the network's routers, from 4096 routers; same results "
                     "(default noc.threads, else 1; docs/NOC.md \"Threads\")");
    c->add_option("--stats", o.stats,
                  "write every counter (kernel report, per-core stats, every router, link and NI, "
                  "energy) to this JSON file");
    c->add_option("--heatmap", o.heatmap, "write the link-utilization heatmap of the run (SVG)");
    c->add_option("--perfetto", o.perfetto,
                  "write a Chrome/Perfetto trace JSON: per core a state track and one track per "
                  "unit, NoC counters");
    CliArgs::addBytes(c, "--max-memory", o.max_memory,
                      "refuse a run whose estimated memory exceeds SIZE, e.g. 8GB (default: the "
                      "memory available, MemAvailable)");
    c->add_option("--perfetto-unit", o.perfetto_unit,
                  "time unit of the Perfetto trace: ns (real time at the NoC clock, default) or "
                  "cycles (the viewer's us reads as cycles)")
        ->check(CLI::IsMember({"ns", "cycles"}));
    c->add_option("--perfetto-cores", o.perfetto_cores,
                  "cores in the Perfetto trace: indices and ranges, e.g. 0-15,32 (default: all)");
    CliArgs::addUInt(c, "--perfetto-max-spans", o.perfetto_max_spans, 0, UINT64_MAX,
                     "core tracks stop at the cycle this many spans are recorded (default "
                     "1000000, 0: no cap)");
}

// A kernel runs on a fault-free P x Q mesh with one core per router (kernelNoc), laid onto the
// config's dies: config keys that would be dropped are refused at their key instead (issue 13).
void refuseDroppedKeys(const hw::HardwareConfig& h) {
    const auto& t = h.noc.topology;
    const bool wafer = h.wafer.present;
    const std::string why =
        "wsc kernel runs the kernel on a fault-free P x Q mesh "
        "with one core per router and would ignore it; remove it from the "
        "config";
    if (h.noc.faults.any()) throw h.source.error("noc.faults", "faults: " + why);
    if (!h.noc.rtl_routers.empty())
        throw h.source.error("noc.rtl_routers", "RTL router positions: " + why);
    if (t.wrap)
        throw h.source.error(wafer ? "wafer.wrap" : "noc.topology.wrap", "wrap links: " + why);
    if (t.local_ports != 1)
        throw h.source.error(wafer ? "wafer.local_ports" : "noc.topology.local_ports",
                             "local ports: " + why);
    // Several dies: the kernel's mesh is laid onto them (KernelTestbench::meshNoc).
}

// "out.json" for one run; "out.meshgemm.8.json" for each run of several.
std::string outputPath(const std::string& path, bool several, const KernelSpec& s) {
    if (path.empty() || !several) return path;
    return RunOutputs::phasePath(path, s.algo + "." + KernelTestbench::meshName(s));
}

// The cache a decode step runs over, and the trees it reduces with (attention, decode).
void addCacheState(CLI::App* c, KernelCli::Options& o) {
    CliArgs::addUInt(c, "--prompt", o.prompt, 1, uint64_t{1} << 32,
                     "tokens in the cache after the prefill (default 1024)");
    CliArgs::addUInt(c, "--generated", o.generated, 0, uint64_t{1} << 32,
                     "tokens decoded before the simulated step (default 0)");
    CliArgs::addUInt(c, "--tree-k", o.tree_k, 1, 8, "levels of every K-tree reduction (default 2)");
}

// A kernel whose shapes come from a model file: --model, --layers and (with prompt_help)
// --prompt besides the common options.
CLI::App* addModelKernel(CLI::App* k, KernelCli::Options& o, const char* name,
                         const std::string& what, const char* algos, const char* layers_help,
                         const char* prompt_help) {
    auto* c = k->add_subcommand(name, what);
    addCommon(c, o, algos, "(not used: the model gives the shapes)");
    c->add_option("--model", o.model, "model file (HuggingFace config.json, e.g. configs/models/*)")
        ->required();
    CliArgs::addUInt(c, "--layers", o.layers, 1, 1024, layers_help);
    if (prompt_help) CliArgs::addUInt(c, "--prompt", o.prompt, 1, uint64_t{1} << 31, prompt_help);
    return c;
}

}  // namespace

// The decode layer's shape from a model file: dense, gated SiLU FFN, RMSNorm, plain multi-head
// or grouped-query attention; anything else is refused naming the file and what is missing.
firmware::waferllm::LayerShape KernelCli::decodeShape(const firmware::model::ModelConfig& m) {
    auto refuse = [&](const std::string& what) {
        return std::invalid_argument(fmt::format(
            "{}: WaferLLM's decode and prefill layers (wsc kernel decode, prefill, kv-replace, "
            "weight-replace, llm infer on a core mesh) are dense decoder layers with a gated SiLU "
            "FFN, RMSNorm and "
            "multi-head or grouped-query attention; this model {}",
            m.source, what));
    };
    if (m.isMoe()) throw refuse("has mixture-of-experts layers");
    if (m.isMla()) throw refuse("uses multi-head latent attention");
    if (!m.gated_mlp || m.activation != firmware::model::Activation::Silu)
        throw refuse("has no gated SiLU FFN");
    if (m.norm != firmware::model::NormKind::RmsNorm) throw refuse("uses LayerNorm");
    if (m.attention_bias || m.mlp_bias || m.qkv_bias) throw refuse("has projection biases");
    auto fits = [&](uint64_t v, const char* key) {
        if (v == 0 || v > UINT32_MAX) throw refuse(fmt::format("has {} = {}", key, v));
        return uint32_t(v);
    };
    firmware::waferllm::LayerShape s;
    s.hidden = fits(m.hidden, "hidden_size"), s.heads = fits(m.heads, "num_attention_heads");
    s.kv_heads = fits(m.kv_heads, "num_key_value_heads"), s.head_dim = fits(m.head_dim, "head_dim");
    s.ffn = fits(m.intermediate, "intermediate_size");
    return s;
}

CLI::App* KernelCli::add(CLI::App& app, Options& o) {
    auto* k = app.add_subcommand("kernel",
                                 "WaferLLM kernels on a P x P core mesh (PLMR metrics, cycles)");
    auto* g = k->add_subcommand(
        "gemm", "C = A x B: meshgemm, cannon, summa, allgather; C = A x B^T: meshgemm-t");
    addCommon(g, o,
              "meshgemm, cannon, summa, allgather, meshgemm-t (C = A x B^T, B stored N x K; "
              "default meshgemm)",
              "MxKxN or S for S x S x S (default 64)");
    g->add_flag("--shift-align", o.shift_align,
                "meshgemm/cannon: align by ring shifts instead of by placement");
    CliArgs::addUInt(g, "--tree-k", o.tree_k, 1, 8,
                     "meshgemm-t: levels of the K-tree that reduce-adds the partials (default 2)");
    auto* v = k->add_subcommand("gemv", "y = x W: meshgemv (K-tree), pipeline, ring allreduce");
    addCommon(v, o, "meshgemv, pipeline, ring (default meshgemv)",
              "KxN or S for S x S (default 256)");
    CliArgs::addUInt(v, "--tree-k", o.tree_k, 1, 8, "meshgemv: levels of the K-tree (default 2)");
    v->add_flag("--broadcast", o.broadcast,
                "multicast the reduced result back to every core of its column");
    auto* at = k->add_subcommand(
        "attention",
        "one decode step of attention over a KV cache on P x Q cores: shift (WaferLLM) or concat");
    addCommon(at, o, "shift, concat: the KV cache policy (default shift)",
              "D: the head dimension, split over the Q columns (default 128)");
    CliArgs::addUInt(at, "--q-heads", o.q_heads, 1, 64,
                     "query heads sharing the KV head (GQA group; default 1)");
    addCacheState(at, o);
    auto* de = addModelKernel(
        k, o, "decode",
        "one decode step (one token) through dense layers of --model on P x Q cores, as one "
        "per-core program (WaferLLM's decode layout; docs/KERNELS.md \"Decode layer\")",
        "shift, concat: the KV cache policy (default shift)",
        "layers in the program, each with its own weights (default 1)", nullptr);
    addCacheState(de, o);
    auto* pf = addModelKernel(
        k, o, "prefill",
        "the prefill of a prompt through dense layers of --model on P x P cores, as one per-core "
        "program (WaferLLM's prefill layout; docs/KERNELS.md \"Prefill layer\")",
        "meshgemm (the only one)", "layers in the program, each with its own weights (default 1)",
        "prompt tokens, a multiple of P (default 1024)");
    CliArgs::addUInt(pf, "--tree-k", o.tree_k, 1, 8,
                     "levels of every K-tree reduction (default 2)");
    addModelKernel(k, o, "kv-replace",
                   "the prompt's KV cache of --model moved from the prefill's layout (P x P, P "
                   "the smaller side) to the decode's (P x Q) as NoC traffic (docs/KERNELS.md "
                   "\"Prefill layer\")",
                   "shift, concat: the decode's cache policy (default shift)",
                   "layers whose caches move at once (default 1)",
                   "prompt tokens, a multiple of P (default 1024)");
    addModelKernel(k, o, "weight-replace",
                   "the weights of --model moved from the prefill's placement (P x P, P the "
                   "smaller side) to the decode's (P x Q) as NoC traffic (docs/KERNELS.md "
                   "\"Prefill layer\")",
                   "shift (the only one: weights do not depend on the cache policy)",
                   "layers whose weights move at once (default 1)",
                   "the prefill's prompt, a multiple of P (its layout's checks; default 1024)");
    k->require_subcommand(1);
    return k;
}

CLI::App* KernelCli::addBench(CLI::App* bench, Options& o) {
    auto* b = bench->add_subcommand(
        "kernels",
        "MeshGEMM and MeshGEMV simulation speed at P = 64 .. 512 (wall, CPU, cycles/s, peak RSS)");
    b->add_option("--meshes", o.bench_meshes, "comma-separated P (default 64,128,256,512)");
    b->add_option("--ops", o.bench_ops,
                  "gemm, gemv, decode (one layer of --model, one token), comma-separated (default "
                  "gemm,gemv)");
    b->add_option("--model", o.bench_model,
                  "decode: the model (default configs/models/llama3-8b.json)");
    CliArgs::addUInt(b, "--tile", o.bench_tile, 1, 64,
                     "GEMM tile edge per core: shape (tile P)^3 (default 2)");
    b->add_option("--config", o.config, "hardware YAML (default configs/wse2_kernels.yaml)");
    CliArgs::addSet(b, o.set, "the --config file");
    CliArgs::addUInt(b, "--threads", o.threads, 1, 256,
                     "threads that step the network's routers, from 4096 routers; same results "
                     "(default noc.threads, else 1; docs/NOC.md \"Threads\")");
    return b;
}

int KernelCli::run(CLI::App* kernel, const Options& o, std::ostream& os) {
    const bool gemv = kernel->got_subcommand("gemv");
    const bool attention = kernel->got_subcommand("attention");
    const bool decode = kernel->got_subcommand("decode");
    const bool prefill = kernel->got_subcommand("prefill");
    const bool replace = kernel->got_subcommand("kv-replace");
    const bool wreplace = kernel->got_subcommand("weight-replace");
    const std::string op = gemv        ? "gemv"
                           : attention ? "attention"
                           : decode    ? "decode"
                           : prefill   ? "prefill"
                           : replace   ? "kv-replace"
                           : wreplace  ? "weight-replace"
                                       : "gemm";
    hw::HardwareConfig h = hw::HardwareLoader::loadFile(o.config, hw::ConfigOverrides(o.set));
    if (o.threads) h.noc.threads = o.threads;
    refuseDroppedKeys(h);
    const auto& names = KernelTestbench::algorithms(op);
    std::vector<std::string> algos;
    if (o.compare) {
        if (!o.algo.empty())
            throw std::invalid_argument("--compare runs every algorithm; drop --algo");
        algos = names;
    } else {
        algos = {o.algo.empty() ? names.front() : o.algo};
    }
    KernelSpec base;
    base.op = op;
    base.tree_k = o.tree_k, base.broadcast = o.broadcast, base.shift_align = o.shift_align;
    base.unroll = o.unroll;
    base.functional = !o.timing_only, base.seed = o.seed;
    base.progress = true;
    const std::vector<uint32_t> shape = parseUInts(o.shape.empty() ? (gemv        ? "256"
                                                                      : attention ? "128"
                                                                                  : "64")
                                                                   : o.shape,
                                                   "--shape", 'x');
    if (decode || prefill || replace || wreplace) {
        if (!o.shape.empty())
            throw UsageError(
                fmt::format("--shape is not used by kernel {} (--model gives the shapes)", op));
        const firmware::model::ModelConfig mc = hw::ModelConfigLoader::loadFile(o.model);
        base.layer = decodeShape(mc);
        base.layers = o.layers;
        base.model_layers = uint32_t(std::min<uint64_t>(mc.layers, UINT32_MAX));
        base.m = uint32_t(mc.heads / mc.kv_heads), base.k = uint32_t(mc.head_dim);
        base.n = uint32_t(mc.hidden);
        base.prompt = o.prompt, base.generated = o.generated;
    } else if (attention) {
        if (shape.size() != 1) throw std::invalid_argument("--shape: attention takes D");
        base.m = o.q_heads, base.k = shape[0], base.n = shape[0];
        base.prompt = o.prompt, base.generated = o.generated;
    } else if (gemv) {
        if (shape.size() > 2) throw std::invalid_argument("--shape: gemv takes KxN or S");
        base.m = 1, base.k = shape[0], base.n = shape.back();
    } else {
        if (shape.size() != 1 && shape.size() != 3)
            throw std::invalid_argument("--shape: gemm takes MxKxN or S");
        base.m = shape[0], base.k = shape.size() == 3 ? shape[1] : shape[0], base.n = shape.back();
    }
    // --mesh P[,P...] or PxQ (P rows by Q columns; non-square GEMMs by the lcm rule).
    std::vector<std::pair<uint32_t, uint32_t>> meshes;
    {
        for (const std::string& item : CliArgs::parseStrings(o.mesh, "--mesh")) {
            const std::vector<uint32_t> pq = parseUInts(item, "--mesh", 'x');
            if (pq.size() > 2)
                throw std::invalid_argument(
                    fmt::format("--mesh: expected P or PxQ, got '{}'", item));
            meshes.emplace_back(pq[0], pq.size() == 2 && pq[1] != pq[0] ? pq[1] : 0);
        }
        if (meshes.empty()) throw std::invalid_argument("--mesh: empty");
    }
    // A mesh larger than a config of several dies: refused at the dies key before any run.
    if (h.noc.topology.die_x &&
        (h.noc.topology.die_x < h.noc.topology.x || h.noc.topology.die_y < h.noc.topology.y))
        for (const auto& [p, q] : meshes) {
            KernelSpec s = base;
            s.algo = o.algo.empty() ? names.front() : o.algo, s.p = p, s.q = q;
            try {
                (void)KernelTestbench::meshNoc(h.noc, s);
            } catch (const std::invalid_argument& e) {
                throw h.source.error(h.wafer.present ? "wafer.dies" : "noc.topology.die", e.what());
            }
        }
    // Check every name before the first (possibly long) run.
    for (const auto& a : algos)
        if (!KernelTestbench::known(op, a)) {
            std::string all;
            for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
            if (op == "gemm") all += ", meshgemm-t";
            throw std::invalid_argument(
                fmt::format("--algo: unknown {} algorithm '{}' (expected one of {})", op, a, all));
        }

    // Outputs: checked before the first run.
    const CLI::App* sub = kernel->get_subcommands().front();
    if (o.perfetto.empty() && (sub->count("--perfetto-cores") ||
                               sub->count("--perfetto-max-spans") || sub->count("--perfetto-unit")))
        throw std::invalid_argument(
            "--perfetto-cores, --perfetto-max-spans and --perfetto-unit need --perfetto FILE.json");
    // Flags the chosen algorithm does not use (with --compare each applies where it can).
    const auto given = [sub](const char* flag) {
        const CLI::Option* opt = sub->get_option_no_throw(flag);
        return opt && opt->count() > 0;
    };
    if (!o.compare) {
        const std::string algo = algos.front();
        if (given("--tree-k") && algo != "meshgemm-t" && algo != "meshgemv" && !attention &&
            !decode && !prefill)
            throw UsageError(
                fmt::format("--tree-k is not used by {} (only meshgemm-t and meshgemv "
                            "reduce through a K-tree)",
                            algo));
        if (given("--shift-align") && algo != "meshgemm" && algo != "cannon")
            throw UsageError(fmt::format(
                "--shift-align is not used by {} (only meshgemm and cannon align tiles)", algo));
    }
    CliArgs::checkOutputs({{"--stats", o.stats},
                           {"--table", o.table},
                           {"--heatmap", o.heatmap},
                           {"--perfetto", o.perfetto},
                           {"--dump-firmware", o.firmware_text}},
                          {o.config});
    CoreTimelineRecorder::Options trace;
    if (!o.perfetto_cores.empty())
        trace.cores = CoreTimelineRecorder::parseCores(o.perfetto_cores, "--perfetto-cores");
    trace.max_spans = o.perfetto_max_spans;
    // Memory of each mesh (network and cores), before the first run: a --mesh too large for the
    // machine is refused at once rather than failing in std::bad_alloc.
    {
        const RunBudget budget = RunBudget::of(o.max_memory);
        for (const auto& [p, q] : meshes) {
            KernelSpec s = base;
            s.p = p, s.q = q;
            hw::ScenarioConfig sc;
            sc.setHardware(h);
            sc.noc = KernelTestbench::meshNoc(h.noc, s);
            sc.workload_type = "kernel";
            const std::string m =
                ResourceEstimate::exceeds(ResourceEstimate::of(sc), budget.bytes, budget.source);
            if (!m.empty())
                throw UsageError(fmt::format("--mesh {}: {}", KernelTestbench::meshName(s), m));
        }
    }
    const bool outputs = !o.stats.empty() || !o.heatmap.empty() || !o.perfetto.empty();
    const bool several = algos.size() * meshes.size() > 1;
    std::ostringstream written;  // the outputs' summary lines, printed after the report or table

    std::vector<KernelResult> results;
    bool ok = true;
    for (const auto& [p, q] : meshes)
        for (const auto& a : algos) {
            KernelSpec s = base;
            s.algo = a, s.p = p, s.q = q;
            KernelRunOptions ro;
            ro.energy = h.energy;
            ro.firmware_text = outputPath(o.firmware_text, several, s);
            std::unique_ptr<RunOutputs> out;
            nlohmann::json stats;
            const std::string stats_path = outputPath(o.stats, several, s);
            if (outputs) {
                hw::ScenarioConfig sc;
                sc.setHardware(h);
                sc.noc = KernelTestbench::meshNoc(h.noc, s);
                sc.workload_type = "kernel";
                sc.name = fmt::format("kernel {} {} {}x{}x{} on {} ({} cores)", op, a, base.m,
                                      base.k, base.n, KernelTestbench::meshName(s), o.config);
                out = std::make_unique<RunOutputs>(sc, outputPath(o.heatmap, several, s),
                                                   outputPath(o.perfetto, several, s), trace);
                out->setPerfettoUnit(o.perfetto_unit);
                ro.observers = out->observers();
                if (!stats_path.empty()) ro.stats = &stats;
            }
            try {
                results.push_back(KernelTestbench::run(h.noc, h.core, s, ro));
                if (out) {
                    if (several)
                        fmt::print(written, "{} P = {}:\n", a, KernelTestbench::meshName(s));
                    out->finishKernel(results.back(), written, ro.stats);
                    if (ro.stats) {
                        const RunProvenance none;
                        (o.provenance ? *o.provenance : none)
                            .writeStats(stats_path, std::move(stats));
                        fmt::print(written, "  stats               {}\n", stats_path);
                    }
                }
            } catch (const noc::DeadlockError& e) {
                // Found, not hidden: the run stopped in a NoC deadlock; say so in its row.
                if (algos.size() * meshes.size() == 1) throw;
                KernelResult r;
                r.spec = s;
                r.notes = "NoC deadlock";
                results.push_back(r);
                ok = false;
                continue;
            } catch (const core::SramOverflowError& e) {
                // PLMR M: in a sweep or comparison an algorithm that does not fit is a result
                // (a row saying so), not the end of the run.
                if (algos.size() * meshes.size() == 1) throw;
                KernelResult r;
                r.spec = s;
                r.notes = e.what();
                results.push_back(r);
                continue;
            }
            ok &= !results.back().checked || results.back().correct;
        }
    if (results.size() == 1) {
        KernelTestbench::printReport(os, results.front());
    } else {
        fmt::print(os, "{} [{}x{}] x [{}x{}], {}\n\n", op, base.m, base.k, base.k, base.n,
                   o.config);
        KernelTestbench::printTableHeader(os);
        for (const auto& r : results) KernelTestbench::printTableRow(os, r);
        if (outputs) fmt::print(os, "\n");
    }
    os << written.str();
    if (!o.table.empty()) {
        std::ofstream f(o.table);
        if (!f) throw std::runtime_error("cannot write " + o.table);
        fmt::print(f, "{} [{}x{}] x [{}x{}] ({})\n\n", op, base.m, base.k, base.k, base.n,
                   o.config);
        KernelTestbench::printTableHeader(f);
        for (const auto& r : results) KernelTestbench::printTableRow(f, r);
    }
    return ok ? 0 : 1;
}

namespace {

// One bench case in a forked child, so the peak RSS and CPU time are that case's own (and a run
// that dies takes only its row with it).
struct BenchRow {
    bool ok = false;
    std::string error;
    uint64_t cycles = 0, evaluations = 0, program_bytes = 0;
    double wall = 0, cpu = 0;
    long rss_kb = 0;
};

BenchRow benchCase(const hw::HardwareConfig& h, const KernelSpec& s) {
    BenchRow row;
    const ForkedResult f = ForkedRun::run([&] {
        const KernelResult r = KernelTestbench::run(h.noc, h.core, s);
        return fmt::format("{} {} {} {}", r.cycles, r.wall_seconds, r.evaluations, r.program_bytes);
    });
    row.rss_kb = f.max_rss_kb;
    row.cpu = f.cpu_seconds;
    if (f.ok) {
        std::istringstream in(f.answer);
        in >> row.cycles >> row.wall >> row.evaluations >> row.program_bytes;
        row.ok = bool(in);
    } else {
        row.error = f.answer;
    }
    return row;
}

}  // namespace

int KernelCli::runBench(const Options& o, std::ostream& os) {
    hw::HardwareConfig h = hw::HardwareLoader::loadFile(o.config, hw::ConfigOverrides(o.set));
    if (o.threads) h.noc.threads = o.threads;
    refuseDroppedKeys(h);
    const std::vector<std::string> ops = CliArgs::parseStrings(o.bench_ops, "--ops");
    for (const auto& op : ops)
        if (op != "gemm" && op != "gemv" && op != "decode")
            throw UsageError(fmt::format("--ops: expected gemm, gemv or decode, got '{}'", op));
    const bool decode = std::find(ops.begin(), ops.end(), "decode") != ops.end();
    const firmware::model::ModelConfig mc =
        decode ? hw::ModelConfigLoader::loadFile(o.bench_model) : firmware::model::ModelConfig{};
    // Refused before the table starts (an MoE model, say), not inside its first row.
    const firmware::waferllm::LayerShape shape =
        decode ? decodeShape(mc) : firmware::waferllm::LayerShape{};
    // Decode rows run with SRAM raised to 64 MB, so a mesh too small to hold the layer in the
    // config's SRAM is still timed (capacity does not change cycles; only the SRAM check).
    hw::HardwareConfig hd = h;
    hd.core.sram.capacity_bytes = std::max<uint64_t>(h.core.sram.capacity_bytes, 64ull << 20);
    const std::vector<uint32_t> meshes = parseUInts(o.bench_meshes, "--meshes", ',');
    fmt::print(os, "Kernel simulation speed (timing-only, one forked process per row), {}\n",
               o.config);
    fmt::print(os,
               "gemm: MeshGEMM, a {0} x {0} tile per core, M = K = N = {0} P; gemv: MeshGEMV "
               "(K = 2), a 64 x 64 fp32 weight tile per core, K = N = 64 P{1}\n\n",
               o.bench_tile,
               decode ? fmt::format("; decode: one layer of {}, one token after a 2048-token "
                                    "prompt, shift cache, P x P cores, SRAM raised to 64 MB",
                                    mc.name)
                      : std::string());
    fmt::print(os,
               "| kernel | P | cores | simulated cycles | wall s | CPU s | simulated cycles/s | "
               "core evaluations | program B/core | peak RSS MB |\n");
    fmt::print(os, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    bool ok = true;
    for (const auto& op : ops)
        for (uint32_t p : meshes) {
            KernelSpec s;
            s.op = op, s.p = p, s.functional = false;
            if (op == "gemm") {
                s.algo = "meshgemm", s.m = s.k = s.n = o.bench_tile * p;
            } else if (op == "gemv") {
                s.algo = "meshgemv", s.m = 1, s.k = s.n = 64 * p;
            } else {
                s.algo = "shift", s.layer = shape, s.layers = 1, s.prompt = 2048;
                s.m = uint32_t(mc.heads / mc.kv_heads), s.k = uint32_t(mc.head_dim);
                s.n = uint32_t(mc.hidden);
            }
            const BenchRow r = benchCase(op == "decode" ? hd : h, s);
            if (!r.ok) {
                fmt::print(os, "| {} | {} | error: {} |\n", op == "decode" ? "decode" : s.algo, p,
                           r.error);
                ok = false;
                continue;
            }
            fmt::print(os, "| {} | {} | {} | {} | {:.2f} | {:.2f} | {:.0f} | {} | {} | {:.0f} |\n",
                       op == "decode" ? "decode" : s.algo, p, uint64_t(p) * p, r.cycles, r.wall,
                       r.cpu, double(r.cycles) / r.wall, r.evaluations, r.program_bytes,
                       double(r.rss_kb) / 1024);
            os.flush();
        }
    return ok ? 0 : 1;
}

}  // namespace wsc::tb
