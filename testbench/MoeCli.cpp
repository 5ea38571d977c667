#include "testbench/MoeCli.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <memory>
#include <stdexcept>

#include "firmware/moe/BalanceRun.h"
#include "firmware/moe/DieMesh.h"
#include "firmware/moe/ExpertTrace.h"
#include "firmware/moe/FtdAnalysis.h"
#include "firmware/moe/GatingModel.h"
#include "firmware/moe/MoeMapping.h"
#include "firmware/temp/TrafficMap.h"
#include "testbench/CliArgs.h"
#include "testbench/SvgPlot.h"

namespace wsc::tb {

using namespace firmware::moe;

CLI::App* MoeCli::add(CLI::App& app, Options& o) {
    auto* moe = app.add_subcommand("moe", "MoEntwine: expert-selection traces and mappings");
    auto* t = moe->add_subcommand("trace", "write a seeded expert-selection trace (JSON Lines)");
    addGating(t, o.trace_gating, "temporal: hot experts");
    t->add_option("--out", o.out, "trace file to write")->required();
    auto* m = moe->add_subcommand("map", "a mapping's TP groups, rings and full token domains");
    m->add_option("--mesh", o.mesh, "dies per wafer, COLSxROWS")->capture_default_str();
    m->add_option("--mapping", o.mapping, "baseline, er or her")->capture_default_str();
    CliArgs::addUInt(m, "--dp", o.dp, 1, 1u << 20, "data-parallel groups")
        ->default_str(fmt::format("{}", o.dp));
    CliArgs::addUInt(m, "--tp", o.tp, 1, 1u << 20, "tensor-parallel degree")
        ->default_str(fmt::format("{}", o.tp));
    CliArgs::addUInt(m, "--wafers", o.wafers, 1, 1024, "her: wafers side by side")
        ->default_str(fmt::format("{}", o.wafers));
    auto* b = moe->add_subcommand(
        "balance", "balancers' run-time load traces over many iterations (MoEntwine Fig. 15)");
    b->add_option("--balancers", o.balancers, "comma-separated: none, greedy, topo, ni")
        ->capture_default_str();
    b->add_option("--mesh", o.mesh, "dies per wafer, COLSxROWS")->capture_default_str();
    b->add_option("--mapping", o.mapping, "baseline or er (ni's cold links)")
        ->capture_default_str();
    CliArgs::addUInt(b, "--dp", o.dp, 1, 1u << 20, "data-parallel groups")
        ->default_str(fmt::format("{}", o.dp));
    CliArgs::addUInt(b, "--tp", o.tp, 1, 1u << 20, "tensor-parallel degree")
        ->default_str(fmt::format("{}", o.tp));
    addGating(b, o.balance_gating,
              "temporal: hot experts (a quarter of the experts if fewer than 64 and not given)");
    b->add_option("--trace", o.trace, "selections from a JSON Lines trace instead of --kind");
    CliArgs::addUInt(b, "--slots", o.slots, 1, 1024, "shadow slots per die")
        ->default_str(fmt::format("{}", o.slots));
    CliArgs::addDouble(b, "--alpha", o.alpha, 0, 1e9,
                       "Eq. 2: rebalance when the layers' summed imbalance exceeds it")
        ->default_str(fmt::format("{}", o.alpha));
    CliArgs::addUInt(b, "--beta", o.beta, 0, 1u << 30,
                     "Eq. 2: and more than this many iterations passed (invasive; ni uses 0)")
        ->default_str(fmt::format("{}", o.beta));
    b->add_option("--svg", o.svg, "plot: peak / mean die load per iteration, a line per balancer");
    b->add_option("--table", o.table, "also write the summary table (markdown) to this file");
    moe->require_subcommand(1);
    return moe;
}

void MoeCli::addGating(CLI::App* app, Gating& g, const std::string& hot_help) {
    auto shown = [](CLI::Option* opt, auto v) { opt->default_str(fmt::format("{}", v)); };
    app->add_option("--kind", g.kind, "gating model: uniform, zipf or temporal")
        ->capture_default_str();
    shown(CliArgs::addUInt(app, "--experts", g.experts, 1, 65536, "experts per layer"), g.experts);
    shown(CliArgs::addUInt(app, "--top-k", g.top_k, 1, 65536, "experts per token"), g.top_k);
    shown(CliArgs::addUInt(app, "--layers", g.layers, 1, 4096, "MoE layers"), g.layers);
    shown(
        CliArgs::addUInt(app, "--tokens", g.tokens, 1, 1u << 24, "tokens per iteration and layer"),
        g.tokens);
    shown(CliArgs::addUInt(app, "--iterations", g.iterations, 1, 1u << 20, "iterations"),
          g.iterations);
    shown(CliArgs::addUInt(app, "--seed", g.seed, 0, UINT64_MAX, "seed"), g.seed);
    shown(CliArgs::addDouble(app, "--zipf-s", g.zipf_s, 0, 100, "zipf exponent"), g.zipf_s);
    shown(CliArgs::addUInt(app, "--hot", g.hot, 1, 65536, hot_help), g.hot);
    shown(CliArgs::addDouble(app, "--hot-probability", g.hot_probability, 0, 1,
                             "temporal: share of picks from the hot set"),
          g.hot_probability);
    shown(
        CliArgs::addDouble(app, "--drift", g.drift, 0, 1, "temporal: hot-set drift per iteration"),
        g.drift);
}

namespace {

MoeMapping mappingOf(const std::string& name, uint32_t cols, uint32_t rows, uint32_t dp,
                     uint32_t tp, uint32_t wafers) {
    if (name == "baseline") return MoeMapping::baseline(DieMesh(cols, rows), dp, tp);
    if (name == "er") return MoeMapping::entwined(DieMesh(cols, rows), dp, tp);
    if (name == "her") return MoeMapping::hierarchical(cols, rows, wafers, dp, tp);
    throw UsageError(fmt::format("--mapping '{}': expected baseline, er or her", name));
}

}  // namespace

int MoeCli::runBalance(const CLI::App* cmd, const Options& o, std::ostream& os) {
    const Gating& g = o.balance_gating;
    CliArgs::checkOutputs(
        {{"--svg", o.svg}, {"--table", o.table}},
        o.trace.empty() ? std::vector<std::string>{} : std::vector<std::string>{o.trace});
    const auto dims = CliArgs::parseUIntList(o.mesh, "--mesh", 1, 1024, 'x');
    if (dims.size() != 2)
        throw UsageError(fmt::format("--mesh '{}': expected COLSxROWS such as 4x4", o.mesh));
    if (o.mapping == "her") throw UsageError("--mapping her: balance runs on one wafer");
    // The balancers, checked before anything is printed.
    const std::vector<std::string> names = CliArgs::parseStrings(o.balancers, "--balancers", ',');
    for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] != "none" && names[i] != "greedy" && names[i] != "topo" && names[i] != "ni")
            throw UsageError(fmt::format(
                "--balancers: balancer '{}': expected none, greedy, topo or ni", names[i]));
        for (size_t j = 0; j < i; ++j)
            if (names[j] == names[i])
                throw UsageError(fmt::format("--balancers: '{}' is given twice", names[i]));
        if (names[i] == "ni" && o.tp < 2)
            throw UsageError(fmt::format(
                "--balancers ni: migrates on the cold links of MoEntwine's mappings, which need "
                "--tp >= 2 (got {})",
                o.tp));
    }
    const MoeMapping mp = mappingOf(o.mapping, uint32_t(dims[0]), uint32_t(dims[1]), o.dp, o.tp, 1);
    BalanceRunConfig c;
    c.experts = g.experts, c.topK = g.top_k, c.layers = g.layers;
    c.iterations = g.iterations, c.slots = o.slots;
    c.trigger.alpha = o.alpha, c.trigger.beta = o.beta;
    std::unique_ptr<ExpertTrace> trace;
    std::unique_ptr<GatingModel> gm;
    std::string source;
    if (!o.trace.empty()) {
        CliArgs::rejectUnused(cmd,
                              {"--kind", "--experts", "--top-k", "--layers", "--tokens", "--seed",
                               "--zipf-s", "--hot", "--hot-probability", "--drift"},
                              "--trace (the trace fixes the selections)");
        trace = std::make_unique<ExpertTrace>(ExpertTrace::readFile(o.trace));
        const TraceHeader& h = trace->header();
        c.experts = h.experts, c.topK = h.topK, c.layers = h.layers;
        if (cmd->count("--iterations") == 0) c.iterations = trace->iterations();
        if (trace->iterations() < c.iterations || c.iterations == 0)
            throw UsageError(fmt::format("--iterations {}: the trace {} has {}", c.iterations,
                                         o.trace, trace->iterations()));
        source = fmt::format("trace {}", o.trace);
    } else {
        const GatingKind kind = gatingKind(g.kind);
        if (kind != GatingKind::Temporal)
            CliArgs::rejectUnused(cmd, {"--hot", "--hot-probability", "--drift"},
                                  fmt::format("--kind {}", g.kind));
        if (kind != GatingKind::Zipf)
            CliArgs::rejectUnused(cmd, {"--zipf-s"}, fmt::format("--kind {}", g.kind));
        GatingConfig gc;
        gc.kind = kind;
        gc.experts = c.experts, gc.topK = c.topK, gc.layers = c.layers, gc.tokens = g.tokens;
        gc.seed = g.seed, gc.zipfS = g.zipf_s, gc.hotProbability = g.hot_probability;
        gc.driftRate = g.drift;
        // The default hot set (16) shrinks to a quarter of a small model's experts.
        gc.hotExperts = cmd->count("--hot") ? g.hot : std::min(g.hot, std::max(1u, c.experts / 4));
        try {
            gm = std::make_unique<GatingModel>(gc);
        } catch (const std::invalid_argument& e) {
            throw UsageError(fmt::format(
                "--kind {} with --experts {}, --top-k {}, --hot {}, --hot-probability {}: {}",
                g.kind, c.experts, c.topK, gc.hotExperts, gc.hotProbability, e.what()));
        }
        source = fmt::format("{} gating, seed {}, {} tokens", g.kind, g.seed, g.tokens);
    }
    // Bounded work: every pick of every token, layer and iteration is counted once per balancer.
    const double picks = double(c.iterations) * c.layers * c.topK *
                         double(trace ? trace->header().tokens : g.tokens) * double(names.size());
    if (picks > 2e9)
        throw UsageError(fmt::format(
            "--iterations {} x --layers {} x --tokens x --top-k {} x {} balancers is {:.3g} picks "
            "to count; at most 2e9 (about ten minutes)",
            c.iterations, c.layers, c.topK, names.size(), picks));
    const BalanceRun::Selections sel = [&](uint32_t it, uint32_t j) {
        return trace ? trace->selections(it, j) : gm->selectLayer(it, j);
    };
    fmt::print(os,
               "moe balance: {} on {} {} (dp={}, tp={}), {} experts top-{} x {} MoE layers, {} "
               "iterations, {} shadow slot(s) per die, Eq. 2 alpha {} beta {}\n",
               source, o.mesh, o.mapping, o.dp, o.tp, c.experts, c.topK, c.layers, c.iterations,
               c.slots, c.trigger.alpha, c.trigger.beta);
    std::string t =
        "| balancer | peak / mean die load (mean over iterations) | worst iteration | "
        "rebalances | copies moved | link-hops | moved while |\n|---|---|---|---|---|---|---|\n";
    SvgPlot plot(
        fmt::format("Peak die load over iterations ({}, {} {})", source, o.mesh, o.mapping),
        "iteration", "peak / mean die load (mean over layers)");
    for (const auto& name : names) {
        BalanceRunConfig bc = c;
        bc.balancer = name;
        BalanceRun br(mp, bc, sel);
        const auto& r = br.run();
        double mean = 0, worst = 0;
        uint32_t reb = 0, moved = 0, hops = 0;
        SvgPlot::Series s;
        s.name = name;
        for (size_t i = 0; i < r.size(); ++i) {
            mean += r[i].meanPeak / double(r.size());
            worst = std::max(worst, r[i].meanPeak);
            reb += r[i].rebalanced, moved += r[i].migrations, hops += r[i].linkHops;
            s.points.push_back({double(i), r[i].meanPeak});
        }
        plot.add(std::move(s));
        t += fmt::format("| {} | {:.3f} | {:.3f} | {} | {} | {} | {} |\n", name, mean, worst, reb,
                         moved, hops,
                         name == "none" ? "-"
                         : name == "ni" ? "the next iteration (cold links)"
                                        : "between iterations (interrupting)");
    }
    os << t;
    if (!o.table.empty()) {
        std::ofstream f(o.table);
        if (!f) throw std::runtime_error("cannot write " + o.table);
        f << t;
    }
    if (!o.svg.empty()) {
        plot.write(o.svg);
        fmt::print(os, "  plot {}\n", o.svg);
    }
    return 0;
}

