// Fault injection: failed links and routers, up*/down* tables around them, unreachable nodes
// reported instead of hung on.
#include <catch2/catch.hpp>
#include <random>

#include "NocTestUtil.h"
#include "hw/HardwareLoader.h"
#include "noc/DimensionOrderRouting.h"
#include "noc/EscapeRouting.h"
#include "noc/FaultMap.h"
#include "noc/ZeroLoadModel.h"

using namespace wsc;

namespace {
noc::FaultParams::LinkFault link(uint32_t x, uint32_t y, uint8_t port) {
    noc::FaultParams::LinkFault l;
    l.x = x, l.y = y, l.port = port;
    return l;
}
uint64_t linkFlits(const noc::Network& net, const std::string& name) {
    for (uint32_t l = 0; l < net.links().size(); ++l)
        if (net.linkName(l) == name) return net.link(l).flits();
    return ~0ull;
}
}  // namespace

TEST_CASE("with a failed link on the XY path routing delivers everything around it",
          "[noc][faults]") {
    auto p = test::meshParams(4, 4);
    // Node 0 = (0,0) -> node 3 = (3,0): XY runs along row 0 through r(1,0).E.
    p.faults.links.push_back(link(1, 0, noc::Topology::kEast));
    noc::Network net(p);
    CHECK(net.faults().failedLinks() == 1);
    CHECK(linkFlits(net, "r(1,0).E->r(2,0)") == ~0ull);  // the link does not exist any more
    test::Recorder rec;
    net.setObserver(&rec);
    net.enqueuePacket(0, 3, noc::kNoRoute, 4, 0, false);
    uint64_t end = test::runUntilIdle(net);
    REQUIRE(rec.packets.size() == 1);
    // The detour is longer than the 3 XY hops, and the simulation matches the zero-load sum
    // along the up*/down* route.
    CHECK(rec.packets[0].hops > 3);
    CHECK(rec.packets[0].cycle == noc::ZeroLoadModel(net).packetLatency(0, 3, 4));
    // Everyone to everyone, several times: all delivered, nothing lost, no deadlock.
    std::mt19937_64 rng(3);
    uint64_t c = end + 1;
    for (; c < end + 3000; ++c) {
        for (uint32_t n = 0; n < 16; ++n)
            if (rng() % 3 == 0) net.enqueuePacket(n, rng() % 16, noc::kNoRoute, 3, c, false);
        net.step(c);
    }
    REQUIRE_NOTHROW(test::runUntilIdle(net, c, c + 1000000));
    CHECK_NOTHROW(net.checkConservation());
}

TEST_CASE("a die cut off by failed links is reported naming the unreachable routers",
          "[noc][faults]") {
    auto p = test::meshParams(4, 4);
    p.topology.die_x = p.topology.die_y = 2;
    p.d2d.latency = 4;
    // Every link into the south-east die (routers (2,2), (3,2), (2,3), (3,3)).
    p.faults.links = {link(1, 2, noc::Topology::kEast), link(1, 3, noc::Topology::kEast),
                      link(2, 1, noc::Topology::kSouth), link(3, 1, noc::Topology::kSouth)};
    CHECK_THROWS_WITH(noc::Network(p), Catch::Contains("4 routers are cut off") &&
                                           Catch::Contains("r(2,2)") && Catch::Contains("r(3,2)") &&
                                           Catch::Contains("r(2,3)") && Catch::Contains("r(3,3)") &&
                                           !Catch::Contains("r(0,0)"));
    p.faults.allow_partition = true;
    noc::Network net(p);
    CHECK(net.cutOffRouters().size() == 4);
    CHECK_FALSE(net.reachable(0, 15));
    CHECK(net.reachable(10, 15));  // inside the cut-off die
    CHECK_THROWS_WITH(net.enqueuePacket(0, 15, noc::kNoRoute, 1, 0, false),
                      Catch::Contains("node 0 (r(0,0)) cannot reach node 15 (r(3,3))") &&
                          Catch::Contains("cut off by failed links"));
}

