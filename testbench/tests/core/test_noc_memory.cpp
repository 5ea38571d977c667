// The memory port across the NoC (core::NocMemoryPort): DMA requests travel as messages to the
// port's node, the port issues the TLM transactions to SimpleMemory or dram::HbmTarget, and data
// comes back as messages. Each TEST_CASE runs in its own process (SystemC elaborates once).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "../noc/NocTestUtil.h"
#include "core/CoreArray.h"
#include "firmware/Firmware.h"
#include "hw/MemorySystem.h"
#include "noc/NocShell.h"
#include "testbench/DmaStreamTestbench.h"

using namespace wsc;

namespace {

noc::NocParams streamNoc() {
    noc::NocParams np = test::meshParams(4, 4, 1, 2, 8);
    np.flit_bytes = 32;
    np.link.width_bytes = 32;
    np.local_link.width_bytes = 32;
    np.d2d.width_bytes = 32;
    return np;
}

core::CoreParams streamCore() {
    core::CoreParams cp;
    cp.sram.capacity_bytes = 256 * 1024;
    cp.dma.burst_bytes = 256;
    cp.memory.ports = 1;
    cp.memory.max_outstanding = 16;
    cp.memory.latency_ps = 100000;  // simple memory: 100 ns, 100 GB/s
    cp.memory.bytes_per_ns = 100;
    return cp;
}

}  // namespace

TEST_CASE(
    "NoC memory port: loads over the NoC land the data and timing-only mode gives the same cycles",
    "[core][dma][noc_memory]") {
    const noc::NocParams np = streamNoc();
    const core::CoreParams cp = streamCore();
    firmware::DmaStreamWorkload w;
    w.bytes = 16 * 1024;
    w.cores = 3;
    w.chunk = 4096;  // four dma.load per core, several operations in flight
    w.port_x = 0, w.port_y = 1;
    w.memory = "simple";
    noc::NocShell shell("noc", np.clock_hz);
    hw::MemorySystem mem(cp, np.clock_hz, hw::MemoryTarget::Simple);

    w.functional = true;
    const tb::DmaStreamResult f = tb::DmaStreamTestbench::run(np, cp, w, shell, mem);
    REQUIRE(f.checked);
    CHECK(f.correct);
    CHECK(f.mismatches == 0);
    CHECK(f.bytes == 3 * w.bytes);
    CHECK(f.cores.front() == 15);  // (3,3) is farthest from (0,1)
    CHECK(f.avg_hops > 3.0);
    CHECK(f.avg_req_noc_ns > 0);
    CHECK(f.avg_resp_noc_ns > 0);
    CHECK(f.avg_mem_ns >= 100.0);  // the simple memory's latency, at least
    const auto& ps = mem.nocPorts().at(0)->stats();
    CHECK(ps.requests == 3 * w.bytes / 256);
    CHECK(ps.request_msg_bytes == ps.requests * 16);                 // headers only
    CHECK(ps.response_msg_bytes == ps.requests * 16 + 3 * w.bytes);  // header + data
    CHECK(mem.nocPorts().at(0)->inFlight() == 0);

    w.functional = false;
    const tb::DmaStreamResult t = tb::DmaStreamTestbench::run(np, cp, w, shell, mem);
    CHECK_FALSE(t.checked);
    CHECK(t.cycles == f.cycles);
    CHECK(t.last_done - t.first_push == f.last_done - f.first_push);
    CHECK(t.avg_round_trip_ns == f.avg_round_trip_ns);
    CHECK(t.max_round_trip_ns == f.max_round_trip_ns);
    CHECK(t.avg_req_noc_ns == f.avg_req_noc_ns);
    CHECK(t.avg_resp_noc_ns == f.avg_resp_noc_ns);
}

TEST_CASE("NoC memory port: streaming from HBM stays within the NoC bound and comes close to it",
          "[core][dma][noc_memory][hbm]") {
    const noc::NocParams np = streamNoc();
    const core::CoreParams cp = streamCore();
    firmware::DmaStreamWorkload w;
    w.bytes = 64 * 1024;
    w.cores = 1;
    w.port_x = 0, w.port_y = 1;
    w.memory = "hbm";
    noc::NocShell shell("noc", np.clock_hz);
    hw::MemorySystem mem(cp, np.clock_hz, hw::MemoryTarget::Hbm);
    const tb::DmaStreamResult r = tb::DmaStreamTestbench::run(np, cp, w, shell, mem);
    REQUIRE(r.checked);
    CHECK(r.correct);
    CHECK(r.hbm);
    // Bounds: one 32 B flit per cycle at 1 GHz = 32 GB/s per link; a 256 B burst's response is
    // 16 + 256 B = 9 flits, so 256 / 288 of it is data: 28.44 GB/s. HBM3 peak 819.2 GB/s.
    CHECK(r.noc_link_gbps == Approx(32.0));
    CHECK(r.noc_bound_gbps == Approx(32.0 * 256 / 288));
    CHECK(r.memory_peak_gbps == Approx(819.2));
    CHECK(r.bandwidth_gbps <= r.noc_bound_gbps * 1.0001);
    CHECK(r.bandwidth_gbps >= 0.9 * r.noc_bound_gbps);
    CHECK(r.hbm_bytes_read == w.bytes);
    CHECK(r.hbm_row_hit_rate > 0.5);   // a sequential stream mostly hits open rows
    CHECK(r.avg_hops == Approx(5.0));  // (3,3) -> (0,1)
}

