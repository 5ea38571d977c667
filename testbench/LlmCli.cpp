#include "testbench/LlmCli.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "firmware/llm/MemoryLedger.h"
#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/CliArgs.h"
#include "testbench/LlmTestbench.h"
#include "testbench/RunOutputs.h"

namespace wsc::tb {

namespace {

void addCommon(CLI::App* c, LlmCli::Options& o, bool train) {
    c->add_option("--model", o.model, "HuggingFace config.json (configs/models/)")->required();
    c->add_option("--hw", o.hw, "die-level hardware YAML (e.g. configs/temp_4x8_die_level.yaml)")
        ->required();
    c->add_option("--plan", o.plan,
                  "parallel plan, e.g. dp=2,tp=4,pp=4[,mb=8][,seqpar] (keys dp fsdp tp sp pp ep "
                  "mb); its degrees multiply to the die count");
    c->add_option("--placement", o.placement,
                  "rank placement: ring (contiguous physical rings), snake, row-major (default "
                  "ring)");
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
    CliArgs::addUInt(c, "--micro-batches", o.micro_batches, 1, 1u << 16,
                     "micro-batches per step (default: the plan's mb, else pp)");
    c->add_option("--dtype", o.dtype, "weights and activations: fp16 or bf16 (default fp16)");
    c->add_option("--memory", o.memory,
                  "HBM fidelity: bandwidth (latency/bandwidth model of each stack, default) or "
                  "hbm (cycle-level HBM3 controllers)");
    c->add_flag("--full", o.full,
                "simulate every layer instead of composing from 1 and 2 layers per stage");
    c->add_option("--compare", o.compare,
                  "run several plans, one table: PLAN;PLAN;... (quote it for the shell)");
    c->add_option("--table", o.table, "--compare: also write the table (markdown) to this file");
    CliArgs::addUInt(c, "--seed", o.seed, 0, UINT64_MAX, "network seed (default 1)");
    c->add_option("--stats", o.stats,
                  "write the report's numbers, memory per die, every run and the inputs to this "
                  "JSON file");
    c->add_option("--heatmap", o.heatmap,
                  "link-utilization heatmap of the last simulated run (SVG)");
    c->add_option("--perfetto", o.perfetto,
                  "Chrome/Perfetto trace of the last simulated run: a process per die, a track "
                  "per unit (compute, vector, send, receive, dma, wait)");
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
    return b;
}

int LlmCli::run(CLI::App* llm, const Options& o, std::ostream& os) {
    const bool train = llm->got_subcommand("train");
    const hw::HardwareConfig hwc = hw::HardwareLoader::loadFile(o.hw);
    LlmSpec base;
    base.train = train;
    base.model = hw::ModelConfigLoader::loadFile(o.model);
    base.placement = o.placement;
    base.dtype = parseDType(o.dtype);
    base.full = o.full;
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
    hw::MemoryTarget target;
    if (o.memory == "bandwidth")
        target = hw::MemoryTarget::Simple;
    else if (o.memory == "hbm")
        target = hw::MemoryTarget::Hbm;
    else
        throw std::invalid_argument(
            fmt::format("--memory: expected bandwidth or hbm, got '{}'", o.memory));
    std::vector<std::string> plans;
    if (!o.compare.empty()) {
        if (!o.plan.empty()) throw std::invalid_argument("--compare lists the plans; drop --plan");
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
    if (!o.table.empty() && o.compare.empty())
        throw std::invalid_argument("--table writes the --compare table; give --compare");
    // SystemC elaborates once: one wafer serves every plan of the comparison.
    hw::Wafer wafer("wafer", hwc, target);
    std::vector<LlmResult> results;
    nlohmann::json stats;
    for (const std::string& ptext : plans) {
        LlmSpec s = base;
        try {
            s.plan = firmware::plan::ParallelPlan::parse(ptext);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("--plan: {}", e.what()));
        }
        if (o.micro_batches) {
            if (s.plan.micro_batches && s.plan.micro_batches != o.micro_batches)
                throw std::invalid_argument(
                    fmt::format("--micro-batches {} contradicts the plan's mb={}", o.micro_batches,
                                s.plan.micro_batches));
            s.plan.micro_batches = static_cast<uint32_t>(o.micro_batches);
        }
        const bool last = &ptext == &plans.back();
        hw::ScenarioConfig sc;
        sc.name = o.hw;
        sc.setHardware(hwc);
        sc.workload_type = "llm";
        std::unique_ptr<RunOutputs> outputs;
        LlmRunOptions opt;
        opt.energy = hwc.energy;
        if (last && (!o.heatmap.empty() || !o.perfetto.empty())) {
            outputs = std::make_unique<RunOutputs>(sc, o.heatmap, o.perfetto);
            opt.observers = outputs->observers();
        }
        LlmResult r;
        try {
            r = LlmTestbench::run(wafer, s, opt);
        } catch (const firmware::llm::OutOfMemoryError& e) {
            throw std::invalid_argument(
                fmt::format("plan {} does not fit in memory: {}", s.plan.str(), e.what()));
        }
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
        os << t.str();
        if (!o.table.empty()) {
            std::ofstream f(o.table);
            if (!f) throw std::runtime_error("cannot write " + o.table);
            f << t.str();
        }
    }
    if (!o.stats.empty()) {
        stats["inputs"] = {{"model", o.model},    {"hw", o.hw},      {"placement", o.placement},
                           {"batch", base.batch}, {"seq", base.seq}, {"generate", base.generate},
                           {"memory", o.memory},  {"seed", o.seed},  {"full", o.full}};
        std::ofstream f(o.stats);
        if (!f) throw std::runtime_error("cannot write " + o.stats);
        f << stats.dump(2) << "\n";
        fmt::print(os, "  stats {}\n", o.stats);
    }
    return 0;
}

int LlmCli::runBench(const Options&, std::ostream&) {
    throw std::invalid_argument("wsc bench llm: not built yet");
}

}  // namespace wsc::tb