TEST_CASE("a failed router drops its core and traffic routes around it", "[noc][faults]") {
    auto p = test::meshParams(5, 5);
    p.faults.routers = {12};  // the centre
    noc::Network net(p);
    CHECK_FALSE(net.nodeAlive(12));
    CHECK_THROWS_WITH(net.enqueuePacket(11, 12, noc::kNoRoute, 1, 0, false),
                      Catch::Contains("a failed core"));
    test::Recorder rec;
    net.setObserver(&rec);
    net.enqueuePacket(11, 13, noc::kNoRoute, 2, 0, false);  // straight through the dead centre
    test::runUntilIdle(net);
    REQUIRE(rec.packets.size() == 1);
    CHECK(rec.packets[0].hops >= 4);
}

TEST_CASE("random link faults: up*/down* stays deadlock-free and conserves flits",
          "[noc][faults]") {
    for (uint64_t seed : {1, 2, 3}) {
        auto p = test::meshParams(8, 8, 2, 2, 4);
        p.faults.link_rate = 0.1;
        p.faults.seed = seed;
        p.faults.allow_partition = true;
        p.watchdog_cycles = 3000;
        noc::Network net(p, seed);
        INFO("seed " << seed << ", " << net.faults().failedLinks() << " failed links");
        CHECK(net.faults().failedLinks() > 3);
        std::mt19937_64 rng(seed);
        uint64_t c = 0, sent = 0;
        for (; c < 4000; ++c) {
            for (uint32_t n = 0; n < 64; ++n) {
                uint32_t d = rng() % 64;
                if (rng() % 4 == 0 && net.reachable(n, d))
                    net.enqueuePacket(n, d, noc::kNoRoute, 2, c, false), ++sent;
            }
            REQUIRE_NOTHROW(net.step(c));
        }
        REQUIRE_NOTHROW(test::runUntilIdle(net, c, c + 2000000));
        CHECK_NOTHROW(net.checkConservation());
        CHECK(net.packetsDelivered() == sent);
    }
}

TEST_CASE("faults load from YAML and bad entries name the key", "[noc][faults][config]") {
    const std::string base =
        "noc:\n  clock: 1 GHz\n  flit_size: 16 B\n  topology:\n    mesh: {x: 4, y: 4}\n"
        "  link: {latency: 1 cycle, width: 16 B}\n";
    auto hw =
        hw::HardwareLoader::loadString(base +
                                           "  faults:\n    links: [{x: 1, y: 0, dir: E}]\n    "
                                           "routers: [5]\n    link_rate: 0.05\n    seed: 9\n",
                                       "f.yaml");
    REQUIRE(hw.noc.faults.links.size() == 1);
    CHECK(hw.noc.faults.links[0].port == 0);
    CHECK(hw.noc.faults.routers == std::vector<uint32_t>{5});
    CHECK(hw.noc.faults.link_rate == 0.05);
    CHECK(hw.noc.faults.seed == 9);
    CHECK_THROWS_WITH(hw::HardwareLoader::loadString(
                          base + "  faults:\n    links: [{x: 3, y: 0, dir: E}]\n", "f.yaml"),
                      Catch::Contains("f.yaml:8:") && Catch::Contains("noc.faults.links[0].dir") &&
                          Catch::Contains("no link E"));
    CHECK_THROWS_WITH(
        hw::HardwareLoader::loadString(base + "  faults:\n    link_rate: 2\n", "f.yaml"),
        Catch::Contains("noc.faults.link_rate"));
    CHECK(hw.noc.faults.routing == noc::FaultRouting::Escape);  // the default
    CHECK(hw::HardwareLoader::loadString(base + "  faults: {routing: updown}\n", "f.yaml")
              .noc.faults.routing == noc::FaultRouting::UpDown);
    CHECK_THROWS_WITH(
        hw::HardwareLoader::loadString(base + "  faults: {routing: adaptive}\n", "f.yaml"),
        Catch::Contains("noc.faults.routing") && Catch::Contains("escape"));
    CHECK_THROWS_WITH(hw::HardwareLoader::loadString(
                          base + "  router: {vcs: 1}\n  faults: {routing: escape}\n", "f.yaml"),
                      Catch::Contains("f.yaml:8:") && Catch::Contains("noc.faults.routing") &&
                          Catch::Contains("vcs >= 2"));
}

