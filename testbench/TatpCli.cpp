#include "testbench/TatpCli.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "hw/HardwareLoader.h"
#include "testbench/RunOutputs.h"
#include "testbench/TatpTestbench.h"

namespace wsc::tb {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string x;
    while (std::getline(in, x, sep))
        if (!x.empty()) out.push_back(x);
    return out;
}

uint32_t parseCount(const std::string& flag, const std::string& v) {
    size_t pos = 0;
    unsigned long x = 0;
    try {
        x = std::stoul(v, &pos);
    } catch (const std::exception&) {
        pos = 0;
    }
    if (pos == 0 || pos != v.size() || x == 0 || x > 4096)
        throw std::invalid_argument(
            fmt::format("{} '{}': expected a whole number from 1 to 4096", flag, v));
    return uint32_t(x);
}

}  // namespace

CLI::App* TatpCli::add(CLI::App& app, Options& o) {
    auto* c = app.add_subcommand(
        "tatp",
        "TEMP's tensor-stream partition of one linear operator (TATP or the naive ring) "
        "on every group of a die-level wafer");
    c->add_option("--hw", o.hw, "die-level hardware file")->capture_default_str();
    c->add_option("--algo", o.algo, "tatp, ring, or both (one row each)")->capture_default_str();
    c->add_option("--layout", o.layout,
                  "ring (contiguous physical rings), tetris (row-major runs), both, or groups "
                  "in chain order like 0,1,5,4;2,3,7,6")
        ->capture_default_str();
    c->add_option("--n", o.n, "dies per group, or a list (2,4,8,16)")->capture_default_str();
    c->add_option("--m", o.m, "tokens per group (rows of I); default 8 N")->capture_default_str();
    c->add_option("--h", o.h, "input features (columns of I); default 64")->capture_default_str();
    c->add_option("--k", o.k, "output features (columns of W); default 4 N")->capture_default_str();
    c->add_option("--stream", o.stream, "auto (the smaller of W and I), weight or input")
        ->capture_default_str();
    c->add_option("--stages", o.stages, "forward, backward, gradient (comma list)")
        ->capture_default_str();
    c->add_option("--dtype", o.dtype, "fp16, bf16 or fp32 (bytes and PE timing)")
        ->capture_default_str();
    c->add_option("--fsdp", o.fsdp,
                  "FSDP ring all-gathers running beside it, groups in ring order (each die "
                  "sends to the one before it): 5,4,0,1;7,6,2,3");
    c->add_option("--fsdp-elems", o.fsdp_elems, "elements each die contributes to its FSDP gather")
        ->capture_default_str();
    c->add_option("--mapping", o.mapping,
                  "smap (groups as given, dimension-order routes) or tcme (TEMP's traffic-"
                  "conscious optimizer reorders groups and installs routes)")
        ->capture_default_str();
    c->add_option("--heatmap", o.heatmap,
                  "link heatmap (SVG) of the run; with several runs one file each, "
                  "\".<algo>.<layout>.<N>.<mapping>\" before the extension");
    c->add_flag("--timing-only", o.timing_only, "no values (large shapes)");
    c->add_option("--table", o.table, "also write the rows as markdown to this file");
    c->add_option("--seed", o.seed, "operand values")->capture_default_str();
    return c;
}

int TatpCli::run(const Options& o, std::ostream& os) {
    using firmware::temp::StreamSchedule;
    using firmware::temp::TatpKernel;
    const hw::HardwareConfig h = hw::HardwareLoader::loadFile(o.hw);
    std::vector<StreamSchedule::Algo> algos;
    for (const auto& a : split(o.algo, ','))
        if (a == "tatp")
            algos.push_back(StreamSchedule::Algo::Tatp);
        else if (a == "ring")
            algos.push_back(StreamSchedule::Algo::Ring);
        else if (a == "both")
            algos = {StreamSchedule::Algo::Ring, StreamSchedule::Algo::Tatp};
        else
            throw std::invalid_argument(fmt::format("--algo '{}': expected tatp, ring or both", a));
    if (algos.empty()) throw std::invalid_argument("--algo: expected tatp, ring or both");
    std::vector<std::string> layouts;
    if (o.layout == "both")
        layouts = {"ring", "tetris"};
    else
        layouts = {o.layout};
    std::vector<uint32_t> ns;
    for (const auto& x : split(o.n, ',')) ns.push_back(parseCount("--n", x));
    if (ns.empty()) throw std::invalid_argument("--n: expected a group size");
    std::vector<TatpKernel::Stage> stages;
    for (const auto& x : split(o.stages, ','))
        if (x == "forward" || x == "fwd")
            stages.push_back(TatpKernel::Stage::Forward);
        else if (x == "backward" || x == "bwd")
            stages.push_back(TatpKernel::Stage::Backward);
        else if (x == "gradient" || x == "grad")
            stages.push_back(TatpKernel::Stage::Gradient);
        else
            throw std::invalid_argument(
                fmt::format("--stages '{}': expected forward, backward or gradient", x));
    if (stages.empty()) throw std::invalid_argument("--stages: expected at least one stage");
    firmware::DType dt;
    if (o.dtype == "fp16")
        dt = firmware::DType::FP16;
    else if (o.dtype == "bf16")
        dt = firmware::DType::BF16;
    else if (o.dtype == "fp32")
        dt = firmware::DType::FP32;
    else
        throw std::invalid_argument(
            fmt::format("--dtype '{}': expected fp16, bf16 or fp32", o.dtype));
    if (o.stream != "auto" && o.stream != "weight" && o.stream != "input")
        throw std::invalid_argument(
            fmt::format("--stream '{}': expected auto, weight or input", o.stream));

    std::vector<TatpResult> rows;
    std::ostringstream written;  // the heatmaps' summary lines, after the report or table
    bool ok = true;
    for (uint32_t n : ns)
        for (const auto& layout : layouts)
            for (auto a : algos) {
                TatpRunSpec s;
                s.layout = layout, s.n = n, s.seed = o.seed;
                s.functional = !o.timing_only;
                s.kernel.algo = a, s.kernel.dtype = dt, s.kernel.stages = stages;
                s.kernel.m = o.m ? o.m : 8 * n;
                s.kernel.h = o.h ? o.h : 64;
                s.kernel.k = o.k ? o.k : 4 * n;
                s.auto_stream = o.stream == "auto";
                s.fsdp = o.fsdp, s.fsdp_elems = o.fsdp_elems, s.mapping = o.mapping;
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
                    std::string path = o.heatmap;
                    if (several) {
                        const auto dot = path.rfind('.');
                        const std::string tag = fmt::format(".{}.{}.{}.{}", StreamSchedule::name(a),
                                                            lname, n, o.mapping);
                        path = dot == std::string::npos
                                   ? path + tag
                                   : path.substr(0, dot) + tag + path.substr(dot);
                    }
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
