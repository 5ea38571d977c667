#include "testbench/NocBench.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdio>
#include <ostream>

#include "noc/NocShell.h"
#include "testbench/ForkedRun.h"
#include "testbench/TrafficTestbench.h"

namespace wsc::tb {

std::vector<NocBench::Case> NocBench::defaultCases(bool quick) {
    // Saturated large meshes are bounded by a fixed cycle budget: the point is speed, not curves.
    if (quick) return {{8, 0.1, 200, 2000}, {8, 0.3, 200, 2000}, {32, 0.02, 200, 1000}};
    return {{8, 0.1, 1000, 20000}, {8, 0.3, 1000, 20000}, {32, 0.02, 1000, 5000},
            {32, 0.1, 500, 3000},  {32, 0.3, 500, 3000},  {128, 0.02, 200, 1000},
            {128, 0.1, 100, 400},  {128, 0.3, 100, 400}};
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
        tp.warmup_cycles = c.warmup;
        tp.measure_cycles = c.measure;
        tp.drain_cycles = c.measure;  // bounded: a saturated mesh stops after this
        noc::NocShell shell("bench", np.clock_hz);
        TrafficResult r = TrafficTestbench::run(np, tp, shell);
        return fmt::format("{} {} {} {}", r.total_cycles, r.wall_seconds,
                           double(r.flit_router_traversals), r.accepted);
    });
    if (f.ok) {
        row.ok = std::sscanf(f.answer.c_str(), "%lu %lf %lf %lf", &row.cycles, &row.wall,
                             &row.traversals, &row.accepted) == 4;
        row.rss_kb = f.max_rss_kb;
    } else {
        row.error = f.answer;
    }
    return row;
}

void NocBench::run(std::ostream& os, const std::vector<Case>& cases) {
    fmt::print(os,
               "| mesh | rate | cycles | wall s | cycles/s | M flit-router traversals/s | accepted "
               "| peak RSS MB |\n");
    fmt::print(os, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const auto& c : cases) {
        Row r = runCase(c);
        if (!r.ok) {
            fmt::print(os, "| {0}x{0} | {1} | error: {2} |\n", c.k, c.rate, r.error);
            continue;
        }
        fmt::print(
            os, "| {0}x{0} | {1:.2f} | {2} | {3:.2f} | {4:.0f} | {5:.2f} | {6:.4f} | {7:.1f} |\n",
            c.k, c.rate, r.cycles, r.wall, r.cycles / r.wall, r.traversals / r.wall / 1e6,
            r.accepted, r.rss_kb / 1024.0);
        os.flush();
    }
}

}  // namespace wsc::tb
