#include "testbench/NocBench.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "noc/NocShell.h"
#include "testbench/ForkedRun.h"
#include "testbench/TrafficTestbench.h"

namespace wsc::tb {

std::vector<NocBench::Case> NocBench::defaultCases(bool quick, const std::vector<uint32_t>& meshes,
                                                   const std::vector<unsigned>& threads) {
    std::vector<Case> all;
    if (quick) {
        all = {{8, 0.1, 200, 2000}, {8, 0.3, 200, 2000}, {32, 0.02, 200, 1000}};
    } else {
        // Saturated large meshes are bounded by a fixed cycle budget: the point is speed, not
        // curves. Warm-ups are raised to twice the zero-load latency where that is longer
        // (runCase). From 128x128 each case also runs with 2 threads.
        all = {{8, 0.1, 1000, 20000},     {8, 0.3, 1000, 20000},          {32, 0.02, 1000, 5000},
               {32, 0.1, 500, 3000},      {32, 0.3, 500, 3000},           {128, 0.02, 200, 1000},
               {128, 0.02, 200, 1000, 2}, {128, 0.1, 100, 400},           {128, 0.3, 100, 400},
               {256, 0.005, 0, 200},      {256, 0.005, 0, 200, 2},        {512, 0.002, 0, 100},
               {512, 0.002, 0, 100, 2},   {1024, 0.005, 0, 1000, 2, true}};
    }
    std::vector<Case> out;
    for (const Case& c : all) {
        if (!meshes.empty() && std::find(meshes.begin(), meshes.end(), c.k) == meshes.end())
            continue;
        if (threads.empty()) {
            out.push_back(c);
            continue;
        }
        if (c.threads != 1 && !c.fixed) continue;  // the threaded twin of a one-thread case
        for (unsigned t : threads) {
            Case d = c;
            d.threads = t;
            out.push_back(d);
        }
    }
    return out;
}

NocBench::Row NocBench::runCase(const Case& c) {
    Row row;
    row.c = c;
    const ForkedResult f = ForkedRun::run([&] {
        noc::NocParams np;  // the defaults are the 8x8 acceptance router: 4 VCs x 8, pipeline 2
        np.topology.x = np.topology.y = c.k;
        np.watchdog_cycles = 100000;
        noc::TrafficParams tp;
        tp.rate = c.rate;
        // At least twice the uniform mean zero-load latency (closed form, docs/NOC.md), so the
        // measured window sees a network in steady state, not one still filling.
        const double hops = 2.0 * (double(c.k) * c.k - 1) / (3.0 * c.k);
        const double t0 = 2 + (hops + 1) * np.router.hopCycles() + hops * np.link.latency;
        tp.warmup_cycles = c.fixed ? c.warmup : std::max<uint64_t>(c.warmup, uint64_t(2 * t0) + 1);
        tp.measure_cycles = c.measure;
        tp.drain_cycles = c.fixed ? 0 : c.measure;  // bounded: a saturated mesh stops after this
        np.threads = c.threads;
        noc::NocShell shell("bench", np.clock_hz);
        TrafficResult r = TrafficTestbench::run(np, tp, shell);
        return fmt::format("{} {} {} {} {}", r.total_cycles, r.wall_seconds - r.build_seconds,
                           double(r.flit_router_traversals), r.accepted, r.build_seconds);
    });
    if (f.ok) {
        row.ok = std::sscanf(f.answer.c_str(), "%lu %lf %lf %lf %lf", &row.cycles, &row.wall,
                             &row.traversals, &row.accepted, &row.build) == 5;
        row.rss_kb = f.max_rss_kb;
    } else {
        row.error = f.answer;
    }
    return row;
}

namespace {

// The same work at another thread count: rows that a speed-up compares.
bool sameWork(const NocBench::Case& a, const NocBench::Case& b) {
    return a.k == b.k && a.rate == b.rate && a.warmup == b.warmup && a.measure == b.measure &&
           a.fixed == b.fixed;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool sameResults(const NocBench::Row& a, const NocBench::Row& b) {
    return a.cycles == b.cycles && a.traversals == b.traversals && a.accepted == b.accepted;
}

}  // namespace

void NocBench::run(std::ostream& os, const std::vector<Case>& cases, unsigned repeat) {
    repeat = std::max(1u, repeat);
    fmt::print(os,
               "| mesh | rate | threads | cycles | build s | simulate s | cycles/s | M flit-router "
               "traversals/s | accepted | peak RSS MB |\n");
    fmt::print(os, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::string speedups;  // the second table's rows
    for (size_t g = 0; g < cases.size();) {
        size_t e = g + 1;
        while (e < cases.size() && sameWork(cases[e], cases[g])) ++e;
        // runs[i][r]: case g + i in round r. Rounds alternate the thread counts.
        std::vector<std::vector<Row>> runs(e - g);
        for (unsigned r = 0; r < repeat; ++r)
            for (size_t i = g; i < e; ++i) runs[i - g].push_back(runCase(cases[i]));
        bool all_ok = true, identical = true;
        for (const auto& rs : runs)
            for (const Row& r : rs) {
                all_ok = all_ok && r.ok;
                identical = identical && r.ok && sameResults(r, runs[0][0]);
            }
        for (size_t i = 0; i < runs.size(); ++i) {
            const Case& c = cases[g + i];
            const auto bad =
                std::find_if(runs[i].begin(), runs[i].end(), [](const Row& r) { return !r.ok; });
            if (bad != runs[i].end()) {
                fmt::print(os, "| {0}x{0} | {1} | {2} | error: {3} |\n", c.k, c.rate, c.threads,
                           bad->error);
                continue;
            }
            std::vector<double> wall, build;
            long rss_kb = 0;
            for (const Row& r : runs[i]) {
                wall.push_back(r.wall);
                build.push_back(r.build);
                rss_kb = std::max(rss_kb, r.rss_kb);
            }
            const Row& r = runs[i][0];
            const double w = median(wall);
            fmt::print(os,
                       "| {0}x{0} | {1:.3f} | {9} | {2} | {3:.2f} | {4:.2f} | {5:.0f} | {6:.2f} | "
                       "{7:.4f} | {8:.1f} |\n",
                       c.k, c.rate, r.cycles, median(build), w, r.cycles / w,
                       r.traversals / w / 1e6, r.accepted, rss_kb / 1024.0, c.threads);
            os.flush();
        }
        // Speed-up of every other thread count over one thread, round by round.
        const auto one = std::find_if(cases.begin() + g, cases.begin() + e,
                                      [](const Case& c) { return c.threads == 1; });
        if (all_ok && one != cases.begin() + e) {
            const auto& base = runs[one - (cases.begin() + g)];
            for (size_t i = 0; i < runs.size(); ++i) {
                if (cases[g + i].threads == 1) continue;
                std::vector<double> ratio;
                std::string each;
                double best_one = base[0].wall, best = runs[i][0].wall;
                for (unsigned r = 0; r < repeat; ++r) {
                    ratio.push_back(base[r].wall / runs[i][r].wall);
                    each += fmt::format("{}{:.2f}", r ? ", " : "", ratio.back());
                    best_one = std::min(best_one, base[r].wall);
                    best = std::min(best, runs[i][r].wall);
                }
                speedups +=
                    fmt::format("| {0}x{0} | {1:.3f} | {2} | {3} | {4:.2f} | {5:.2f} | {6} |\n",
                                cases[g].k, cases[g].rate, cases[g + i].threads, each,
                                median(ratio), best_one / best, identical ? "yes" : "NO");
            }
        }
        g = e;
    }
    if (!speedups.empty()) {
        fmt::print(os,
                   "\nSpeed-up over one thread (simulate s of one thread / simulate s of N, each "
                   "round, and fastest run over fastest run; results = cycles, traversals and "
                   "accepted rate of every run):\n\n");
        fmt::print(os,
                   "| mesh | rate | threads | each round | median | fastest | same results |\n");
        fmt::print(os, "|---|---:|---:|---|---:|---:|---|\n{}", speedups);
    }
}

}  // namespace wsc::tb
