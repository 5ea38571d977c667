#include "testbench/LlmCli.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "firmware/llm/MemoryLedger.h"
#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/CliArgs.h"
#include "testbench/CoreDecodeRun.h"
#include "testbench/LlmTestbench.h"
#include "testbench/RunOutputs.h"

namespace wsc::tb {

namespace {

void addCommon(CLI::App* c, LlmCli::Options& o, bool train) {
    c->add_option("--model", o.model, "HuggingFace config.json (configs/models/)")->required();
    c->add_option("--hw", o.hw, "die-level hardware YAML (e.g. configs/temp_4x8_die_level.yaml)")
        ->required();
    CliArgs::addSet(c, o.set, "the --hw file");
    c->add_option("--plan", o.plan,
                  "parallel plan, e.g. dp=2,tp=4,pp=4[,mb=8][,seqpar] or dp=2,tatp=16 (keys dp "
                  "fsdp tp sp pp ep tatp mb); its degrees multiply to the die count");
    c->add_option("--placement", o.placement,
                  "rank placement: ring (contiguous physical rings for the innermost group; "
                  "ring-tp, ring-tatp, ring-sp, ring-fsdp, ring-dp: for that dimension's), "
                  "snake, row-major, tcme, "
                  "watos (WATOS Eq. 2: tp x pp plans, stages placed by their pipeline and "
                  "--offload traffic), or the die of every rank as a list, e.g. 0,1,5,4 "
                  "(default ring)");
    c->add_option("--mapping", o.mapping,
                  "a paper's placement: TEMP's smap (sequential: row-major) or tcme (ring "
                  "blocks, TATP chains ordered by TCME's traffic optimizer); MoEntwine's "
                  "baseline (a block per TP group) or er (ER-Mapping: entwined TP groups, "
                  "compact full token domains) or her (hierarchical ER on a multi-wafer config: "
                  "every wafer one FTD); replaces --placement");
    c->add_option("--tcme-moves", o.tcme_moves,
                  "what placement tcme may change (comma list): reorder (chain orders, which "
                  "rings go innermost; always on) and reroute (source-destination pairs onto "
                  "their Y-first paths, installed as route-table entries); default "
                  "reorder,reroute")
        ->each([&o](const std::string&) { o.tcme_moves_given = true; });
    c->add_option("--tcme-cost", o.tcme_cost,
                  "how placement tcme weighs a link: flows (flows per round and link, every "
                  "group's rounds at once, TEMP's picture) or bytes (bytes per link over a "
                  "layer, each flow weighted by what its collective moves; beside tp or sp); "
                  "default flows")
        ->each([&o](const std::string&) { o.tcme_cost_given = true; });
    CliArgs::addUInt(c, "--batch", o.batch, 1, uint64_t{1} << 32,
                     train ? "sequences per step (required)" : "sequences (default 1)");
    if (train)
        CliArgs::addUInt(c, "--seq", o.seq, 1, uint64_t{1} << 24, "tokens per sequence (required)");
    else {
        CliArgs::addUInt(c, "--prompt", o.prompt, 1, uint64_t{1} << 24,
                         "prompt tokens per sequence (required)");
        CliArgs::addUInt(c, "--generate", o.generate, 0, uint64_t{1} << 24,
                         "tokens decoded after the prefill (default 0)");
    }
    if (!train) {
        c->add_option("--kv", o.kv,
                      "core mesh (one die of many cores, no --plan): the KV cache policy, shift "
                      "(WaferLLM) or concat (default shift)");
        CliArgs::addUInt(c, "--prefill-word-hops", o.prefill_word_hops, 1, uint64_t{1} << 50,
                         "core mesh: simulate the prefill layer directly up to this many "
                         "word-hops, else extrapolate it from two smaller blocks with the same "
                         "per-core tiles; the KV and weight re-placements run only within it "
                         "too (default 300000000, about a minute here)");
        c->add_option("--gating", o.gating,
                      "route tokens with a seeded gating model: uniform, zipf or temporal "
                      "(docs/MOE.md); default: every expert gets tokens x k / E rows");
        c->add_option("--gating-seed", o.gating_seed, "gating model seed (default 1)");
        c->add_option("--zipf-s", o.zipf_s, "zipf gating: exponent s (default 1.0)");
        c->add_option("--hot-experts", o.hot_experts, "temporal gating: hot set size (default 4)");
        c->add_option("--hot-probability", o.hot_probability,
                      "temporal gating: probability a pick is hot (default 0.8)");
        c->add_option("--drift", o.drift,
                      "temporal gating: per-iteration replacement rate (default 0.1)");
        c->add_option("--trace", o.trace,
                      "route tokens by a JSON Lines expert trace (docs/MOE.md \"Trace format\"); "
                      "its tokens per iteration must be --batch x --prompt");
        c->add_option("--iteration", o.iteration,
                      "the gating model's or trace's iteration to simulate (default 0)");
        c->add_option("--balancer", o.balancer,
                      "copy hot experts into shadow slots from the previous iteration's load: "
                      "none (default), greedy or topo (MoEntwine Algorithm 1; both migrate "
                      "before the step, interrupting it), or ni (NI-Balancer: the next "
                      "iteration's copies move on cold links during the step; needs --mapping "
                      "er or baseline)");
        c->add_option("--expert-slots", o.expert_slots,
                      "--balancer: shadow slots per die (default 1)");
        c->add_flag("--overlap", o.overlap,
                    "overlap micro-batches (MoEntwine Fig. 11e): each operator for every "
                    "micro-batch in turn, a micro-batch's collectives on their own stream while "
                    "compute runs the next; needs mb >= 2 and pp = 1");
        c->add_flag("--no-migration", o.no_migration,
                    "--balancer: place the copies without simulating their migration (the step "
                    "as if moving experts were free; the reference for the migration's cost)");
    }
    if (train)
        c->add_option("--recompute", o.recompute,
                      "activation recomputation per pipeline stage (docs/LLM.md "
                      "\"Recomputation\"): none (default), uniform (one choice sized for the "
                      "fullest stage) or gcmr (WATOS Algorithm 2: a choice per stage)");
    if (train)
        c->add_flag("--offload", o.offload,
                    "checkpoint offload (docs/LLM.md \"Checkpoint offload\"): stages over their "
                    "dies' memory send their first layers' kept activations to stages with room "
                    "over D2D and take them back for the backward (WATOS Algorithm 3); with "
                    "--recompute gcmr the programme pools the stages' memory; simulates every "
                    "layer");
    if (train)
        c->add_option("--pp-links", o.pp_links,
                      "paths of the inter-stage transfers (pipeline and offload pairs): routing "
                      "(the network's routing, default) or watos (WATOS Fig. 13: largest "
                      "transfer first, each on the minimal path least used by the ones before, "
                      "installed as pair routes; docs/LLM.md \"Inter-stage links\")");
    CliArgs::addUInt(c, "--micro-batches", o.micro_batches, 1, 1u << 16,
                     "micro-batches per step (default: the plan's mb, else pp)");
    c->add_option("--dtype", o.dtype, "weights and activations: fp16 or bf16 (default fp16)");
    c->add_option("--memory", o.memory,
                  "HBM fidelity: bandwidth (latency/bandwidth model of each stack, default) or "
                  "hbm (cycle-level HBM3 controllers)");
    c->add_flag("--memory-only", o.memory_only,
                "build the whole step's memory ledger (and --recompute's choices) and report "
                "memory per die and per stage without simulating (milliseconds)");
    c->add_flag("--full", o.full,
                "simulate every layer instead of composing from 1 and 2 layers per stage");
    c->add_option("--compare", o.compare,
                  "run several plans, one table: PLAN;PLAN;... (quote it for the shell)");
    c->add_option("--compare-mappings", o.compare_mappings,
                  "run --plan under several --mapping names, one table: e.g. baseline,er");
    c->add_option("--table", o.table,
                  "--compare, --compare-mappings: also write the table (markdown) to this file");
    CliArgs::addUInt(c, "--seed", o.seed, 0, UINT64_MAX, "network seed (default 1)");
    c->add_option("--stats", o.stats,
                  "write the report's numbers, memory per die, every run and the inputs to this "
                  "JSON file");
    c->add_option("--heatmap", o.heatmap,
                  "link-utilization heatmap of the last simulated run (SVG), and one per phase "
                  "of the step beside it (OUT.phase-<kind>.svg) with the links each keeps hot");
    c->add_option("--perfetto", o.perfetto,
                  "Chrome/Perfetto trace of the last simulated run: a process per die, a track "
                  "per unit (compute, vector, send, receive, dma, wait)");
    c->add_option("--perfetto-unit", o.perfetto_unit,
                  "time unit of the Perfetto trace: ns (real time at the NoC clock, default) or "
                  "cycles (the viewer's us reads as cycles)")
        ->check(CLI::IsMember({"ns", "cycles"}));
}

firmware::DType parseDType(const std::string& s) {
    if (s == "fp16") return firmware::DType::FP16;
    if (s == "bf16") return firmware::DType::BF16;
    throw std::invalid_argument(fmt::format("--dtype: expected fp16 or bf16, got '{}'", s));
}

}  // namespace

CLI::App* LlmCli::add(CLI::App& app, Options& o) {
    auto* l = app.add_subcommand(
        "llm", "an LLM training step or inference (prefill, decode) on a die-level wafer");
    auto* t = l->add_subcommand("train", "one training step: forward, backward, optimizer");
    addCommon(t, o, true);
    auto* i = l->add_subcommand("infer", "prefill of a prompt, then decode of --generate tokens");
    addCommon(i, o, false);
    l->require_subcommand(1);
    return l;
}

CLI::App* LlmCli::addBench(CLI::App* bench, Options& o) {
    auto* b = bench->add_subcommand(
        "llm", "simulation speed of the committed LLM steps (wall time, peak RSS)");
    b->add_option("--out", o.bench_out, "write the table (markdown) to this file");
    b->add_option("--root", o.bench_root,
                  "the wsc checkout whose configs/ the plans use (default: the current directory)");
    b->add_flag("--quick", o.bench_quick, "only the first plan of each model (a smoke run)");
    return b;
}

int LlmCli::run(CLI::App* llm, const Options& o, std::ostream& os) {
    const bool train = llm->got_subcommand("train");
    const hw::HardwareConfig hwc = hw::HardwareLoader::loadFile(o.hw, hw::ConfigOverrides(o.set));
    // One die of many cores (the WSE-2 configs) without a die-level plan: WaferLLM's decode on
    // the core mesh (CoreDecodeRun), not the die-level step.
    if (!train && o.plan.empty() && o.compare.empty() && CoreDecodeRun::applies(hwc)) {
        if (!o.prompt) throw std::invalid_argument("wsc llm infer needs --prompt");
        // The die-level flags would be silently ignored here: refuse them.
        const CLI::App* sub = llm->get_subcommand("infer");
        for (const CLI::Option* opt : sub->get_options()) {
            const std::string name = opt->get_name();
            if (opt->count() == 0 || name == "--model" || name == "--hw" || name == "--prompt" ||
                name == "--generate" || name == "--kv" || name == "--set" || name == "--help" ||
                name == "--perfetto" || name == "--perfetto-unit" || name == "--prefill-word-hops")
                continue;
            throw std::invalid_argument(fmt::format(
                "{} is not used by WaferLLM's decode on a core mesh ({} is one die of {}x{} "
                "cores; it takes --model, --hw, --prompt, --generate, --kv, --prefill-word-hops, "
                "--set and --perfetto; `wsc kernel decode` writes --stats)",
                name, o.hw, hwc.wafer.cores_y, hwc.wafer.cores_x));
        }
        CoreDecodeRun::Request q;
        q.model = o.model, q.hw_path = o.hw, q.hw = hwc;
        q.prompt = o.prompt, q.generate = o.generate, q.kv = o.kv;
        q.prefill_word_hops = o.prefill_word_hops;
        if (o.perfetto.empty() && o.perfetto_unit != "ns")
            throw std::invalid_argument("--perfetto-unit needs --perfetto FILE.json");
        if (!o.perfetto.empty()) CliArgs::checkOutputs({{"--perfetto", o.perfetto}}, {o.hw});
        q.perfetto = o.perfetto, q.perfetto_unit = o.perfetto_unit;
        return CoreDecodeRun::run(q, os);
    }
    if (o.kv != "shift")
        throw std::invalid_argument(
            "--kv is for WaferLLM's decode on a core mesh (a one-die config of many cores, "
            "without --plan)");
    if (!train && llm->get_subcommand("infer")->get_option("--prefill-word-hops")->count())
        throw std::invalid_argument(
            "--prefill-word-hops is for WaferLLM's prefill on a core mesh (a one-die config of "
            "many cores, without --plan)");
    return runWith(o, train, hwc, hw::ModelConfigLoader::loadFile(o.model), os);
}

int LlmCli::runScenario(const hw::ScenarioConfig& sc, const std::string& scenario_file,
                        const std::string& stats, const std::string& heatmap,
                        const std::string& perfetto, const RunProvenance& provenance,
                        std::ostream& os) {
    const firmware::llm::LlmWorkload& w = sc.llm;
    Options o;
    o.model = w.model_path;
    o.hw = scenario_file;
    o.plan = w.plan.str();
    o.placement = w.placement;
    o.placement_list = w.placement_list;
    o.memory = w.memory;
    o.dtype = w.dtype;
    o.batch = w.batch;
    if (w.train)
        o.seq = w.seq;
    else
        o.prompt = w.seq, o.generate = w.generate;
    o.full = w.full;
    o.recompute = w.recompute;
    o.offload = w.offload;
    o.pp_links = w.pp_links;
    o.seed = w.seed;
    o.stats = stats, o.heatmap = heatmap, o.perfetto = perfetto;
    o.provenance = &provenance;
    return runWith(o, w.train, sc.hardware(), w.model, os);
}

firmware::llm::RoutingOptions LlmCli::routingOptions(const Options& o) {
    using firmware::llm::RoutingOptions;
    RoutingOptions r;
    if (!o.gating.empty() && !o.trace.empty())
        throw std::invalid_argument("--gating and --trace both route tokens: give one");
    auto refuseWithout = [](const std::string& v, const char* flag, bool ok, const char* needs) {
        if (!v.empty() && !ok) throw std::invalid_argument(fmt::format("{} needs {}", flag, needs));
    };
    const bool routed = !o.gating.empty() || !o.trace.empty();
    refuseWithout(o.iteration, "--iteration", routed, "--gating or --trace");
    refuseWithout(o.balancer, "--balancer", routed, "--gating or --trace");
    refuseWithout(o.gating_seed, "--gating-seed", !o.gating.empty(), "--gating");
    if (o.no_migration && (o.balancer.empty() || o.balancer == "none"))
        throw std::invalid_argument("--no-migration needs --balancer greedy, topo or ni");
    refuseWithout(o.expert_slots, "--expert-slots", !o.balancer.empty() && o.balancer != "none",
                  "--balancer greedy, topo or ni");
    const bool zipf = o.gating == "zipf", temporal = o.gating == "temporal";
    refuseWithout(o.zipf_s, "--zipf-s", zipf, "--gating zipf");
    refuseWithout(o.hot_experts, "--hot-experts", temporal, "--gating temporal");
    refuseWithout(o.hot_probability, "--hot-probability", temporal, "--gating temporal");
    refuseWithout(o.drift, "--drift", temporal, "--gating temporal");
    if (!routed) return r;
    if (!o.gating.empty()) {
        r.source = RoutingOptions::Source::Gating;
        try {
            r.gating.kind = firmware::moe::gatingKind(o.gating);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("--gating: {}", e.what()));
        }
        if (!o.gating_seed.empty())
            r.gating.seed = CliArgs::parseUInt(o.gating_seed, "--gating-seed", 0, UINT64_MAX);
    } else {
        r.source = RoutingOptions::Source::Trace;
        r.trace = o.trace;
    }
    if (!o.zipf_s.empty()) r.gating.zipfS = CliArgs::parseDouble(o.zipf_s, "--zipf-s", 0, 16);
    if (!o.hot_experts.empty())
        r.gating.hotExperts =
            uint32_t(CliArgs::parseUInt(o.hot_experts, "--hot-experts", 1, 1u << 20));
    if (!o.hot_probability.empty())
        r.gating.hotProbability =
            CliArgs::parseDouble(o.hot_probability, "--hot-probability", 0, 1);
    if (!o.drift.empty()) r.gating.driftRate = CliArgs::parseDouble(o.drift, "--drift", 0, 1);
    if (!o.iteration.empty())
        r.iteration = uint32_t(CliArgs::parseUInt(o.iteration, "--iteration", 0, 1u << 30));
    if (!o.balancer.empty()) {
        if (o.balancer != "none" && o.balancer != "greedy" && o.balancer != "topo" &&
            o.balancer != "ni")
            throw std::invalid_argument(
                fmt::format("--balancer: expected none, greedy, topo or ni, got '{}'", o.balancer));
        r.balancer = o.balancer;
    }
    if (!o.expert_slots.empty())
        r.slots = uint32_t(CliArgs::parseUInt(o.expert_slots, "--expert-slots", 1, 1024));
    r.migrate = !o.no_migration;
    return r;
}