TEST_CASE("escape routing: shortest path on VCs 1..n-1, up*/down* on the escape VC 0",
          "[noc][faults][escape]") {
    auto p = test::meshParams(4, 4);
    p.faults.force_updown = true;  // fault routing on the intact mesh
    noc::Network net(p);
    noc::FaultMap none(net.topology(), p.faults);
    noc::UpDownRouting ud(net.topology(), none, 4);
    noc::EscapeRouting esc(net.topology(), none, ud, 4);
    noc::DimensionOrderRouting xy(net.topology(), true, 4);
    noc::PacketInfo pk;
    for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t d = 0; d < 16; ++d) {
            if (r == d) continue;
            pk.dst = d;
            // From a local port: the XY port (an intact mesh routes exactly XY) on the adaptive
            // VCs, the escape port on VC 0 as the alternative.
            noc::RouteDecision dec = esc.route(r, noc::Topology::kFirstLocal, 0, pk);
            CHECK(dec.out_mask == 1u << xy.nextPort(r, d, noc::Topology::kFirstLocal));
            CHECK((dec.vc_lo == 1 && dec.vc_hi == 4));
            CHECK(dec.alt_port == ud.nextPort(r, noc::Topology::kFirstLocal, d));
            CHECK((dec.alt_vc_lo == 0 && dec.alt_vc_hi == 1));
            const uint32_t manhattan = (r % 4 > d % 4 ? r % 4 - d % 4 : d % 4 - r % 4) +
                                       (r / 4 > d / 4 ? r / 4 - d / 4 : d / 4 - r / 4);
            CHECK(esc.distance(r, d) == manhattan);
        }
    // Arrived on the escape VC: stays there, no alternative.
    pk.dst = 15;
    noc::RouteDecision dec = esc.route(5, noc::Topology::kWest, 0, pk);
    CHECK(dec.vc_hi == 1);
    CHECK(dec.alt_port == 0xFF);
    CHECK(dec.out_mask == 1u << ud.nextPort(5, noc::Topology::kWest, 15));
    // The same packet on an adaptive VC may still take either.
    dec = esc.route(5, noc::Topology::kWest, 2, pk);
    CHECK(dec.vc_lo == 1);
    CHECK(dec.alt_port != 0xFF);
}

TEST_CASE("escape routing drains saturating traffic on a badly broken mesh, up*/down* too",
          "[noc][faults][escape]") {
    for (auto routing : {noc::FaultRouting::Escape, noc::FaultRouting::UpDown}) {
        auto p = test::meshParams(6, 6, 1, 2, 4);  // 2 VCs: one adaptive, one escape
        p.faults.link_rate = 0.2;
        p.faults.seed = 7;
        p.faults.allow_partition = true;
        p.faults.routing = routing;
        p.watchdog_cycles = 3000;
        noc::Network net(p);
        REQUIRE(net.faults().failedLinks() > 5);
        std::mt19937_64 rng(11);
        uint64_t c = 0, sent = 0;
        for (; c < 6000; ++c) {
            for (uint32_t n = 0; n < 36; ++n) {
                const uint32_t d = static_cast<uint32_t>(rng() % 36);
                if (d != n && net.reachable(n, d) && rng() % 2 == 0)
                    net.enqueuePacket(n, d, noc::kNoRoute, 4, c, false), ++sent;
            }
            net.step(c);
        }
        REQUIRE_NOTHROW(test::runUntilIdle(net, c, c + 2000000));
        CHECK(net.idle());
        CHECK_NOTHROW(net.checkConservation());
        CHECK(net.flitsEjected() == sent * 4);
    }
}