TEST_CASE("NoC memory port: several cores streaming from HBM share the port node's link",
          "[core][dma][noc_memory][hbm]") {
    const noc::NocParams np = streamNoc();
    const core::CoreParams cp = streamCore();
    firmware::DmaStreamWorkload w;
    w.bytes = 32 * 1024;
    w.cores = 4;
    w.port_x = 0, w.port_y = 1;
    w.memory = "hbm";
    noc::NocShell shell("noc", np.clock_hz);
    hw::MemorySystem mem(cp, np.clock_hz, hw::MemoryTarget::Hbm);
    const tb::DmaStreamResult r = tb::DmaStreamTestbench::run(np, cp, w, shell, mem);
    REQUIRE(r.checked);
    CHECK(r.correct);
    // All responses leave through the port node's one NI link: the same bound as for one core.
    CHECK(r.bandwidth_gbps <= r.noc_bound_gbps * 1.0001);
    CHECK(r.bandwidth_gbps >= 0.9 * r.noc_bound_gbps);
    CHECK(r.hbm_bytes_read == 4 * w.bytes);
}

TEST_CASE(
    "NoC memory port: a store then a load through HBM returns the data (also from the port node "
    "itself)",
    "[core][dma][noc_memory][hbm]") {
    const noc::NocParams np = streamNoc();
    core::CoreParams cp = streamCore();
    cp.functional = true;
    noc::NocShell shell("noc", np.clock_hz);
    hw::MemorySystem mem(cp, np.clock_hz, hw::MemoryTarget::Hbm);
    noc::Network net(np);
    core::CoreArray cores(net, cp);
    const uint32_t port = net.topology().node(net.topology().router(0, 1), 0);
    const std::vector<uint32_t> users = {15, port};  // the far corner, and the port's own core
    const uint32_t elems = 1000;                     // 4000 B: 15 full bursts and a partial one
    firmware::Firmware fw(net.nodes());
    for (size_t u = 0; u < users.size(); ++u) {
        firmware::Program& p = fw.program(users[u]);
        const uint16_t a = p.addBuffer("A", elems), b = p.addBuffer("B", elems);
        firmware::Instruction st;
        st.op = firmware::Opcode::DmaStore, st.a = a, st.addr = 0x10000 * (u + 1),
        st.bytes = elems * 4;
        p.add(st);
        firmware::Instruction wa;
        wa.op = firmware::Opcode::WaitAll;
        p.add(wa);
        firmware::Instruction ld;
        ld.op = firmware::Opcode::DmaLoad, ld.c = b, ld.addr = st.addr, ld.bytes = st.bytes;
        p.add(ld);
    }
    cores.load(std::move(fw));
    std::vector<std::vector<float>> a(users.size(), std::vector<float>(elems));
    for (size_t u = 0; u < users.size(); ++u) {
        for (uint32_t e = 0; e < elems; ++e) a[u][e] = float(u * 10000 + e) * 0.5f - 7.0f;
        std::memcpy(cores.core(users[u]).sram().data(0), a[u].data(), elems * 4);
    }
    mem.attachOverNoc(cores, shell, net, true, {{port}});
    const uint64_t last = shell.run(net, cores);
    cores.finish(last);
    for (size_t u = 0; u < users.size(); ++u) {
        std::vector<float> b(cores.core(users[u]).sram().data(1),
                             cores.core(users[u]).sram().data(1) + elems);
        CHECK(b == a[u]);
        std::vector<float> m(elems);
        mem.hostRead(0, 0x10000 * (u + 1), m.data(), elems * 4);
        CHECK(m == a[u]);
    }
    const auto& ps = mem.nocPorts().at(0)->stats();
    CHECK(ps.writes == 2 * 16);
    CHECK(ps.reads == 2 * 16);
    CHECK(ps.bytes_written == 2 * elems * 4);
    CHECK(mem.hbm(0).controller().stats(mem.hbm(0).cycle()).bytes_written >= 2 * elems * 4);
    // The port's messages never reached the core program at its node.
    CHECK(cores.core(port).stats().messages_in == 0);
}

namespace {

// An 8 x 8 mesh, 1 GHz, `flit` B flits and links; one HBM3 stack beside the west edge.
noc::NocParams edgeNoc(uint32_t flit) {
    noc::NocParams np = test::meshParams(8, 8, 1, 2, 8);
    np.flit_bytes = flit;
    np.link.width_bytes = flit;
    np.local_link.width_bytes = flit;
    np.d2d.width_bytes = flit;
    return np;
}

// The west edge routers of the 8 x 8 mesh at these rows (global router index = 8 y).
std::vector<uint32_t> westRouters(std::initializer_list<uint32_t> rows) {
    std::vector<uint32_t> v;
    for (uint32_t y : rows) v.push_back(8 * y);
    return v;
}

}  // namespace

