#include "testbench/TatpCli.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "hw/HardwareLoader.h"
#include "testbench/CliArgs.h"
#include "testbench/RunOutputs.h"
#include "testbench/TatpTestbench.h"

namespace wsc::tb {

CLI::App* TatpCli::add(CLI::App& app, Options& o) {
    auto* c = app.add_subcommand(
        "tatp",
        "TEMP's tensor-stream partition of one linear operator (TATP or the naive ring) "
        "on every group of a die-level wafer");
    c->add_option("--hw", o.hw, "die-level hardware file")->capture_default_str();
    CliArgs::addSet(c, o.set, "the --hw file");
    c->add_option("--algo", o.algo, "tatp, ring, or both (one row each)")->capture_default_str();
    c->add_option("--layout", o.layout,
                  "ring (contiguous physical rings), line (straight runs), tetris (runs along "
                  "the wafer's snake order), both (ring and tetris), or groups in chain order "
                  "like 0,1,5,4;2,3,7,6")
        ->capture_default_str();
    c->add_option("--n", o.n, "dies per group, or a list (2,4,8,16)")->capture_default_str();
    CliArgs::addUInt(c, "--m", o.m, 1, 1u << 24, "tokens per group (rows of I); default 8 N");
    CliArgs::addUInt(c, "--h", o.h, 1, 1u << 24, "input features (columns of I); default 64");
    CliArgs::addUInt(c, "--k", o.k, 1, 1u << 24, "output features (columns of W); default 4 N");
    c->add_option("--stream", o.stream, "auto (the smaller of W and I), weight or input")
        ->capture_default_str();
    c->add_option("--stages", o.stages, "forward, backward, gradient (comma list)")
        ->capture_default_str();
    c->add_option("--dtype", o.dtype, "fp16, bf16 or fp32 (bytes and PE timing)")
        ->capture_default_str();
    c->add_option("--fsdp", o.fsdp,
                  "FSDP ring all-gathers running beside it, groups in ring order (each die "
                  "sends to the one before it): 5,4,0,1;7,6,2,3");
    CliArgs::addUInt(c, "--fsdp-elems", o.fsdp_elems, 1, 1u << 30,
                     "elements each die contributes to its FSDP gather (with --fsdp)");
    c->add_option("--mapping", o.mapping,
                  "smap (groups as given, dimension-order routes) or tcme (TEMP's traffic-"
                  "conscious optimizer reorders groups and installs routes)")
        ->capture_default_str();
    c->add_option("--tcme-moves", o.tcme_moves,
                  "what --mapping tcme may change (comma list): reorder (a group's chain order), "
                  "reroute (a flow's dimension order), merge (same sub-tensor flows from one "
                  "die into a multicast tree)")
        ->capture_default_str();
    c->add_option("--heatmap", o.heatmap,
                  "link heatmap (SVG) of the run; with several runs one file each, "
                  "\".<algo>.<layout>.<N>.<mapping>\" before the extension");
    c->add_flag("--timing-only", o.timing_only, "no values (large shapes)");
    c->add_option("--table", o.table, "also write the rows as markdown to this file");
    CliArgs::addUInt(c, "--seed", o.seed, 0, UINT64_MAX, "seed of the operand values (default 1)");
    return c;
}

int TatpCli::run(const CLI::App* c, const Options& o, std::ostream& os) {
    using firmware::temp::StreamSchedule;
    using firmware::temp::TatpKernel;
    const hw::HardwareConfig h = hw::HardwareLoader::loadFile(o.hw, hw::ConfigOverrides(o.set));
    CliArgs::checkOutputs({{"--table", o.table}, {"--heatmap", o.heatmap}}, {o.hw});
    if (o.fsdp.empty()) CliArgs::rejectUnused(c, {"--fsdp-elems"}, "tatp without --fsdp");
    if (!o.fsdp.empty() && !c->count("--fsdp-elems"))
        throw UsageError("--fsdp needs --fsdp-elems (the elements each die contributes)");
    if (o.mapping != "tcme")
        CliArgs::rejectUnused(c, {"--tcme-moves"}, "tatp without --mapping tcme");
    firmware::temp::TrafficMap::Moves moves{false, false, false};
    for (const auto& m : CliArgs::parseStrings(o.tcme_moves, "--tcme-moves"))
        if (m == "reorder")
            moves.reorder = true;
        else if (m == "reroute")
            moves.reroute = true;
        else if (m == "merge")
            moves.merge = true;
        else
            throw UsageError(
                fmt::format("--tcme-moves '{}': expected reorder, reroute or merge", m));
    std::vector<StreamSchedule::Algo> algos;
    for (const auto& a : CliArgs::parseStrings(o.algo, "--algo"))
        if (a == "tatp")
            algos.push_back(StreamSchedule::Algo::Tatp);
        else if (a == "ring")
            algos.push_back(StreamSchedule::Algo::Ring);
        else if (a == "both")
            algos = {StreamSchedule::Algo::Ring, StreamSchedule::Algo::Tatp};
        else
            throw UsageError(fmt::format("--algo '{}': expected tatp, ring or both", a));
    std::vector<std::string> layouts;
    if (o.layout == "both")
        layouts = {"ring", "tetris"};
    else
        layouts = {o.layout};
    std::vector<uint32_t> ns;
    for (uint64_t x : CliArgs::parseUIntList(o.n, "--n", 1, 4096)) ns.push_back(uint32_t(x));
    std::vector<TatpKernel::Stage> stages;
    for (const auto& x : CliArgs::parseStrings(o.stages, "--stages"))
        if (x == "forward" || x == "fwd")
            stages.push_back(TatpKernel::Stage::Forward);
        else if (x == "backward" || x == "bwd")
            stages.push_back(TatpKernel::Stage::Backward);
        else if (x == "gradient" || x == "grad")
            stages.push_back(TatpKernel::Stage::Gradient);
        else
            throw UsageError(
                fmt::format("--stages '{}': expected forward, backward or gradient", x));
    std::optional<firmware::DType> dt;
    for (auto d : {firmware::DType::FP16, firmware::DType::BF16, firmware::DType::FP32})
        if (o.dtype == firmware::dtypeName(d)) dt = d;
    if (!dt) throw UsageError(fmt::format("--dtype '{}': expected fp16, bf16 or fp32", o.dtype));
    if (o.stream != "auto" && o.stream != "weight" && o.stream != "input")
        throw UsageError(fmt::format("--stream '{}': expected auto, weight or input", o.stream));

    std::vector<TatpResult> rows;
    std::ostringstream written;  // the heatmaps' summary lines, after the report or table
    bool ok = true;
    for (uint32_t n : ns)
        for (const auto& layout : layouts)
            for (auto a : algos) {
                TatpRunSpec s;
                s.layout = layout, s.n = n, s.seed = o.seed;
                s.functional = !o.timing_only;
                s.kernel.algo = a, s.kernel.dtype = *dt, s.kernel.stages = stages;
                s.kernel.m = o.m ? o.m : 8 * n;
                s.kernel.h = o.h ? o.h : 64;
                s.kernel.k = o.k ? o.k : 4 * n;
                s.auto_stream = o.stream == "auto";
                s.fsdp = o.fsdp, s.fsdp_elems = o.fsdp_elems, s.mapping = o.mapping;
                s.tcme_moves = moves;
                s.kernel.stream =
                    o.stream == "input" ? TatpKernel::Stream::Input : TatpKernel::Stream::Weight;
                std::unique_ptr<RunOutputs> out;
                std::vector<RunObserver*> obs;
                const bool several = ns.size() * layouts.size() * algos.size() > 1;
                if (!o.heatmap.empty()) {
                    hw::ScenarioConfig sc;
                    sc.setHardware(h);
                    sc.workload_type = "tatp";
                    const std::string lname =
                        layout.find_first_of(",;") == std::string::npos ? layout : "explicit";
                    sc.name = fmt::format("tatp {} {} N = {} {} on {}", StreamSchedule::name(a),
                                          lname, n, o.mapping, o.hw);
                    const std::string path =
                        several ? RunOutputs::phasePath(
                                      o.heatmap, fmt::format("{}.{}.{}.{}", StreamSchedule::name(a),
                                                             lname, n, o.mapping))
                                : o.heatmap;
                    out = std::make_unique<RunOutputs>(sc, path, "");
                    obs = out->observers();
                }
                rows.push_back(TatpTestbench::run(h.noc, h.core, s, obs, h.energy));
                if (out) out->finishRun(rows.back().events, rows.back().energy, written, nullptr);
                ok &= !rows.back().checked || rows.back().correct;
            }
    if (rows.size() == 1) {
        TatpTestbench::printReport(os, rows.front());
    } else {
        TatpTestbench::printTableHeader(os);
        for (const auto& r : rows) TatpTestbench::printTableRow(os, r);
        for (const auto& r : rows)
            if (r.checked && !r.correct)
                fmt::print(os, "{} {} N = {}: the result DIFFERS from the reference\n",
                           StreamSchedule::name(r.spec.kernel.algo), r.spec.layout, r.spec.n);
    }
    os << written.str();
    if (!o.table.empty()) {
        std::ofstream f(o.table);
        if (!f) throw std::runtime_error("cannot write " + o.table);
        TatpTestbench::printTableHeader(f);
        for (const auto& r : rows) TatpTestbench::printTableRow(f, r);
    }
    return ok ? 0 : 1;
}

}  // namespace wsc::tb