int LlmCli::runWith(const Options& o, bool train, const hw::HardwareConfig& hwc,
                    const firmware::model::ModelConfig& model, std::ostream& os) {
    LlmSpec base;
    base.train = train;
    base.model = model;
    base.placement = o.placement;
    base.placement_list = o.placement_list;
    // A paper's mapping name -> the placement policy.
    auto placementOf = [](const std::string& flag, const std::string& m) -> std::string {
        if (m == "smap") return "row-major";
        if (m == "tcme") return "tcme";
        if (m == "baseline") return "moe-baseline";
        if (m == "er") return "er";
        if (m == "her") return "her";
        throw std::invalid_argument(fmt::format(
            "{}: expected smap, tcme (TEMP), baseline, er or her (MoEntwine), got '{}'", flag, m));
    };
    if (!o.mapping.empty()) {
        if (o.placement != "ring")
            throw std::invalid_argument(
                "--mapping names a placement: give --mapping or --placement");
        base.placement = placementOf("--mapping", o.mapping);
    }
    if (!o.placement.empty() && o.placement.find_first_not_of("0123456789,") == std::string::npos) {
        // --placement 0,1,5,4: the die of every rank, in rank order (tp fastest)
        base.placement = "list";
        base.placement_list.clear();
        size_t at = 0;
        while (true) {
            const size_t comma = o.placement.find(',', at);
            const std::string item = o.placement.substr(at, comma - at);
            if (item.empty() || item.size() > 7)
                throw std::invalid_argument(fmt::format(
                    "--placement {}: expected a die index (y * dies_x + x) at character {}",
                    o.placement, at + 1));
            base.placement_list.push_back(static_cast<uint32_t>(std::stoul(item)));
            if (comma == std::string::npos) break;
            at = comma + 1;
        }
    }
    bool reorder = false;
    base.tcme_reroute = false;
    for (const auto& m : CliArgs::parseStrings(
             o.tcme_moves_given ? o.tcme_moves : "reorder,reroute", "--tcme-moves"))
        if (m == "reorder")
            reorder = true;
        else if (m == "reroute")
            base.tcme_reroute = true;
        else if (m == "merge")
            throw std::invalid_argument(
                "--tcme-moves merge: on a plan's ring blocks a die's two chain neighbours lie in "
                "different directions, so no two flows share a link to merge (wsc tatp merges on "
                "folded chains); expected reorder or reorder,reroute");
        else
            throw std::invalid_argument(
                fmt::format("--tcme-moves '{}': expected reorder or reorder,reroute", m));
    if (!reorder)
        throw std::invalid_argument(
            "--tcme-moves: reorder is the placement itself and cannot be left out; expected "
            "reorder or reorder,reroute");
    const bool tcme =
        base.placement == "tcme" || o.compare_mappings.find("tcme") != std::string::npos;
    if (o.tcme_moves_given && !tcme)
        throw std::invalid_argument("--tcme-moves needs --mapping tcme (or --placement tcme)");
    if (o.tcme_cost_given && o.tcme_cost != "flows" && o.tcme_cost != "bytes")
        throw std::invalid_argument(
            fmt::format("--tcme-cost '{}': expected flows or bytes", o.tcme_cost));
    if (o.tcme_cost_given && !tcme)
        throw std::invalid_argument("--tcme-cost needs --mapping tcme (or --placement tcme)");
    base.tcme_bytes = o.tcme_cost == "bytes";
    base.dtype = parseDType(o.dtype);
    base.recompute = firmware::llm::RecomputePlanner::parse(o.recompute);
    base.offload = o.offload;
    if (o.pp_links != "routing" && o.pp_links != "watos")
        throw std::invalid_argument(
            fmt::format("--pp-links '{}': expected routing or watos", o.pp_links));
    base.pp_links = o.pp_links == "watos";
    if (base.pp_links && tcme)
        throw std::invalid_argument(
            "--pp-links watos: placement tcme installs its own pair routes; use one or the other");
    base.full = o.full;
    base.memory_only = o.memory_only;
    base.seed = o.seed;
    if (train) {
        if (!o.batch || !o.seq)
            throw std::invalid_argument("wsc llm train needs --batch and --seq");
        base.batch = o.batch, base.seq = o.seq;
    } else {
        if (!o.prompt) throw std::invalid_argument("wsc llm infer needs --prompt");
        base.batch = o.batch ? o.batch : 1;
        base.seq = o.prompt, base.generate = o.generate;
    }
    base.routing = routingOptions(o);
    base.overlap = o.overlap;
    hw::MemoryTarget target;
    if (o.memory == "bandwidth")
        target = hw::MemoryTarget::Simple;
    else if (o.memory == "hbm")
        target = hw::MemoryTarget::Hbm;
    else
        throw std::invalid_argument(
            fmt::format("--memory: expected bandwidth or hbm, got '{}'", o.memory));
    std::vector<std::string> plans;
    std::vector<std::string> placements;  // --compare-mappings: one run of --plan per mapping
    if (!o.compare_mappings.empty()) {
        if (!o.compare.empty() || !o.mapping.empty() || o.placement != "ring")
            throw std::invalid_argument(
                "--compare-mappings runs --plan under each mapping; drop --compare, --mapping and "
                "--placement");
        if (o.plan.empty()) throw std::invalid_argument("--compare-mappings needs --plan");
        if (o.memory_only)
            throw std::invalid_argument("--memory-only reports one plan: drop --compare-mappings");
        for (const auto& m : CliArgs::parseStrings(o.compare_mappings, "--compare-mappings", ','))
            placements.push_back(placementOf("--compare-mappings", m));
        plans.assign(placements.size(), o.plan);
    } else if (!o.compare.empty()) {
        if (!o.plan.empty()) throw std::invalid_argument("--compare lists the plans; drop --plan");
        if (o.memory_only)
            throw std::invalid_argument("--memory-only reports one plan: drop --compare");
        plans = CliArgs::parseStrings(o.compare, "--compare", ';');
    } else {
        if (o.plan.empty()) throw std::invalid_argument("wsc llm needs --plan (or --compare)");
        plans = {o.plan};
    }
    const std::vector<std::string> inputs{o.model, o.hw};
    for (const auto& [path, flag] : {std::pair{o.stats, "--stats"},
                                     {o.heatmap, "--heatmap"},
                                     {o.perfetto, "--perfetto"},
                                     {o.table, "--table"}})
        if (!path.empty()) CliArgs::checkOutput(path, flag, inputs);
    if (o.perfetto.empty() && o.perfetto_unit != "ns")
        throw std::invalid_argument("--perfetto-unit needs --perfetto FILE.json");
    if (!o.table.empty() && o.compare.empty() && o.compare_mappings.empty())
        throw std::invalid_argument(
            "--table writes the --compare table; give --compare or --compare-mappings");
    // SystemC elaborates once: one wafer serves every plan of the comparison.
    hw::Wafer wafer("wafer", hwc, target);
    std::vector<LlmResult> results;
    std::vector<std::pair<std::string, std::string>> refused;  // --compare: plan, why
    nlohmann::json stats;
    for (size_t job = 0; job < plans.size(); ++job) {
        const std::string& ptext = plans[job];
        LlmSpec s = base;
        if (!placements.empty()) s.placement = placements[job];
        try {
            s.plan = firmware::plan::ParallelPlan::parse(ptext);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("--plan: {}", e.what()));
        }
        // A comparison lists the plans that cannot run (with why) and goes on with the others.
        auto refuse = [&](const std::string& why) {
            if (plans.size() == 1) throw std::invalid_argument(why);
            const std::string what =
                placements.empty() ? s.plan.str() : s.plan.str() + " " + s.placement;
            refused.push_back({what, why});
            fmt::print(os, "  {}: refused: {}\n", what, why);
        };
        if (o.micro_batches) {
            if (s.plan.micro_batches && s.plan.micro_batches != o.micro_batches)
                throw std::invalid_argument(
                    fmt::format("--micro-batches {} contradicts the plan's mb={}", o.micro_batches,
                                s.plan.micro_batches));
            s.plan.micro_batches = static_cast<uint32_t>(o.micro_batches);
        }
        const bool last = job + 1 == plans.size();
        hw::ScenarioConfig sc;
        sc.name = o.hw;
        sc.setHardware(hwc);
        sc.workload_type = "llm";
        std::unique_ptr<RunOutputs> outputs;
        LlmRunOptions opt;
        opt.energy = hwc.energy;
        if (last && (!o.heatmap.empty() || !o.perfetto.empty())) {
            outputs = std::make_unique<RunOutputs>(sc, o.heatmap, o.perfetto);
            outputs->setPerfettoUnit(o.perfetto_unit);
            opt.observers = outputs->observers();
        }
        LlmResult r;
        try {
            r = LlmTestbench::run(wafer, s, opt);
        } catch (const firmware::llm::OutOfMemoryError& e) {
            refuse(fmt::format("plan {} does not fit in memory: {}", s.plan.str(), e.what()));
            continue;
        } catch (const std::invalid_argument& e) {
            refuse(e.what());
            continue;
        }
        if (plans.size() > 1)
            fmt::print(os, "  {}{}: {:.4g} s per step, {:.1f} s wall\n", s.plan.str(),
                       placements.empty() ? "" : " " + r.placement, r.stepSeconds(),
                       r.wall_seconds);
        if (plans.size() > 1 && !r.mapping.empty()) fmt::print(os, "    {}\n", r.mapping);
        if (plans.size() == 1) LlmTestbench::printReport(os, r);
        if (outputs) outputs->finishLlm(r, os, nullptr);
        nlohmann::json one;
        LlmTestbench::toJson(r, one);
        stats["runs"].push_back(one["llm"]);
        results.push_back(std::move(r));
    }
    if (plans.size() > 1) {
        std::ostringstream t;
        LlmTestbench::printCompareHeader(t);
        for (const auto& r : results) LlmTestbench::printCompareRow(t, r);
        if (!refused.empty()) {
            t << "\nRefused:\n\n";
            for (const auto& [p, why] : refused) t << "- " << p << ": " << why << "\n";
        }
        os << t.str();
        if (!o.table.empty()) {
            std::ofstream f(o.table);
            if (!f) throw std::runtime_error("cannot write " + o.table);
            f << t.str();
        }
    }
    if (!o.stats.empty()) {
        stats["inputs"] = {{"model", o.model},         {"hw", o.hw},
                           {"placement", o.placement}, {"batch", base.batch},
                           {"seq", base.seq},          {"generate", base.generate},
                           {"memory", o.memory},       {"seed", o.seed},
                           {"full", o.full},           {"dtype", o.dtype},
                           {"plans", plans},           {"recompute", o.recompute},
                           {"offload", o.offload},     {"memory_only", o.memory_only},
                           {"pp_links", o.pp_links}};
        // What the run resolved from its inputs: the die the step builder saw, the model.
        const firmware::llm::DieSpec die = LlmTestbench::dieSpec(hwc);
        stats["resolved"]["die"] = {{"sram_bytes", die.sram_bytes},
                                    {"hbm_bytes", die.hbm_bytes},
                                    {"hbm_bytes_per_cycle", die.hbm_bytes_per_cycle},
                                    {"peak_macs_per_cycle", die.peak_macs_per_cycle},
                                    {"vector_lanes", die.vector_lanes},
                                    {"dma_burst", die.dma_burst},
                                    {"clock_hz", die.clock_hz},
                                    {"compute_share", die.compute_share},
                                    {"comm_share", die.comm_share}};
        stats["resolved"]["noc"] = {{"clock_hz", hwc.noc.clock_hz},
                                    {"flit_bytes", hwc.noc.flit_bytes},
                                    {"router_pipeline", hwc.noc.router.hopCycles()},
                                    {"d2d_bytes_per_cycle", hwc.noc.d2d.width_bytes},
                                    {"d2d_latency_cycles", hwc.noc.d2d.latency},
                                    {"d2d_fec_latency_cycles", hwc.noc.d2d.fec_latency}};
        const auto& m = base.model;
        stats["resolved"]["model"] = {{"name", m.name},
                                      {"architecture", m.architecture},
                                      {"layers", m.layers},
                                      {"hidden", m.hidden},
                                      {"heads", m.heads},
                                      {"kv_heads", m.kv_heads},
                                      {"intermediate", m.intermediate},
                                      {"vocab", m.vocab}};
        // The hardware file as resolved (after --set) is in the header's config_files.
        const RunProvenance none;
        (o.provenance ? *o.provenance : none).writeStats(o.stats, std::move(stats));
        fmt::print(os, "  stats {}\n", o.stats);
    }
    return 0;
}

