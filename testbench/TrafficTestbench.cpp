#include "testbench/TrafficTestbench.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <utility>

#include "dram/LatencyHistogram.h"
#include "hw/rtl/RtlRouterFactory.h"
#include "noc/ZeroLoadModel.h"
#include "testbench/ObservedDriver.h"
#include "testbench/ProgressLine.h"
#include "testbench/TrafficGenerator.h"
#include "testbench/TrafficPattern.h"
#include "testbench/TrafficWarnings.h"

namespace wsc::tb {

std::string TrafficTestbench::describe(const noc::NocParams& np) {
    const auto& t = np.topology;
    static const char* algos[] = {"xy", "yx", "table"};
    // With faults the unicast routing is the fault policy (docs/NOC.md, "Faults").
    std::string routing = !np.faults.any()                  ? algos[static_cast<int>(np.routing)]
                          : np.faults.escape(np.router.vcs) ? "escape (faults)"
                                                            : "up*/down* (faults)";
    const auto& st = np.router.stages;
    const std::string router =
        np.router.staged ? fmt::format("stages rc {} va {} sa {} st {}", st.rc, st.va, st.sa, st.st)
                         : fmt::format("pipeline {}", np.router.pipeline);
    std::string out = fmt::format(
        "{}x{} {}, {} routing, {} VCs x {} flits, {}, {} B flits, link {} cyc x {} B/cyc", t.x, t.y,
        t.wrap ? "torus" : "mesh", routing, np.router.vcs, np.router.vc_buffer_flits, router,
        np.flit_bytes, np.link.latency, np.link.width_bytes);
    if (t.wafer_x || t.wafer_y)
        out += fmt::format(", {} x {} wafers joined by w2w links {} cyc x {} B/cyc",
                           t.wafer_x ? t.x / t.wafer_x : 1, t.wafer_y ? t.y / t.wafer_y : 1,
                           np.w2w.latency, np.w2w.width_bytes);
    return out;
}

TrafficResult TrafficTestbench::run(const noc::NocParams& np, const noc::TrafficParams& tp,
                                    noc::NocShell& shell, const TrafficRunOptions& opt) {
    auto t0 = std::chrono::steady_clock::now();
    noc::Network net(np, tp.seed);
    // Positions the YAML gives to the Verilated RTL router (noc.rtl_routers).
    rtl::RtlRouterFactory::install(net, np.rtl_routers, opt.rtl_fst_path);
    TrafficPattern pattern(tp.pattern, net.topology(), tp.hotspot_node, tp.hotspot_fraction);
    TrafficGenerator gen(net, tp, pattern);
    const double built =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::unique_ptr<ProgressLine> progress;
    if (opt.progress) {
        const double window = double(tp.warmup_cycles + tp.measure_cycles);
        progress = std::make_unique<ProgressLine>([&net, window](uint64_t c) {
            return fmt::format("{:.0f}% of warm-up+measure, {} flits in flight", 100.0 * c / window,
                               net.flitsInNetwork());
        });
        gen.progress = [p = progress.get()](uint64_t c) { p->tick(c); };
    }
    if (!opt.vcd_path.empty()) shell.traceRouters(opt.vcd_path, net, opt.trace_routers);
    if (opt.observers.empty()) {
        shell.run(net, gen);
    } else {
        ObservedDriver observed(gen, opt.observers, net, nullptr);
        observed.finish(shell.run(net, observed));
    }
    if (progress) progress->clear();
    TrafficResult r;
    gen.fill(r);
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.build_seconds = built;
    r.flit_router_traversals = net.flitRouterTraversals();
    r.flits_injected = net.flitsInjected();
    r.flits_ejected = net.flitsEjected();
    r.link_retries = net.linkRetries();
    r.link_energy_pj = net.linkEnergyPj();
    r.max_vc_occupancy = net.maxBufferOccupancy();  // RTL positions included (ExternalRouter)
    r.failed_links = net.faults().failedLinks();
    r.failed_routers = net.faults().failedRouters();
    if (r.drained) {
        net.checkConservation();  // throws with the counts if anything was lost or duplicated
        r.conservation_ok = true;
    }
    noc::ZeroLoadModel zl(net);
    if (tp.pattern == "uniform") {
        r.zero_load_latency = zl.uniformMeanLatency(tp.packet_flits, &r.zero_load_sampled_pairs);
    } else if (tp.pattern != "hotspot") {
        zl.buildPathSums(tp.packet_flits);  // O(1) a pair where it applies (N pairs at scale)
        std::mt19937_64 rng(1);
        double s = 0;
        uint32_t cnt = 0;
        for (uint32_t n = 0; n < net.nodes(); ++n) {
            uint32_t d = pattern.dest(n, rng);
            if (!net.reachable(n, d)) continue;
            s += zl.packetLatency(n, d, tp.packet_flits);
            ++cnt;
        }
        r.zero_load_latency = cnt ? s / cnt : 0;
    }
    {  // The farthest pair: opposite corners of a mesh, half-way round a torus.
        const auto& t = np.topology;
        const uint32_t lp = t.local_ports, X = t.x, Y = t.y;
        auto node = [lp, X](uint32_t x, uint32_t y) { return (y * X + x) * lp; };
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        if (t.wrap)
            pairs = {{node(0, 0), node(X / 2, Y / 2)}};
        else
            pairs = {{node(0, 0), node(X - 1, Y - 1)}, {node(X - 1, 0), node(0, Y - 1)}};
        for (auto [a, b] : pairs)
            for (auto [s, d] : {std::pair{a, b}, std::pair{b, a}})
                if (net.reachable(s, d))
                    r.longest_path_latency = std::max<uint64_t>(
                        r.longest_path_latency, zl.packetLatency(s, d, tp.packet_flits));
    }
    r.latency_p99_bin_bound = dram::LatencyHistogram::isBinBound(r.latency_p99, r.latency_max);
    r.warnings = TrafficWarnings::of(tp, r);
    for (uint32_t tr : opt.vcd_path.empty() ? std::vector<uint32_t>{} : opt.trace_routers)
        if (net.isExternal(tr))
            r.warnings.push_back(fmt::format(
                "--trace: router {} is an RTL router (noc.rtl_routers), the VCD has no signals "
                "for it (--rtl-fst writes its internals)",
                tr));
    if (opt.stats) {
        nlohmann::json& j = *opt.stats;
        net.dumpStats(j["noc"]);
        toJson(j["traffic"], r);
        // Per-link utilisation over the measurement window: busy cycles / window cycles.
        nlohmann::json util = nlohmann::json::object();
        for (const auto& [l, busy] : gen.windowLinkBusy())
            util[net.linkName(l)] = double(busy) / double(tp.measure_cycles);
        j["traffic"]["link_utilization"] = std::move(util);
    }
    return r;
}

void TrafficTestbench::toJson(nlohmann::json& j, const TrafficResult& r) {
    j = {{"offered_flits_per_node_cycle", r.offered},
         {"offered_actual", r.offered_actual},
         {"accepted_flits_per_node_cycle", r.accepted},
         {"measured_packets", r.measured_packets},
         {"latency_avg_cycles", r.latency_avg},
         {"latency_p50_cycles", r.latency_p50},
         {"latency_p99_cycles", r.latency_p99},
         {"latency_p99_bin_bound", r.latency_p99_bin_bound},
         {"longest_path_latency_cycles", r.longest_path_latency},
         {"warnings", r.warnings},
         {"latency_max_cycles", r.latency_max},
         {"network_latency_avg_cycles", r.network_latency_avg},
         {"hops_avg", r.hops_avg},
         {"routers_avg", r.hops_avg + 1},
         {"zero_load_latency_cycles", r.zero_load_latency},
         {"link_util_avg", r.link_util_avg},
         {"link_util_max", r.link_util_max},
         {"link_util_max_link", r.link_util_max_name},
         {"drained", r.drained},
         {"cycles",
          {{"warmup", r.warmup},
           {"measure", r.measure},
           {"drain", r.drain},
           {"total", r.total_cycles}}},
         {"flit_router_traversals", r.flit_router_traversals},
         {"flits_injected", r.flits_injected},
         {"flits_ejected", r.flits_ejected},
         {"link_retries", r.link_retries},
         {"link_energy_pj", r.link_energy_pj},
         {"max_vc_occupancy_flits", r.max_vc_occupancy},
         {"conservation_ok", r.conservation_ok},
         {"unreachable_packets", r.unreachable_packets},
         {"failed_links", r.failed_links},
         {"failed_routers", r.failed_routers},
         {"wall_seconds", r.wall_seconds},
         {"build_seconds", r.build_seconds}};
}

void TrafficTestbench::printReport(std::ostream& os, const noc::NocParams& np,
                                   const noc::TrafficParams& tp, const TrafficResult& r) {
    fmt::print(os, "wsc traffic: {}\n", describe(np));
    fmt::print(os,
               "  workload            {} at {:.3f} flits/node/cycle, {}-flit packets, seed {}\n",
               tp.pattern, tp.rate, tp.packet_flits, tp.seed);
    fmt::print(os, "  phases (cycles)     warm-up {}, measure {}, drain {}, total {}\n", r.warmup,
               r.measure, r.drain, r.total_cycles);
    const bool short_drain = tp.drain_cycles < r.longest_path_latency;
    fmt::print(os, "  packets measured    {}{}\n", r.measured_packets,
               r.drained     ? ""
               : short_drain ? "  (NOT all drained: the drain window is shorter than the longest "
                               "path)"
                             : "  (NOT all drained: network saturated)");
    fmt::print(os, "  packet latency      avg {:.2f}  p50 {}  p99 {}{}  max {} cycles\n",
               r.latency_avg, r.latency_p50, r.latency_p99_bin_bound ? "<= " : "", r.latency_p99,
               r.latency_max);
    if (r.latency_p99_bin_bound)
        fmt::print(os,
                   "                      (p99 is the upper edge of its histogram bin: "
                   "latencies >= {} cycles are binned by powers of two)\n",
                   dram::LatencyHistogram::kLinear);
    fmt::print(os,
               "  network latency     avg {:.2f} cycles (head injection to tail ejection; the "
               "source queue adds {:.2f}; the NI channels {} + {})\n",
               r.network_latency_avg, r.latency_avg - r.network_latency_avg, np.local_link.latency,
               np.local_link.latency);
    if (r.zero_load_latency > 0)
        fmt::print(os, "  zero-load latency   {:.2f} cycles ({})\n", r.zero_load_latency,
                   r.zero_load_sampled_pairs
                       ? fmt::format("closed form per pair, mean of {} sampled pairs",
                                     r.zero_load_sampled_pairs)
                       : std::string("closed form for this pattern"));
    fmt::print(os, "  average hops        {:.3f} links ({:.3f} routers)\n", r.hops_avg,
               r.hops_avg + 1);
    if (tp.compat_booksim)
        fmt::print(os,
                   "  as BookSim2 counts  packet latency avg {:.2f}, network latency avg {:.2f} "
                   "cycles (+1: the creation cycle it counts at the source), hops {:.3f} "
                   "(routers)\n",
                   r.latency_avg + 1, r.network_latency_avg + 1, r.hops_avg + 1);
    fmt::print(os, "  throughput          offered {:.4f}, accepted {:.4f} flits/node/cycle\n",
               r.offered_actual, r.accepted);
    fmt::print(os, "  link utilization    avg {:.3f}, max {:.3f} ({})\n", r.link_util_avg,
               r.link_util_max, r.link_util_max_name);
    fmt::print(os, "  max VC occupancy    {} of {} flits\n", r.max_vc_occupancy,
               np.router.vc_buffer_flits);
    if (r.link_retries) fmt::print(os, "  D2D link retries    {}\n", r.link_retries);
    if (r.failed_links || r.failed_routers)
        fmt::print(os,
                   "  faults              {} failed links, {} failed routers ({} routing); "
                   "{} packets not sent: destination unreachable\n",
                   r.failed_links, r.failed_routers,
                   np.faults.routing == noc::FaultRouting::Escape && np.router.vcs >= 2
                       ? "escape: shortest paths + up*/down* escape VC"
                       : "up*/down*",
                   r.unreachable_packets);
    fmt::print(os, "  link energy         {:.3f} uJ\n", r.link_energy_pj * 1e-6);
    fmt::print(os, "  conservation        {}\n",
               r.conservation_ok ? fmt::format("ok: {} flits injected, {} ejected, none lost or "
                                               "duplicated",
                                               r.flits_injected, r.flits_ejected)
                                 : std::string("not checked (run did not drain)"));
    for (const auto& w : r.warnings) fmt::print(os, "  warning             {}\n", w);
    // Per simulated second: building the network is reported apart (it grows with the mesh, not
    // with the cycles).
    const double sim = std::max(1e-9, r.wall_seconds - r.build_seconds);
    fmt::print(os,
               "  simulation speed    {:.0f} cycles/s, {:.2f} M flit-router traversals/s ({:.2f} s "
               "simulating, {:.2f} s building)\n",
               r.total_cycles / sim, r.flit_router_traversals / sim / 1e6, sim, r.build_seconds);
}

bool TrafficTestbench::saturated(const TrafficResult& r) {
    // Past the knee either throughput stops following the offered load or latency explodes
    // while the source queues absorb the excess; either marks the saturation point.
    return !r.drained || r.accepted < TrafficWarnings::kAcceptedShare * r.offered_actual ||
           (r.zero_load_latency > 0 && r.latency_avg > 5 * r.zero_load_latency);
}

std::vector<TrafficResult> TrafficTestbench::sweep(const noc::NocParams& np, noc::TrafficParams tp,
                                                   const std::vector<double>& rates,
                                                   noc::NocShell& shell, std::ostream* live) {
    std::vector<TrafficResult> out;
    if (live)
        fmt::print(*live, "{:>8} {:>9} {:>9} {:>9} {:>6} {:>6}  {}\n", "offered", "accepted",
                   "lat_avg", "net_lat", "p99", "hops", "note");
    for (double rate : rates) {
        tp.rate = rate;
        TrafficResult r = run(np, tp, shell);
        out.push_back(r);
        if (live) {
            fmt::print(*live, "{:>8.3f} {:>9.4f} {:>9.2f} {:>9.2f} {:>6} {:>6.2f}  {}\n",
                       r.offered_actual, r.accepted, r.latency_avg, r.network_latency_avg,
                       r.latency_p99, r.hops_avg, saturated(r) ? "saturated" : "");
            live->flush();
        }
        if (saturated(r)) break;
    }
    return out;
}

void TrafficTestbench::printSweep(std::ostream& os, const std::vector<TrafficResult>& rs) {
    fmt::print(os,
               "| offered | accepted | latency avg | network latency | p99 | hops | saturated |\n");
    fmt::print(os, "|---:|---:|---:|---:|---:|---:|:--|\n");
    for (const auto& r : rs)
        fmt::print(os, "| {:.3f} | {:.4f} | {:.2f} | {:.2f} | {} | {:.2f} | {} |\n",
                   r.offered_actual, r.accepted, r.latency_avg, r.network_latency_avg,
                   r.latency_p99, r.hops_avg, saturated(r) ? "yes" : "");
}

}  // namespace wsc::tb