TEST_CASE(
    "NoC memory port: a stack attached through N edge routers streams N times one router's "
    "bandwidth, within the NoC bound, with the right data",
    "[core][dma][noc_memory][hbm][hbm_edge]") {
    const noc::NocParams np = edgeNoc(32);
    const core::CoreParams cp = streamCore();
    firmware::DmaStreamWorkload w;
    w.bytes = 64 * 1024;
    w.cores = 8;
    w.memory = "hbm";
    noc::NocShell shell("noc", np.clock_hz);
    hw::MemorySystem mem(cp, np.clock_hz, hw::MemoryTarget::Hbm);
    // One 32 B flit per cycle at 1 GHz per NI link; a 256 B burst's response is 9 flits of which
    // 256 / 288 is data: 28.44 GB/s per attach router.
    const double link = 32.0 * 256 / 288;
    double one = 0, eight = 0;
    // {rows of the attach routers, cores on the busiest one}: the 8 cores farthest from their
    // nearest attach router; with 1, 2 and 8 routers they spread evenly (8, 4, 1 per router).
    const std::vector<std::pair<std::vector<uint32_t>, uint32_t>> cases = {
        {westRouters({3}), 8},
        {westRouters({1, 5}), 4},
        {westRouters({0, 1, 2, 3, 4, 5, 6, 7}), 1}};
    for (const auto& [routers, busiest] : cases) {
        w.attach_routers = routers;
        const tb::DmaStreamResult r = tb::DmaStreamTestbench::run(np, cp, w, shell, mem);
        INFO(routers.size() << " attach routers: " << r.bandwidth_gbps << " GB/s");
        REQUIRE(r.checked);
        CHECK(r.correct);
        CHECK(r.bytes == 8 * w.bytes);  // (the controller's counters add up over the runs)
        CHECK(r.port_nodes.size() == routers.size());
        CHECK(r.active_ports == routers.size());
        CHECK(r.busiest_port_cores == busiest);
        // min(HBM peak 819.2, link x cores / busiest router's cores, cores x link).
        const double bound = std::min(819.2, link * 8 / busiest);
        CHECK(r.noc_total_gbps == Approx(link * 8 / busiest));
        CHECK(r.bandwidth_gbps <= bound * 1.0001);
        CHECK(r.bandwidth_gbps >= 0.95 * bound);
        // Every attach router carried its share: the same number of bursts each.
        for (const core::NocMemoryPort* p : mem.nocPorts())
            CHECK(p->stats().requests == 8 * w.bytes / 256 / routers.size());
        (routers.size() == 1 ? one : eight) = r.bandwidth_gbps;
    }
    // The whole 8-router edge: 8 x 28.44 = 227.6 GB/s, 8 times one router (within 5%).
    CHECK(eight >= 0.95 * 8 * one);
}

TEST_CASE(
    "NoC memory port: with links as wide as a response, a stack across the edge is bound by the "
    "HBM",
    "[core][dma][noc_memory][hbm][hbm_edge]") {
    // 288 B flits and links: a 16 + 256 B response is one flit, 256 GB/s of data per attach
    // router, 2048 GB/s for the 8 of the west edge: the stack's 819.2 GB/s is the bound. Each
    // router brings 64 transactions in flight and a 64-burst window (Little's law: 819.2 GB/s x
    // ~140 ns loaded latency / 256 B = ~450 bursts in flight needed; 8 x 64 = 512).
    const noc::NocParams np = edgeNoc(288);
    core::CoreParams cp = streamCore();
    cp.memory.max_outstanding = 64;
    firmware::DmaStreamWorkload w;
    w.bytes = 128 * 1024;
    w.cores = 8;
    w.memory = "hbm";
    w.port_window = 64;
    w.attach_routers = westRouters({0, 1, 2, 3, 4, 5, 6, 7});
    noc::NocShell shell("noc", np.clock_hz);
    hw::MemorySystem mem(cp, np.clock_hz, hw::MemoryTarget::Hbm);
    const tb::DmaStreamResult r = tb::DmaStreamTestbench::run(np, cp, w, shell, mem);
    REQUIRE(r.checked);
    CHECK(r.correct);
    CHECK(r.noc_bound_gbps == Approx(256.0));
    CHECK(r.noc_total_gbps == Approx(2048.0));
    CHECK(r.memory_peak_gbps == Approx(819.2));
    CHECK(mem.stack(0).bridge().maxOutstanding() == 8 * 64);
    // At or below the peak; above 80% of it (8 interleaved streams cost row hits: ~78%).
    CHECK(r.bandwidth_gbps <= 819.2);
    CHECK(r.bandwidth_gbps >= 0.8 * 819.2);
}
