#include "testbench/TatpTestbench.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

#include "core/CoreArray.h"
#include "firmware/temp/TrafficMap.h"
#include "hw/EnergyModel.h"
#include "noc/Network.h"
#include "testbench/ObservedDriver.h"

namespace wsc::tb {

namespace {

using firmware::temp::GroupLayout;
using firmware::temp::StreamSchedule;
using firmware::temp::TatpKernel;

// A group's matrices, row-major: small integers, so every sum is exact in fp32 and the check
// can ask for equality whatever the order of accumulation.
struct Matrices {
    uint32_t m, h, k;
    std::vector<float> I, IT, W, dO, O, dI, dW;
    const std::vector<float>& byName(const std::string& n) const {
        if (n == "I") return I;
        if (n == "IT") return IT;
        if (n == "W") return W;
        if (n == "dO") return dO;
        if (n == "O") return O;
        if (n == "dI") return dI;
        if (n == "dW") return dW;
        throw std::logic_error("tatp: unknown matrix " + n);
    }
    uint32_t cols(const std::string& n) const {
        if (n == "I" || n == "dI") return h;
        if (n == "IT") return m;
        return k;  // W, dW [h x k]; dO, O [m x k]
    }
};

Matrices makeMatrices(uint32_t m, uint32_t h, uint32_t k, uint64_t seed) {
    Matrices x{m, h, k, {}, {}, {}, {}, {}, {}, {}};
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> d(-3, 3);
    auto fill = [&](std::vector<float>& v, size_t n) {
        v.resize(n);
        for (float& f : v) f = float(d(rng));
    };
    fill(x.I, size_t(m) * h), fill(x.W, size_t(h) * k), fill(x.dO, size_t(m) * k);
    x.IT.resize(size_t(h) * m);
    for (uint32_t i = 0; i < m; ++i)
        for (uint32_t j = 0; j < h; ++j) x.IT[size_t(j) * m + i] = x.I[size_t(i) * h + j];
    x.O.assign(size_t(m) * k, 0), x.dI.assign(size_t(m) * h, 0), x.dW.assign(size_t(h) * k, 0);
    for (uint32_t i = 0; i < m; ++i)
        for (uint32_t a = 0; a < h; ++a)
            for (uint32_t j = 0; j < k; ++j) {
                const float iv = x.I[size_t(i) * h + a], wv = x.W[size_t(a) * k + j],
                            gv = x.dO[size_t(i) * k + j];
                x.O[size_t(i) * k + j] += iv * wv;
                x.dI[size_t(i) * h + a] += gv * wv;
                x.dW[size_t(a) * k + j] += iv * gv;
            }
    return x;
}

}  // namespace

TatpResult TatpTestbench::run(const noc::NocParams& np, const core::CoreParams& cp_in,
                              const TatpRunSpec& s_in, const std::vector<RunObserver*>& observers,
                              const hw::EnergyParams& energy) {
    const auto t0 = std::chrono::steady_clock::now();
    TatpRunSpec s = s_in;
    const auto& topo = np.topology;
    if (topo.die_x && (topo.die_x != 1 || topo.die_y != 1))
        throw std::invalid_argument(fmt::format(
            "tatp: the hardware file must be die-level (one router per die: wafer.cores_per_die "
            "1 x 1), it has {} x {} routers per die",
            topo.die_x, topo.die_y));
    const firmware::placement::DieArray arr{topo.x, topo.y};
    auto groups = GroupLayout::make(s.layout, s.n, arr);
    if (s.auto_stream) s.kernel.stream = TatpKernel::choose(s.kernel.m, s.kernel.h, s.kernel.k);
    if (s.mapping != "smap" && s.mapping != "tcme")
        throw std::invalid_argument(
            fmt::format("tatp: mapping '{}' is unknown (expected smap or tcme)", s.mapping));
    std::vector<GroupLayout::Group> fsdp;
    if (!s.fsdp.empty()) {
        fsdp = GroupLayout::parse(s.fsdp, arr);
        if (s.fsdp_elems == 0) throw std::invalid_argument("tatp: FSDP groups need a shard size");
    }
    s.kernel.fsdp_elems = s.fsdp_elems;

    // TCME's view of the forward's flows: TATP chains and FSDP rings together.
    std::vector<firmware::temp::TrafficMap::Group> tg;
    for (const auto& g : fsdp) tg.push_back({"fsdp", g});
    for (const auto& g : groups) tg.push_back({"tatp", g});
    firmware::temp::TrafficMap tm(arr, tg);
    TatpResult r;
    const auto before = tm.load();
    r.load_max_before = before.max, r.load_at_max_before = before.at_max;
    r.load_mean_before = before.mean;
    if (s.mapping == "tcme")
        for (const auto& mv : tm.optimize(64, s.tcme_moves)) r.moves.push_back(mv.what);
    const auto after = tm.load();
    r.load_max = after.max, r.load_at_max = after.at_max, r.load_mean = after.mean;
    for (size_t i = 0; i < tm.groups().size(); ++i)
        (i < fsdp.size() ? fsdp[i] : groups[i - fsdp.size()]) = tm.groups()[i].order;
    s.kernel.fsdp = fsdp;

    core::CoreParams cp = cp_in;
    cp.functional = s.functional;
    noc::Network net(np, s.seed);
    // The routes TCME moved off dimension order, as table routes (stream 1: FSDP, 0: TATP).
    for (const auto& [key, yx] : tm.yxFlows()) {
        if (!yx) continue;
        const auto& [g, src, dst] = key;
        firmware::temp::TrafficMap::Flow f;
        f.group = g, f.src = src, f.dst = dst, f.yx = true;
        const uint32_t stream = g < fsdp.size() ? 1 : 0;
        s.kernel.routes[{stream, src, dst}] = net.addPathRoute(src, dst, tm.path(f));
        ++r.installed_routes;
    }
    // Merged flows: one multicast route per tree (X-first tree, as TrafficMap counts it).
    for (const auto& t : tm.trees()) {
        s.kernel.multicast[{t.src, t.round}] = net.addMulticastRoute(t.src, t.dsts);
        ++r.installed_routes, ++r.multicast_trees;
    }
    TatpKernel::Plan plan = TatpKernel::build(arr, groups, s.kernel);
    core::CoreArray cores(net, cp);
    cores.load(std::move(plan.fw));

    std::map<uint32_t, Matrices> mats;
    if (s.functional) {
        for (uint32_t g = 0; g < groups.size(); ++g)
            mats.emplace(g, makeMatrices(s.kernel.m, s.kernel.h, s.kernel.k, s.seed * 1000 + g));
        for (const auto& b : plan.inputs) {
            const Matrices& x = mats.at(b.group);
            const auto& src = x.byName(b.matrix);
            const uint32_t cols = x.cols(b.matrix);
            float* d = cores.core(b.tile.core).buffer(b.tile.buffer);
            if (!d) throw std::logic_error("tatp: missing buffer " + b.tile.buffer);
            for (uint32_t r = 0; r < b.tile.rows; ++r)
                for (uint32_t c = 0; c < b.tile.cols; ++c)
                    d[size_t(r) * b.tile.cols + c] =
                        src[size_t(b.tile.row0 + r) * cols + b.tile.col0 + c];
        }
    }
    ObservedDriver observed(cores, observers, net, &cores);
    const uint64_t last =
        observers.empty() ? cores.run(noc::kNever) : cores.run(noc::kNever, observed);
    cores.finish(last);
    observed.finish(last);
    net.checkConservation();

    r.spec = s;
    r.notes = plan.notes;
    r.groups = groups;
    for (const auto& g : groups) {
        for (uint32_t h : GroupLayout::chainHops(g, arr))
            r.max_chain_hops = std::max(r.max_chain_hops, h);
        r.wrap_hops = std::max(r.wrap_hops, GroupLayout::wrapHops(g, arr));
    }
    r.cycles = cores.lastFinish() + 1;
    r.useful_macs = plan.useful_macs;
    r.slots = plan.slots;
    r.item_bytes = plan.item_bytes;
    for (uint32_t id : plan.cores) {
        const auto& c = cores.core(id);
        r.compute_cycles = std::max(r.compute_cycles, c.stats().pe_busy + c.stats().vector_busy);
        r.sram_peak = std::max(r.sram_peak, c.sram().peak());
    }
    const double peak = double(cores.peakMacsPerCycle()) * plan.cores.size() * double(r.cycles);
    r.efficiency = peak > 0 ? double(r.useful_macs) / peak : 0;
    uint32_t d2d = 0;
    for (const auto& l : net.links()) {
        if (l.kind() != noc::Link::Kind::D2D) continue;
        const double u = double(l.busyCycles()) / double(r.cycles);
        r.link_max = std::max(r.link_max, u);
        r.link_mean += u, ++d2d;
        r.d2d_flits += l.flits();
    }
    if (d2d) r.link_mean /= d2d;
    r.events.cycles = r.cycles;
    hw::EnergyModel::countNetwork(r.events, net);
    for (uint32_t id = 0; id < cores.cores(); ++id)
        hw::EnergyModel::countCore(r.events, cores.core(id).stats());
    r.energy = hw::EnergyModel(np, energy, std::nullopt).evaluate(r.events);

    if (s.functional) {
        r.checked = true, r.correct = true;
        std::map<std::pair<uint32_t, std::string>, std::vector<uint8_t>> covered;
        for (const auto& b : plan.outputs) {
            const Matrices& x = mats.at(b.group);
            const auto& ref = x.byName(b.matrix);
            const uint32_t cols = x.cols(b.matrix);
            auto& cov = covered[{b.group, b.matrix}];
            cov.resize(ref.size(), 0);
            const float* d = cores.core(b.tile.core).buffer(b.tile.buffer);
            for (uint32_t i = 0; i < b.tile.rows; ++i)
                for (uint32_t j = 0; j < b.tile.cols; ++j) {
                    const size_t at = size_t(b.tile.row0 + i) * cols + b.tile.col0 + j;
                    const float v = d[size_t(i) * b.tile.cols + j];
                    r.max_abs_error = std::max(r.max_abs_error, double(std::fabs(v - ref[at])));
                    r.correct &= v == ref[at];
                    cov[at] = 1;
                }
        }
        for (const auto& [key, cov] : covered)
            r.correct &= std::all_of(cov.begin(), cov.end(), [](uint8_t c) { return c != 0; });
        // Every stage asked for must have produced its output.
        r.correct &= covered.size() == groups.size() * s.kernel.stages.size();
    }
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

void TatpTestbench::printReport(std::ostream& os, const TatpResult& r) {
    const auto& s = r.spec;
    fmt::print(os, "tatp: {} groups of {} ({} layout), {}\n", r.groups.size(), s.n, s.layout,
               r.notes);
    std::string stages;
    for (auto st : s.kernel.stages)
        stages += std::string(stages.empty() ? "" : ", ") + TatpKernel::name(st);
    fmt::print(os, "  operator               I [{} x {}] x W [{} x {}] per group; stages {}\n",
               s.kernel.m, s.kernel.h, s.kernel.h, s.kernel.k, stages);
    fmt::print(os, "  chain hops             longest step {}, ring wrap {}\n", r.max_chain_hops,
               r.wrap_hops);
    fmt::print(os, "  cycles                 {}\n", r.cycles);
    fmt::print(os, "  compute (busiest die)  {} cycles, exposed communication {}\n",
               r.compute_cycles, r.cycles > r.compute_cycles ? r.cycles - r.compute_cycles : 0);
    fmt::print(os, "  compute utilisation    {:.1f}% (useful MACs / peak of every die)\n",
               100 * r.efficiency);
    fmt::print(os, "  stream buffers         {} per die of {} B; SRAM peak {} B\n", r.slots,
               r.item_bytes, r.sram_peak);
    fmt::print(os, "  D2D links              max {:.1f}% busy, mean {:.1f}%, {} flits\n",
               100 * r.link_max, 100 * r.link_mean, r.d2d_flits);
    fmt::print(os,
               "  flows per link (TCME)  busiest (round, link) {} flows ({} pairs), mean {:.2f}",
               r.load_max, r.load_at_max, r.load_mean);
    if (s.mapping == "tcme")
        fmt::print(os,
                   "; before TCME {} ({} pairs), mean {:.2f}; {} moves, {} table routes ({} "
                   "multicast trees)",
                   r.load_max_before, r.load_at_max_before, r.load_mean_before, r.moves.size(),
                   r.installed_routes, r.multicast_trees);
    fmt::print(os, "\n");
    for (const auto& m : r.moves) fmt::print(os, "    {}\n", m);
    if (r.checked)
        fmt::print(os, "  result                 {} (max |x - reference| = {:g})\n",
                   r.correct ? "equals the reference" : "DIFFERS from the reference",
                   r.max_abs_error);
}

void TatpTestbench::printTableHeader(std::ostream& os) {
    fmt::print(os,
               "| algo | layout | N | stream | chain hops | wrap hops | cycles | utilisation | "
               "exposed comm | buffers | D2D max | D2D mean |\n");
    fmt::print(os, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

void TatpTestbench::printTableRow(std::ostream& os, const TatpResult& r) {
    const uint64_t exposed = r.cycles > r.compute_cycles ? r.cycles - r.compute_cycles : 0;
    fmt::print(os, "| {} | {} | {} | {} | {} | {} | {} | {:.1f}% | {} | {} | {:.1f}% | {:.1f}% |\n",
               StreamSchedule::name(r.spec.kernel.algo), r.spec.layout, r.spec.n,
               TatpKernel::name(r.spec.kernel.stream), r.max_chain_hops, r.wrap_hops, r.cycles,
               100 * r.efficiency, exposed, r.slots, 100 * r.link_max, 100 * r.link_mean);
}

}  // namespace wsc::tb
