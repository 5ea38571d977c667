// Lockstep co-simulation of the Verilated RTL router against the C++ noc::Router: two identical
// 4x4 networks get the same random traffic, one with every position a C++ router (observed by
// CppRouterProbe), one with every position the RTL router. After every cycle the flits each
// router sent (cycle, output port, VC, flit) and the credits it returned (cycle, input port, VC)
// must be identical; the first difference fails the test with both sides' events.
#include <catch2/catch.hpp>

#if WSC_WITH_VERILATOR

#include <random>

#include "CppRouterProbe.h"
#include "RouterEventLog.h"
#include "hw/rtl/RtlRouterFactory.h"
#include "testbench/tests/noc/NocTestUtil.h"

using namespace wsc;

namespace {

struct LockstepCase {
    const char* name;
    uint32_t vcs, depth, pipeline, local_ports;
    uint32_t link_latency, link_width, credit_latency;
    bool dies;                 // 2x2 dies: D2D links with their own latency and serialisation
    double rate;               // flits/node/cycle offered while injecting
    uint32_t hotspot_percent;  // share of packets sent to node 5
};

struct LockstepResult {
    uint64_t flits = 0, traversals = 0, cycles = 0;
};

LockstepResult runLockstep(const LockstepCase& lc, uint64_t target_flits, uint64_t seed) {
    noc::NocParams p = test::meshParams(4, 4, lc.pipeline, lc.vcs, lc.depth);
    p.topology.local_ports = lc.local_ports;
    p.link.latency = lc.link_latency;
    p.link.width_bytes = lc.link_width;
    p.link.credit_latency = lc.credit_latency;
    if (lc.dies) {
        p.topology.die_x = p.topology.die_y = 2;
        p.d2d.latency = 3;
        p.d2d.serdes_latency = 1;
        p.d2d.width_bytes = 8;  // 2 cycles per 16-byte flit
    }
    noc::Network cppNet(p, seed), rtlNet(p, seed);
    test::RouterEventLog cppLog, rtlLog;
    for (uint32_t r = 0; r < cppNet.topology().routers(); ++r) {
        cppNet.replaceRouter(r, std::make_unique<test::CppRouterProbe>(cppNet, r, &cppLog));
        auto rt = rtl::RtlRouterFactory::make(rtlNet, r);
        rt->setListener(&rtlLog);
        rtlNet.replaceRouter(r, std::move(rt));
    }

    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const uint32_t nodes = cppNet.nodes();
    const double p_packet = lc.rate / 3.0;  // packets of 1..5 flits, 3 on average
    LockstepResult res;
    uint64_t c = 0;
    for (; res.flits < target_flits || !cppNet.idle() || !rtlNet.idle(); ++c) {
        if (res.flits < target_flits) {
            for (uint32_t n = 0; n < nodes; ++n) {
                if (u(rng) >= p_packet) continue;
                uint32_t dst = uint32_t(rng() % 100) < lc.hotspot_percent ? 5 % nodes
                                                                          : uint32_t(rng() % nodes);
                uint32_t len = 1 + uint32_t(rng() % 5);
                cppNet.enqueuePacket(n, dst, noc::kNoRoute, len, c, false);
                rtlNet.enqueuePacket(n, dst, noc::kNoRoute, len, c, false);
                res.flits += len;
            }
        }
        cppNet.step(c);
        rtlNet.step(c);
        std::string diff = test::firstMismatch(cppNet, cppLog, rtlNet, rtlLog);
        if (!diff.empty()) {
            FAIL_CHECK(lc.name << ": " << diff);
            return res;
        }
        res.traversals += cppLog.events.size() / 2;
        cppLog.events.clear();
        rtlLog.events.clear();
        REQUIRE(c < 50 * target_flits);  // a runaway would show as a watchdog error first
    }
    res.cycles = c;
    cppNet.checkConservation();
    rtlNet.checkConservation();
    CHECK(cppNet.flitsEjected() == rtlNet.flitsEjected());
    CHECK(cppNet.packetsDelivered() == rtlNet.packetsDelivered());
    CHECK(cppNet.flitRouterTraversals() == rtlNet.flitRouterTraversals());
    // Every link counts the same flits (the probes' sends are counted on the network's links).
    uint64_t cpp_link_flits = 0;
    for (size_t l = 0; l < cppNet.links().size(); ++l) {
        CHECK(cppNet.link(uint32_t(l)).flits() == rtlNet.link(uint32_t(l)).flits());
        cpp_link_flits += cppNet.link(uint32_t(l)).flits();
    }
    CHECK(cpp_link_flits == cppNet.flitsInjected() + cppNet.flitRouterTraversals());
    return res;
}

void check(const LockstepCase& lc) {
    LockstepResult r = runLockstep(lc, 100000, 7);
    INFO(lc.name << ": " << r.flits << " flits injected, " << r.traversals
                 << " router traversals compared over " << r.cycles << " cycles");
    CHECK(r.flits >= 100000);
    CHECK(r.traversals >= r.flits);
    WARN(lc.name << ": " << r.flits << " flits, " << r.traversals << " router traversals, "
                 << r.cycles << " cycles identical");
}

}  // namespace

TEST_CASE("lockstep: 1 VC depth 2 pipeline 1", "[rtl][lockstep]") {
    check({"vcs=1 depth=2 pipeline=1", 1, 2, 1, 1, 1, 16, 1, false, 0.30, 0});
}

TEST_CASE("lockstep: 2 VCs depth 4 pipeline 3 with 2 local ports and D2D links",
          "[rtl][lockstep]") {
    check({"vcs=2 depth=4 pipeline=3 ports=6 dies", 2, 4, 3, 2, 2, 16, 2, true, 0.25, 10});
}

TEST_CASE("lockstep: 3 VCs depth 5 pipeline 2 with 2-cycle links", "[rtl][lockstep]") {
    check({"vcs=3 depth=5 pipeline=2 ser=2", 3, 5, 2, 1, 1, 8, 3, false, 0.22, 0});
}

TEST_CASE("lockstep: 4 VCs depth 8 pipeline 2 with hotspot traffic", "[rtl][lockstep]") {
    check({"vcs=4 depth=8 pipeline=2 hotspot", 4, 8, 2, 1, 1, 16, 1, false, 0.40, 30});
}

#else

#include "hw/rtl/RtlRouterFactory.h"

TEST_CASE("rtl tests skipped", "[rtl]") {
    WARN("RTL co-simulation tests (lockstep, mixed mesh) skipped: "
         << wsc::rtl::RtlRouterFactory::reason());
    SUCCEED();
}

#endif