TEST_CASE("escape routing: an adaptive VC is only reused once it is empty downstream",
          "[noc][faults][escape]") {
    // 8x8, 4 VCs x 8 flits, pipeline 2, 5% of links failed (seed 1000): uniform single-flit
    // traffic past saturation. With ordinary VC reuse (a head queued behind another packet in
    // an adaptive VC) the shortest paths around the holes closed a cycle of adaptive VCs that
    // no head could leave for the escape VC, and the watchdog fired at cycle 202844.
    auto p = test::meshParams(8, 8, 2, 4, 8);
    p.faults.link_rate = 0.05;
    p.faults.seed = 1000;
    p.faults.allow_partition = true;
    p.watchdog_cycles = 2000;
    noc::Network net(p);
    REQUIRE(net.faults().failedLinks() > 0);
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u(0, 1);
    uint64_t c = 0, sent = 0;
    for (; c < 200000; ++c) {
        for (uint32_t n = 0; n < 64; ++n) {
            const uint32_t d = static_cast<uint32_t>(rng() % 64);
            if (d != n && net.reachable(n, d) && u(rng) < 0.25 && net.ni(n).queued() < 64)
                net.enqueuePacket(n, d, noc::kNoRoute, 1, c, false), ++sent;
        }
        net.step(c);
    }
    REQUIRE_NOTHROW(test::runUntilIdle(net, c, c + 5000000));
    CHECK(net.idle());
    CHECK_NOTHROW(net.checkConservation());
    CHECK(net.flitsEjected() == sent);
}

TEST_CASE("escape routing keeps multicast trees off the escape VC and mixed traffic drains",
          "[noc][faults][escape]") {
    auto p = test::meshParams(6, 6, 1, 2, 4);  // 2 VCs: trees and adaptive unicast on VC 1
    p.faults.links.push_back(link(2, 4, noc::Topology::kSouth));  // off the broadcast rows
    p.watchdog_cycles = 3000;
    noc::Network net(p);
    // Row broadcasts on rows 0-2 from every node (trees split at their sources).
    std::vector<uint32_t> routes(18);
    for (uint32_t s = 0; s < 18; ++s) {
        std::vector<uint32_t> dsts;
        for (uint32_t x = 0; x < 6; ++x)
            if (s / 6 * 6 + x != s) dsts.push_back(s / 6 * 6 + x);
        routes[s] = net.addMulticastRoute(s, dsts);
    }
    const uint8_t local = net.topology().portOfNode(2);
    const uint32_t tree = net.enqueuePacket(2, 0, routes[2], 1, 0, false);
    CHECK(net.route(2, local, 0, tree).vc_lo == 1);  // a tree never takes the escape VC
    const uint32_t uni = net.enqueuePacket(2, 30, noc::kNoRoute, 1, 0, false);
    CHECK(net.route(2, local, 0, uni).vc_lo == 1);      // unicast: adaptive VC first ...
    CHECK(net.route(2, local, 0, uni).alt_vc_hi == 1);  // ... escape VC 0 as the alternative
    std::mt19937_64 rng(5);
    uint64_t c = 0, unicast = 0;
    for (; c < 3000; ++c) {
        for (uint32_t n = 0; n < 36; ++n) {
            if (net.ni(n).queued() > 8) continue;
            if (n < 18 && rng() % 8 == 0) {
                noc::Message m;
                m.src = n, m.route = routes[n], m.bytes = 4 * 16;
                net.send(m, c);
            } else if (rng() % 3 == 0) {
                const uint32_t d = static_cast<uint32_t>(rng() % 36);
                if (d != n) net.enqueuePacket(n, d, noc::kNoRoute, 2, c, false), ++unicast;
            }
        }
        net.step(c);
    }
    REQUIRE_NOTHROW(test::runUntilIdle(net, c, c + 2000000));
    CHECK(net.idle());
    CHECK_NOTHROW(net.checkConservation());
    CHECK(unicast > 1000);
}
