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

// A measured time as a divisor: a run too short for the clock reads as a nanosecond.
double wallOf(const NocBench::Row& r) {
    return std::max(r.wall, 1e-9);
}

const NocBench::Row* firstFailed(const std::vector<NocBench::Row>& runs) {
    const auto bad =
        std::find_if(runs.begin(), runs.end(), [](const NocBench::Row& r) { return !r.ok; });
    return bad == runs.end() ? nullptr : &*bad;
}

}  // namespace

std::string NocBench::tableRows(const std::vector<Result>& group) {
    std::string out;
    for (const Result& res : group) {
        const Case& c = res.c;
        if (const Row* bad = firstFailed(res.runs)) {
            out += fmt::format("| {0}x{0} | {1} | {2} | error: {3} |\n", c.k, c.rate, c.threads,
                               bad->error);
            continue;
        }
        if (res.runs.empty()) continue;
        std::vector<double> wall, build;
        long rss_kb = 0;
        for (const Row& r : res.runs) {
            wall.push_back(wallOf(r));
            build.push_back(r.build);
            rss_kb = std::max(rss_kb, r.rss_kb);
        }
        const Row& r = res.runs[0];
        const double w = median(wall);
        out += fmt::format(
            "| {0}x{0} | {1:.3f} | {9} | {2} | {3:.2f} | {4:.2f} | {5:.0f} | {6:.2f} | "
            "{7:.4f} | {8:.1f} |\n",
            c.k, c.rate, r.cycles, median(build), w, r.cycles / w, r.traversals / w / 1e6,
            r.accepted, rss_kb / 1024.0, c.threads);
    }
    return out;
}

std::string NocBench::speedupRows(const std::vector<Result>& group) {
    const auto one =
        std::find_if(group.begin(), group.end(), [](const Result& r) { return r.c.threads == 1; });
    if (one == group.end()) return "";
    std::string out;
    for (const Result& res : group) {
        if (res.c.threads == 1) continue;
        const Case& c = res.c;
        const size_t rounds = std::min(one->runs.size(), res.runs.size());
        if (!rounds || firstFailed(one->runs) || firstFailed(res.runs)) {
            out += fmt::format("| {0}x{0} | {1:.3f} | {2} | not measured: a run failed | | | |\n",
                               c.k, c.rate, c.threads);
            continue;
        }
        // This count's runs and the one-thread runs, all against the first one-thread run.
        bool identical = true;
        for (const auto* runs : {&one->runs, &res.runs})
            for (const Row& r : *runs) identical = identical && sameResults(r, one->runs[0]);
        std::vector<double> ratio;
        std::string each;
        double best_one = wallOf(one->runs[0]), best = wallOf(res.runs[0]);
        for (size_t r = 0; r < rounds; ++r) {
            ratio.push_back(wallOf(one->runs[r]) / wallOf(res.runs[r]));
            each += fmt::format("{}{:.2f}", r ? ", " : "", ratio.back());
            best_one = std::min(best_one, wallOf(one->runs[r]));
            best = std::min(best, wallOf(res.runs[r]));
        }
        out += fmt::format("| {0}x{0} | {1:.3f} | {2} | {3} | {4:.2f} | {5:.2f} | {6} |\n", c.k,
                           c.rate, c.threads, each, median(ratio), best_one / best,
                           identical ? "yes" : "NO");
    }
    return out;
}

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
        std::vector<Result> group;
        for (size_t i = g; i < e; ++i) group.push_back({cases[i], {}});
        // Rounds alternate the order (1, 2, then 2, 1, ...), so a host whose speed drifts
        // during a round does not favour the count that always runs first.
        for (unsigned r = 0; r < repeat; ++r)
            for (size_t k = 0; k < group.size(); ++k) {
                Result& res = group[r % 2 ? group.size() - 1 - k : k];
                res.runs.push_back(runCase(res.c));
            }
        fmt::print(os, "{}", tableRows(group));
        os.flush();
        speedups += speedupRows(group);
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
