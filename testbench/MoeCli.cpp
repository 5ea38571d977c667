#include "testbench/MoeCli.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <stdexcept>

#include "firmware/moe/DieMesh.h"
#include "firmware/moe/ExpertTrace.h"
#include "firmware/moe/FtdAnalysis.h"
#include "firmware/moe/GatingModel.h"
#include "firmware/moe/MoeMapping.h"
#include "testbench/CliArgs.h"

namespace wsc::tb {

using namespace firmware::moe;

CLI::App* MoeCli::add(CLI::App& app, Options& o) {
    auto* moe = app.add_subcommand("moe", "MoEntwine: expert-selection traces and mappings");
    auto* t = moe->add_subcommand("trace", "write a seeded expert-selection trace (JSON Lines)");
    t->add_option("--kind", o.kind, "uniform, zipf or temporal")->capture_default_str();
    CliArgs::addUInt(t, "--experts", o.experts, 1, 65536, "experts per layer");
    CliArgs::addUInt(t, "--top-k", o.top_k, 1, 65536, "experts per token");
    CliArgs::addUInt(t, "--layers", o.layers, 1, 4096, "MoE layers");
    CliArgs::addUInt(t, "--tokens", o.tokens, 1, 1u << 24, "tokens per iteration and layer");
    CliArgs::addUInt(t, "--iterations", o.iterations, 1, 1u << 20, "iterations");
    CliArgs::addUInt(t, "--seed", o.seed, 0, UINT64_MAX, "seed");
    CliArgs::addDouble(t, "--zipf-s", o.zipf_s, 0, 100, "zipf exponent");
    CliArgs::addUInt(t, "--hot", o.hot, 1, 65536, "temporal / zipf: hot experts");
    CliArgs::addDouble(t, "--hot-probability", o.hot_probability, 0, 1,
                       "temporal: share of picks from the hot set");
    CliArgs::addDouble(t, "--drift", o.drift, 0, 1, "temporal: hot-set drift per iteration");
    t->add_option("--out", o.out, "trace file to write")->required();
    auto* m = moe->add_subcommand("map", "a mapping's TP groups, rings and full token domains");
    m->add_option("--mesh", o.mesh, "dies per wafer, COLSxROWS")->capture_default_str();
    m->add_option("--mapping", o.mapping, "baseline, er or her")->capture_default_str();
    CliArgs::addUInt(m, "--dp", o.dp, 1, 1u << 20, "data-parallel groups");
    CliArgs::addUInt(m, "--tp", o.tp, 1, 1u << 20, "tensor-parallel degree");
    CliArgs::addUInt(m, "--wafers", o.wafers, 1, 1024, "her: wafers side by side");
    moe->require_subcommand(1);
    return moe;
}

int MoeCli::run(CLI::App* moe, const Options& o, std::ostream& os) {
    if (moe->got_subcommand("trace")) {
        CliArgs::checkOutput(o.out, "--out", {});
        GatingConfig c;
        c.kind = gatingKind(o.kind);
        c.experts = o.experts, c.topK = o.top_k, c.layers = o.layers, c.tokens = o.tokens;
        c.seed = o.seed, c.zipfS = o.zipf_s, c.hotExperts = o.hot;
        c.hotProbability = o.hot_probability, c.driftRate = o.drift;
        ExpertTrace::fromModel(GatingModel(c), o.iterations).writeFile(o.out);
        fmt::print(os, "wrote {} ({} iterations x {} layers x {} tokens, top-{} of {} experts)\n",
                   o.out, o.iterations, o.layers, o.tokens, o.top_k, o.experts);
        return 0;
    }
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
    for (uint32_t s = 0; s < a.ringHops().size(); ++s)
        fmt::print(os, "ring stage {}: longest ring hop {}\n", s, a.maxRingHop(s));
    return 0;
}

}  // namespace wsc::tb