namespace {

// The plans docs/results/llm_training.md reports: TEMP Table II's batch and sequence on the
// TEMP die-level wafer, Megatron (DP x TP, + PP, + sequence parallelism) and FSDP (ZeRO-3).
struct BenchCase {
    const char* model;
    uint64_t batch, seq;
    const char* plan;
};
const std::vector<BenchCase>& benchCases() {
    static const std::vector<BenchCase> c = {
        {"llama2-7b", 128, 4096, "dp=8,tp=4,mb=8"},
        {"llama2-7b", 128, 4096, "dp=8,tp=4,mb=8,seqpar"},
        {"llama2-7b", 128, 4096, "dp=4,tp=4,pp=2,mb=16"},
        {"llama2-7b", 128, 4096, "dp=2,tp=4,pp=4,mb=16"},
        {"llama2-7b", 128, 4096, "fsdp=8,tp=4,mb=8"},
        {"gpt3-6.7b", 128, 2048, "dp=8,tp=4,mb=4"},
        {"gpt3-6.7b", 128, 2048, "dp=8,tp=4,mb=4,seqpar"},
        {"gpt3-6.7b", 128, 2048, "dp=4,tp=4,pp=2,mb=8"},
        {"gpt3-6.7b", 128, 2048, "dp=2,tp=4,pp=4,mb=16"},
        {"gpt3-6.7b", 128, 2048, "fsdp=8,tp=4,mb=4"},
    };
    return c;
}

std::string selfExe() {
    std::vector<char> buf(4096);
    const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    if (n <= 0) throw std::runtime_error("wsc bench llm: cannot find its own executable");
    return std::string(buf.data(), size_t(n));
}

}  // namespace

