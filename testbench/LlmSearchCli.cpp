#include "testbench/LlmSearchCli.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <ostream>

#include "firmware/llm/MemoryLedger.h"
#include "firmware/llm/RecomputePlanner.h"
#include "firmware/model/ModelConfig.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/ParallelPlan.h"
#include "hw/ConfigError.h"
#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/CliArgs.h"
#include "testbench/LlmTestbench.h"
#include "testbench/sweep/SweepCli.h"

namespace wsc::tb {

namespace fs = std::filesystem;

CLI::App* LlmSearchCli::add(CLI::App* llm, Options& o) {
    auto* c = llm->add_subcommand(
        "search",
        "WATOS's genetic search over a training step's plan, micro-batches, recomputation, "
        "offload, placement and link allocation, every candidate simulated (docs/LLM.md "
        "\"Search\")");
    c->add_option("--model", o.model, "HuggingFace config.json (configs/models/)")->required();
    c->add_option("--hw", o.hw, "die-level hardware YAML")->required();
    CliArgs::addUInt(c, "--batch", o.batch, 1, uint64_t{1} << 32, "sequences per step (required)")
        ->required();
    CliArgs::addUInt(c, "--seq", o.seq, 1, uint64_t{1} << 24, "tokens per sequence (required)")
        ->required();
    c->add_option("--plans", o.plans,
                  "plans to search, ';'-separated (default: every tp=T,pp=P with T x P = the "
                  "wafer's dies and T <= --tp-max)");
    CliArgs::addUInt(c, "--tp-max", o.tp_max, 1, 1u << 16, "largest tp of the default plans (16)");
    c->add_option("--micro-batches", o.micro_batches,
                  "micro-batch counts to search, comma-separated (default 8,16,32)");
    c->add_option("--recompute", o.recompute,
                  "recomputation policies to search (default none,uniform,gcmr)");
    c->add_option("--offload", o.offload, "offload choices to search (default false,true)");
    c->add_option("--placement", o.placement, "placements to search (default ring,watos)");
    c->add_option("--pp-links", o.pp_links,
                  "inter-stage link choices to search (default routing,watos)");
    CliArgs::addUInt(c, "--population", o.population, 2, 10000, "GA population (default 8)");
    CliArgs::addUInt(c, "--generations", o.generations, 1, 10000,
                     "GA generations, the first random (default 4)");
    CliArgs::addUInt(c, "--elite", o.elite, 0, 10000,
                     "best kept unchanged into the next generation (default 2)");
    CliArgs::addUInt(c, "--tournament", o.tournament, 1, 10000,
                     "parents: the best of this many random members (default 2)");
    c->add_option("--crossover", o.crossover, "probability of crossover (default 0.8)")
        ->check(CLI::Range(0.0, 1.0));
    c->add_option("--mutation", o.mutation, "per-gene mutation probability (default 0.2)")
        ->check(CLI::Range(0.0, 1.0));
    CliArgs::addUInt(c, "--seed", o.seed, 0, UINT64_MAX, "GA seed (default 1)");
    CliArgs::addUInt(c, "-j,--jobs", o.jobs, 1, 4096,
                     "candidates at once (local processes; default the cores present)");
    c->add_option("--executor", o.executor, "local (default) or slurm")
        ->check(CLI::IsMember({"local", "slurm"}));
    c->add_option("--out", o.out, "results folder (default llm-search-MODEL)");
    c->add_option("--timeout", o.timeout, "per candidate (default 7200 s)");
    c->add_flag("--prescreen-only", o.prescreen_only,
                "write the spec and the pre-screen, run nothing");
    return c;
}

namespace {

struct Screened {
    std::string plan, mb, recompute, offload, why;  // why: "" when it fits
    // When it fits with some placements: the others and why they cannot run it (a ring that
    // does not tile the die array, a Helper out of reach), excluded one by one.
    std::vector<std::pair<std::string, std::string>> refused;
};

std::string planText(uint32_t tp, uint32_t pp) {
    if (tp > 1 && pp > 1) return fmt::format("tp={},pp={}", tp, pp);
    return tp > 1 ? fmt::format("tp={}", tp) : fmt::format("pp={}", pp);
}

void emitList(YAML::Emitter& e, const std::vector<std::string>& v) {
    e << YAML::Flow << YAML::BeginSeq;
    for (const auto& s : v) e << YAML::DoubleQuoted << s;
    e << YAML::EndSeq;
}

}  // namespace

int LlmSearchCli::run(const Options& o, std::ostream& os) {
    if (o.elite >= o.population)
        throw std::invalid_argument(
            fmt::format("--elite {}: must be below --population {}", o.elite, o.population));
    const hw::HardwareConfig hwc = hw::HardwareLoader::loadFile(o.hw);
    const firmware::model::ModelConfig model = hw::ModelConfigLoader::loadFile(o.model);
    const uint32_t dies = hwc.wafer.dies_x * hwc.wafer.dies_y;

    std::vector<std::string> plans;
    if (o.plans.empty()) {
        for (uint32_t tp = 1; tp <= std::min(o.tp_max, dies); ++tp)
            if (dies % tp == 0 && dies / tp <= model.layers)
                plans.push_back(planText(tp, dies / tp));
    } else {
        plans = CliArgs::parseStrings(o.plans, "--plans", ';');
    }
    for (const auto& p : plans) {
        try {
            (void)firmware::plan::ParallelPlan::parse(p);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("--plans '{}': {}", p, e.what()));
        }
    }
    auto list = [](const std::string& text, const char* flag,
                   const std::vector<std::string>& allowed) {
        const auto v = CliArgs::parseStrings(text, flag, ',');
        for (const auto& s : v)
            if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end())
                throw std::invalid_argument(
                    fmt::format("{} '{}': expected some of {}", flag, s, fmt::join(allowed, ", ")));
        return v;
    };
    const auto mbs = list(o.micro_batches, "--micro-batches", {});
    for (const auto& m : mbs) (void)CliArgs::parseUInt(m, "--micro-batches", 1, 1u << 16);
    const auto recs = list(o.recompute, "--recompute", {"none", "uniform", "gcmr"});
    const auto offs = list(o.offload, "--offload", {"false", "true"});
    // The placements `wsc llm train` knows (watos and her are the papers' own).
    std::vector<std::string> known = firmware::placement::Placement::names();
    known.push_back("watos");
    known.push_back("her");
    const auto pls = list(o.placement, "--placement", known);
    const auto links = list(o.pp_links, "--pp-links", {"routing", "watos"});

    // The pre-screen: the exact memory ledger of every memory-relevant combination.
    std::vector<Screened> screened;
    uint32_t ok = 0;
    for (const auto& p : plans)
        for (const auto& mb : mbs)
            for (const auto& rc : recs)
                for (const auto& off : offs) {
                    Screened s{p, mb, rc, off, "", {}};
                    LlmSpec spec;
                    spec.train = true;
                    spec.model = model;
                    spec.plan = firmware::plan::ParallelPlan::parse(p);
                    const uint32_t m =
                        uint32_t(CliArgs::parseUInt(mb, "--micro-batches", 1, 1u << 16));
                    if (spec.plan.micro_batches && spec.plan.micro_batches != m) {
                        s.why =
                            fmt::format("the plan's mb={} is not {}", spec.plan.micro_batches, m);
                    } else {
                        spec.plan.micro_batches = m;
                        spec.batch = o.batch, spec.seq = o.seq;
                        spec.recompute = firmware::llm::RecomputePlanner::parse(rc);
                        spec.offload = off == "true";
                        // Each placement searched: a combination is a misfit only if none can
                        // run it (checking one default placement refused every candidate on a
                        // 7 x 8 wafer, where rings of 8 cannot tile).
                        std::vector<std::pair<std::string, std::string>> refused;
                        std::string misfit;  // the memory ledger's answer, when it is a reason
                        for (const auto& pl : pls) {
                            spec.placement = pl;
                            std::string why;
                            try {
                                LlmTestbench::check(hwc, spec);
                            } catch (const firmware::llm::OutOfMemoryError& e) {
                                why = std::string("does not fit: ") + e.what();
                                if (misfit.empty()) misfit = why;
                            } catch (const std::invalid_argument& e) {
                                why = e.what();
                            } catch (const hw::ConfigError& e) {
                                why = e.what();
                            }
                            if (!why.empty()) refused.push_back({pl, why});
                        }
                        // No placement runs it: say so by its memory if that is a reason.
                        if (refused.size() == pls.size())
                            s.why = misfit.empty() ? refused.front().second : misfit;
                        else
                            s.refused = std::move(refused);
                    }
                    ok += s.why.empty();
                    screened.push_back(std::move(s));
                }
    fmt::print(os, "llm search: {} on {} dies, batch {} x seq {}\n", model.name, dies, o.batch,
               o.seq);
    fmt::print(os,
               "pre-screen (memory ledger of every plan, micro-batches, recompute, offload): "
               "{} of {} fit\n",
               ok, screened.size());
    // One line per reason, cut to 110 characters.
    auto clip = [](std::string t) { return t.size() > 110 ? t.substr(0, 107) + "..." : t; };
    for (const auto& s : screened) {
        fmt::print(os, "  {:<14} mb={:<4} {:<8} offload={:<5} {}\n", s.plan, s.mb, s.recompute,
                   s.offload, s.why.empty() ? "fits" : clip(s.why));
        for (const auto& [pl, w] : s.refused)  // placement errors name their placement already
            fmt::print(os, "    {}\n",
                       clip(w.rfind("placement " + pl, 0) == 0 ? w : "placement " + pl + ": " + w));
    }
    if (!ok)
        throw std::invalid_argument(
            "llm search: no candidate fits (see the pre-screen above); widen --plans, "
            "--micro-batches, --recompute or --offload");

    const std::string out =
        o.out.empty() ? "llm-search-" + fs::path(o.model).stem().string() : o.out;
    fs::create_directories(out);
    YAML::Emitter e;
    e << YAML::BeginMap << YAML::Key << "sweep" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << "llm_search";
    e << YAML::Key << "base" << YAML::Value << fs::absolute(o.hw).string();
    e << YAML::Key << "command" << YAML::Value;
    emitList(e, {"llm", "train", "--hw", "{base}", "--model", fs::absolute(o.model).string(),
                 "--batch", std::to_string(o.batch), "--seq", std::to_string(o.seq)});
    e << YAML::Key << "axes" << YAML::Value << YAML::BeginSeq;
    for (const auto& [flag, values] :
         std::vector<std::pair<std::string, std::vector<std::string>>>{{"--plan", plans},
                                                                       {"--micro-batches", mbs},
                                                                       {"--recompute", recs},
                                                                       {"--offload", offs},
                                                                       {"--placement", pls},
                                                                       {"--pp-links", links}}) {
        e << YAML::BeginMap << YAML::Key << "option" << YAML::Value << flag;
        e << YAML::Key << "values" << YAML::Value;
        emitList(e, values);
        e << YAML::EndMap;
    }
    e << YAML::EndSeq;
    // What cannot run: the pre-screen's misfits, and the link allocation without a pipeline.
    std::vector<std::vector<std::pair<std::string, std::string>>> excl;
    for (const auto& s : screened) {
        const std::vector<std::pair<std::string, std::string>> combination{
            {"plan", s.plan},
            {"micro-batches", s.mb},
            {"recompute", s.recompute},
            {"offload", s.offload}};
        if (!s.why.empty()) excl.push_back(combination);
        for (const auto& r : s.refused) {
            excl.push_back(combination);
            excl.back().push_back({"placement", r.first});
        }
    }
    if (std::find(links.begin(), links.end(), "watos") != links.end()) {
        for (const auto& p : plans)
            if (firmware::plan::ParallelPlan::parse(p).pp < 2)
                excl.push_back({{"plan", p}, {"pp-links", "watos"}});
        // TCME installs its own pair routes: llm train refuses it with the link allocation.
        if (std::find(pls.begin(), pls.end(), "tcme") != pls.end())
            excl.push_back({{"placement", "tcme"}, {"pp-links", "watos"}});
    }
    if (!excl.empty()) {
        e << YAML::Key << "exclude" << YAML::Value << YAML::BeginSeq;
        for (const auto& x : excl) {
            e << YAML::Flow << YAML::BeginMap;
            for (const auto& [k, v] : x)
                e << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
            e << YAML::EndMap;
        }
        e << YAML::EndSeq;
    }
    e << YAML::Key << "metrics" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "step_s" << YAML::Value << "runs.0.phases.train.seconds";
    e << YAML::Key << "mfu" << YAML::Value << "runs.0.phases.train.mfu";
    e << YAML::Key << "energy_pj" << YAML::Value << "runs.0.phases.train.energy_pj";
    e << YAML::EndMap;
    e << YAML::Key << "search" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "kind" << YAML::Value << "ga";
    e << YAML::Key << "objective" << YAML::Value << "step_s";
    e << YAML::Key << "population" << YAML::Value << o.population;
    e << YAML::Key << "generations" << YAML::Value << o.generations;
    e << YAML::Key << "elite" << YAML::Value << o.elite;
    e << YAML::Key << "tournament" << YAML::Value << o.tournament;
    e << YAML::Key << "crossover" << YAML::Value << o.crossover;
    e << YAML::Key << "mutation" << YAML::Value << o.mutation;
    e << YAML::Key << "seed" << YAML::Value << o.seed;
    e << YAML::EndMap;
    e << YAML::Key << "timeout" << YAML::Value << o.timeout;
    e << YAML::EndMap << YAML::EndMap;
    const std::string spec = (fs::path(out) / "search.yaml").string();
    {
        std::ofstream f(spec);
        if (!f) throw std::runtime_error("cannot write " + spec);
        f << "# Written by wsc llm search (testbench/LlmSearchCli): the GA over simulated\n"
             "# training steps; rerun with `wsc sweep "
          << spec << " --out " << out << "` to resume.\n"
          << e.c_str() << "\n";
    }
    fmt::print(os, "search spec: {} ({} exclusions)\n", spec, excl.size());
    if (o.prescreen_only) return 0;

    // The sweep machinery runs it, as `wsc sweep SPEC --out OUT` would.
    CLI::App app;
    sweep::SweepCli::Options so;
    CLI::App* cmd = sweep::SweepCli::add(app, so);
    std::vector<std::string> args{"sweep", spec, "--out", out, "--executor", o.executor};
    if (o.jobs) args.push_back("-j"), args.push_back(std::to_string(o.jobs));
    std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
    app.parse(args);
    return sweep::SweepCli::run(cmd, so, os);
}

}  // namespace wsc::tb
