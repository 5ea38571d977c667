// Benchmark, not a timed test: latency versus offered load for sequential and random 64 B reads,
// open loop (requests are generated at a fixed rate whether or not the controller keeps up, and
// latency counts from generation, so the source backlog shows beyond saturation). Hidden tag:
// run with `test_dram "[.bench]"`; writes bench/hbm_latency_vs_load.csv in the source tree.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "dram/HbmController.h"
#include "dram/LatencyHistogram.h"

using namespace wsc::dram;

namespace {
struct Point {
    double offered, achieved_gbps, avg_ns, p50_ns, p99_ns, hit_rate, sim_cycles_per_s;
};

Point runLoad(const HbmParams& p, bool sequential, double load) {
    HbmController c(p);
    const uint32_t bytes = 64;
    const double peakBytesPerCycle = p.stackPeakBandwidthBytesPerSec() * p.tCK_ps * 1e-12;
    const double rate = load * peakBytesPerCycle / bytes;  // requests per cycle
    const uint64_t n = 60000, warm = 10000;
    std::mt19937_64 rng(1234);
    auto gen = [&](uint64_t i) { return uint64_t(std::floor(double(i) / rate)); };
    LatencyHistogram lat;
    uint64_t now = 0, next_req = 0, done = 0, measured_bytes = 0, t_first = 0, t_last = 0;
    const auto w0 = std::chrono::steady_clock::now();
    while (done < n) {
        while (next_req < n && gen(next_req) <= now && c.canAccept()) {
            const uint64_t a = sequential ? next_req * bytes
                                          : (rng() % c.mapper().capacity()) & ~uint64_t(bytes - 1);
            c.submit(a, bytes, false, now, next_req);
            ++next_req;
        }
        c.tick(now);
        HbmCompletion x;
        while (c.popCompletion(x)) {
            ++done;
            if (x.user < warm) continue;
            if (x.user == warm) t_first = gen(warm);
            lat.record(x.done - gen(x.user));
            measured_bytes += bytes;
            t_last = std::max(t_last, x.done);
        }
        uint64_t next = c.nextWake();
        if (next_req < n && c.canAccept()) next = std::min(next, std::max(gen(next_req), now + 1));
        now = std::max(next, now + 1);
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    const double ns = p.tCK_ps * 1e-3;
    const auto s = c.stats(now);
    return Point{load,
                 double(measured_bytes) / (double(t_last - t_first) * p.tCK_ps * 1e-12) / 1e9,
                 lat.mean() * ns,
                 double(lat.quantile(0.5)) * ns,
                 double(lat.quantile(0.99)) * ns,
                 s.rowHitRate(),
                 double(now) / wall};
}
}  // namespace

TEST_CASE("bench: HBM3 latency versus offered load", "[.bench][dram]") {
    const HbmParams p = HbmParams::hbm3Default();
    const std::string path = std::string(WSC_SOURCE_DIR) + "/bench/hbm_latency_vs_load.csv";
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fprintf(f,
                 "# HBM3 6.4 Gb/s stack (hbm3Default, per-bank refresh, open page), 64 B reads,\n"
                 "# open-loop fixed-rate arrivals, 60000 requests (first 10000 are warm-up).\n"
                 "# Latency counts from generation to last data beat (includes source backlog).\n");
    std::fprintf(f,
                 "pattern,offered_load,offered_gbps,achieved_gbps,avg_latency_ns,p50_latency_ns,"
                 "p99_latency_ns,row_hit_rate,sim_cycles_per_s\n");
    const double peak = p.stackPeakBandwidthBytesPerSec() / 1e9;
    for (bool seq : {true, false}) {
        for (double load : {0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0}) {
            const Point pt = runLoad(p, seq, load);
            std::fprintf(f, "%s,%.2f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.3g\n",
                         seq ? "sequential" : "random", load, load * peak, pt.achieved_gbps,
                         pt.avg_ns, pt.p50_ns, pt.p99_ns, pt.hit_rate, pt.sim_cycles_per_s);
            std::printf("%-10s load %.2f: %.1f GB/s, avg %.1f ns, p99 %.1f ns, hits %.3f\n",
                        seq ? "sequential" : "random", load, pt.achieved_gbps, pt.avg_ns, pt.p99_ns,
                        pt.hit_rate);
        }
    }
    std::fclose(f);
}
