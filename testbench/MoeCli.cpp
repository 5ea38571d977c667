#include "testbench/MoeCli.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <stdexcept>

#include "firmware/moe/DieMesh.h"
#include "firmware/moe/ExpertTrace.h"
#include "firmware/moe/FtdAnalysis.h"
#include "firmware/moe/GatingModel.h"
#include "firmware/moe/MoeMapping.h"
#include "firmware/moe/TraceError.h"

namespace wsc::tb {

using namespace firmware::moe;

CLI::App* MoeCli::add(CLI::App& app, Options& o) {
    auto* moe = app.add_subcommand("moe", "MoEntwine: expert-selection traces and mappings");
    auto* t = moe->add_subcommand("trace", "write a seeded expert-selection trace (JSON Lines)");
    t->add_option("--kind", o.kind, "uniform, zipf or temporal")->capture_default_str();
    t->add_option("--experts", o.experts, "experts per layer")->capture_default_str();
    t->add_option("--top-k", o.top_k, "experts per token")->capture_default_str();
    t->add_option("--layers", o.layers, "MoE layers")->capture_default_str();
    t->add_option("--tokens", o.tokens, "tokens per iteration and layer")->capture_default_str();
    t->add_option("--iterations", o.iterations, "iterations")->capture_default_str();
    t->add_option("--seed", o.seed, "seed")->capture_default_str();
    t->add_option("--zipf-s", o.zipf_s, "zipf exponent")->capture_default_str();
    t->add_option("--hot", o.hot, "temporal / zipf: hot experts")->capture_default_str();
    t->add_option("--hot-probability", o.hot_probability,
                  "temporal: share of picks from the hot set")
        ->capture_default_str();
    t->add_option("--drift", o.drift, "temporal: hot-set drift per iteration")
        ->capture_default_str();
    t->add_option("--out", o.out, "trace file to write")->required();
    auto* m = moe->add_subcommand("map", "a mapping's TP groups, rings and full token domains");
    m->add_option("--mesh", o.mesh, "dies per wafer, COLSxROWS")->capture_default_str();
    m->add_option("--mapping", o.mapping, "baseline, er or her")->capture_default_str();
    m->add_option("--dp", o.dp, "data-parallel groups")->capture_default_str();
    m->add_option("--tp", o.tp, "tensor-parallel degree")->capture_default_str();
    m->add_option("--wafers", o.wafers, "her: wafers side by side")->capture_default_str();
    moe->require_subcommand(1);
    return moe;
}

int MoeCli::run(CLI::App* moe, const Options& o, std::ostream& os) {
    if (moe->got_subcommand("trace")) {
        GatingConfig c;
        c.kind = gatingKind(o.kind);
        c.experts = o.experts, c.topK = o.top_k, c.layers = o.layers, c.tokens = o.tokens;
        c.seed = o.seed, c.zipfS = o.zipf_s, c.hotExperts = o.hot;
        c.hotProbability = o.hot_probability, c.driftRate = o.drift;
        if (o.iterations == 0) throw std::invalid_argument("--iterations: expected at least 1");
        try {
            ExpertTrace::fromModel(GatingModel(c), o.iterations).writeFile(o.out);
        } catch (const TraceError& e) {
            throw std::invalid_argument(e.what());
        }
        fmt::print(os, "wrote {} ({} iterations x {} layers x {} tokens, top-{} of {} experts)\n",
                   o.out, o.iterations, o.layers, o.tokens, o.top_k, o.experts);
        return 0;
    }
    uint32_t cols = 0, rows = 0;
    if (std::sscanf(o.mesh.c_str(), "%ux%u", &cols, &rows) != 2 || !cols || !rows)
        throw std::invalid_argument(
            fmt::format("--mesh '{}': expected COLSxROWS such as 4x4", o.mesh));
    MoeMapping mp = o.mapping == "baseline" ? MoeMapping::baseline(DieMesh(cols, rows), o.dp, o.tp)
                    : o.mapping == "er"     ? MoeMapping::entwined(DieMesh(cols, rows), o.dp, o.tp)
                    : o.mapping == "her"
                        ? MoeMapping::hierarchical(cols, rows, o.wafers, o.dp, o.tp)
                        : throw std::invalid_argument(fmt::format(
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
    for (uint32_t s = 0; s < a.ringHops().size(); ++s)
        fmt::print(os, "ring stage {}: longest ring hop {}\n", s, a.maxRingHop(s));
    return 0;
}

}  // namespace wsc::tb