int MoeCli::run(CLI::App* moe, const Options& o, std::ostream& os) {
    if (moe->got_subcommand("trace")) {
        const Gating& g = o.trace_gating;
        CliArgs::checkOutput(o.out, "--out", {});
        GatingConfig c;
        c.kind = gatingKind(g.kind);
        c.experts = g.experts, c.topK = g.top_k, c.layers = g.layers, c.tokens = g.tokens;
        c.seed = g.seed, c.zipfS = g.zipf_s, c.hotExperts = g.hot;
        c.hotProbability = g.hot_probability, c.driftRate = g.drift;
        ExpertTrace::fromModel(GatingModel(c), g.iterations).writeFile(o.out);
        fmt::print(os, "wrote {} ({} iterations x {} layers x {} tokens, top-{} of {} experts)\n",
                   o.out, g.iterations, g.layers, g.tokens, g.top_k, g.experts);
        return 0;
    }
    if (moe->got_subcommand("balance")) return runBalance(moe->get_subcommand("balance"), o, os);
    const CLI::App* map = moe->get_subcommand("map");
    if (o.mapping != "her") CliArgs::rejectUnused(map, {"--wafers"}, "a single-wafer mapping");
    const auto dims = CliArgs::parseUIntList(o.mesh, "--mesh", 1, 1024, 'x');
    if (dims.size() != 2)
        throw UsageError(fmt::format("--mesh '{}': expected COLSxROWS such as 4x4", o.mesh));
    const uint32_t cols = uint32_t(dims[0]), rows = uint32_t(dims[1]);
    MoeMapping mp = o.mapping == "baseline" ? MoeMapping::baseline(DieMesh(cols, rows), o.dp, o.tp)
                    : o.mapping == "er"     ? MoeMapping::entwined(DieMesh(cols, rows), o.dp, o.tp)
                    : o.mapping == "her"
                        ? MoeMapping::hierarchical(cols, rows, o.wafers, o.dp, o.tp)
                        : throw UsageError(fmt::format(
                              "--mapping '{}': expected baseline, er or her", o.mapping));
    fmt::print(os, "{}", mp.render());
    const FtdAnalysis a(mp);
    fmt::print(os, "full token domains: {}\n", a.ftds().size());
    for (size_t i = 0; i < a.ftds().size(); ++i) {
        const auto& f = a.ftds()[i];
        fmt::print(os, "  FTD {}: {} dies, box {} x {} (area {}), mean hops to the others {:.3f}\n",
                   i, f.dies.size(), f.boxCols(), f.boxRows(), f.boxArea(), f.hopsToOthers);
    }
    fmt::print(os, "mean all-to-all hops {:.3f}; FTD boxes {}\n", a.a2aHops(),
               a.boxesDisjoint() ? "disjoint" : "overlap");
    for (uint32_t s = 0; s < a.ringHops().size(); ++s) {
        // The stage's rings stepping together (one ring round at a time, TrafficMap's Ring
        // schedule): how many of them share the busiest link when a round's transfer holds its
        // whole path at once (cut-through, as the simulator's wormhole NoC) and when each hop
        // takes its own slot (store-and-forward: MoEntwine's time-staggered rings).
        std::vector<firmware::temp::TrafficMap::Group> rings;
        for (const auto& r : mp.stages()[s].rings) rings.push_back({"ring", r});
        const firmware::placement::DieArray arr{mp.mesh().cols(), mp.mesh().rows()};
        using Cost = firmware::temp::TrafficMap::Cost;
        const auto cut = firmware::temp::TrafficMap(arr, rings, Cost::Flows).load();
        const auto saf = firmware::temp::TrafficMap(arr, rings, Cost::StoreForward).load();
        fmt::print(os,
                   "ring stage {} ({}): longest ring hop {}; rings stepping together share a link "
                   "at most {} at a time cut-through, {} store-and-forward\n",
                   s, mp.stages()[s].name, a.maxRingHop(s), cut.max, saf.max);
    }
    return 0;
}

}  // namespace wsc::tb
