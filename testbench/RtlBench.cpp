#include "testbench/RtlBench.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <ostream>
#include <random>

#include "hw/rtl/RtlRouterFactory.h"
#include "noc/Network.h"
#include "noc/NocShell.h"
#include "testbench/TrafficTestbench.h"

namespace wsc::tb {

namespace {
// The default router (4 VCs x 8 flits, pipeline 2): one of the verilated parameter sets.
noc::NocParams meshParams(uint32_t k) {
    noc::NocParams np;
    np.topology.x = np.topology.y = k;
    np.watchdog_cycles = 100000;
    return np;
}
}  // namespace

// One router, stepped without SystemC: its NI offers 4-flit packets at 0.9 flits/cycle to itself,
// so every cycle the router buffers, allocates and forwards (RTL: two model evaluations).
RtlBench::Row RtlBench::singleRouter(bool rtl, uint64_t cycles) {
    noc::Network net(meshParams(1), 1);
    if (rtl) rtl::RtlRouterFactory::install(net, {0});
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t c = 0; c < cycles; ++c) {
        if (u(rng) < 0.9 / 4) net.enqueuePacket(0, 0, noc::kNoRoute, 4, c, false);
        net.step(c);
    }
    Row r;
    r.name = rtl ? "1 router, RTL" : "1 router, C++";
    r.cycles = cycles;
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.traversals = double(net.flitRouterTraversals());
    return r;
}

void RtlBench::run(std::ostream& os, bool quick) {
    if (!rtl::RtlRouterFactory::available())
        throw std::invalid_argument("wsc bench rtl: no Verilated router in this build (" +
                                    rtl::RtlRouterFactory::reason() + ")");
    std::vector<Row> rows;
    const uint64_t single = quick ? 20000 : 500000;
    rows.push_back(singleRouter(false, single));
    rows.push_back(singleRouter(true, single));

    noc::NocShell shell("bench", 1e9);
    std::vector<uint32_t> mixed = {0, 5, 6, 10, 15}, all;
    for (uint32_t r = 0; r < 16; ++r) all.push_back(r);
    struct MeshCase {
        const char* name;
        const std::vector<uint32_t>* rtl;
    };
    const std::vector<uint32_t> none;
    for (double rate : {0.1, 0.3}) {
        for (MeshCase mc : {MeshCase{"all C++", &none}, MeshCase{"mixed, 5 RTL", &mixed},
                            MeshCase{"all 16 RTL", &all}}) {
            noc::NocParams np = meshParams(4);
            np.rtl_routers = *mc.rtl;
            noc::TrafficParams tp;
            tp.rate = rate;
            tp.packet_flits = 4;
            tp.warmup_cycles = 1000;
            tp.measure_cycles = quick ? 5000 : 100000;
            TrafficResult res = TrafficTestbench::run(np, tp, shell);
            rows.push_back({fmt::format("4x4 {} @ {:.1f}", mc.name, rate), res.total_cycles,
                            res.wall_seconds, double(res.flit_router_traversals)});
        }
    }
    fmt::print(os, "| case | cycles | wall s | cycles/s | M flit-router traversals/s |\n");
    fmt::print(os, "|---|---:|---:|---:|---:|\n");
    for (const Row& r : rows)
        fmt::print(os, "| {} | {} | {:.3f} | {:.0f} | {:.2f} |\n", r.name, r.cycles, r.wall,
                   r.cycles / r.wall, r.traversals / r.wall / 1e6);
}

}  // namespace wsc::tb