int LlmCli::runBench(const Options& o, std::ostream& os) {
    const std::string exe = selfExe(), root = o.bench_root;
    const std::string hw = root + "/configs/temp_4x8_die_level.yaml";
    if (!std::ifstream(hw))
        throw std::invalid_argument(fmt::format(
            "wsc bench llm: {} not found (run from the wsc checkout or give --root)", hw));
    if (!o.bench_out.empty()) CliArgs::checkOutput(o.bench_out, "--out", {});
    std::ostringstream t;
    t << "| model | batch x seq | plan | step s | MFU % | exposed comm % | peak mem GB | "
         "simulated runs | wall s | peak RSS MB |\n|---|---|---|---|---|---|---|---|---|---|\n";
    std::string last_model;
    int failed = 0;
    const std::string tmp = fmt::format("/tmp/wsc_bench_llm_{}.json", getpid());
    for (const BenchCase& c : benchCases()) {
        if (o.bench_quick && c.model == last_model) continue;
        last_model = c.model;
        const std::string cmd = fmt::format(
            "{} llm train --model {} --hw {} --plan {} --batch {} --seq {} --stats {} "
            ">/dev/null",
            RunProvenance::shellQuote(exe),
            RunProvenance::shellQuote(root + "/configs/models/" + c.model + ".json"),
            RunProvenance::shellQuote(hw), c.plan, c.batch, c.seq, tmp);
        fmt::print(os, "{} {} ...\n", c.model, c.plan);
        os.flush();
        const int rc = std::system(cmd.c_str());
        if (rc != 0) {  // recorded, and the bench goes on with the next plan
            const std::string row =
                fmt::format("| {} | {} x {} | {} | failed (exit status {}): `{}` |\n", c.model,
                            c.batch, c.seq, c.plan, rc, cmd);
            os << row;
            t << row;
            ++failed;
            continue;
        }
        std::ifstream f(tmp);
        const nlohmann::json j = nlohmann::json::parse(f);
        const nlohmann::json& r = j.at("runs").at(0);
        const nlohmann::json& p = r.at("phases").at("train");
        double ex = 0;
        if (p.contains("exposed_cycles"))
            for (auto& [k, v] : p.at("exposed_cycles").items()) ex += v.get<double>();
        uint64_t peak = 0;
        for (auto& [d, m] : r.at("memory").items())
            peak = std::max(peak, m.at("peak_bytes").get<uint64_t>());
        const std::string row = fmt::format(
            "| {} | {} x {} | {} | {:.4g} | {:.1f} | {:.1f} | {:.2f} | {} | {:.1f} | {} |\n",
            c.model, c.batch, c.seq, c.plan, p.at("seconds").get<double>(),
            100.0 * p.at("mfu").get<double>(), 100.0 * ex / p.at("cycles").get<double>(),
            double(peak) / double(1ull << 30), r.at("runs").size(),
            r.at("wall_seconds").get<double>(), r.at("peak_rss_kb").get<uint64_t>() / 1024);
        os << row;
        t << row;
    }
    std::remove(tmp.c_str());
    if (failed) fmt::print(os, "{} plan(s) failed\n", failed);
    os << "\n" << t.str();
    if (!o.bench_out.empty()) {
        std::ofstream f(o.bench_out);
        if (!f) throw std::runtime_error("cannot write " + o.bench_out);
        f << t.str();
    }
    return failed ? 1 : 0;
}

}  // namespace wsc::tb
