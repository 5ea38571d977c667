// Table routes ("colors"): multicast fan-out in the routers, the per-router entry limit (PLMR R),
// and destination-based table routing.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "NocTestUtil.h"

using namespace wsc;

TEST_CASE("multicast reaches every destination exactly once", "[noc][multicast]") {
    auto p = test::meshParams(5, 5, 2, 2, 4);
    noc::Network net(p);
    test::Recorder rec;
    net.setObserver(&rec);
    std::vector<uint32_t> dsts = {0, 4, 12, 20, 24, 7, 13};  // includes the source's own node
    uint32_t route = net.addMulticastRoute(12, dsts);
    for (int i = 0; i < 3; ++i) {
        noc::Message m;
        m.src = 12;
        m.route = route;
        m.bytes = 16 * 20;  // 20 flits -> two 16-flit packets
        net.send(m, 0);
    }
    test::runUntilIdle(net);
    std::multiset<uint32_t> got;
    for (auto [msg, node] : rec.messages) got.insert(node);
    for (uint32_t d : dsts) CHECK(got.count(d) == 3);
    CHECK(got.size() == dsts.size() * 3);
    CHECK(rec.packets.size() == dsts.size() * 3 * 2);
    CHECK_NOTHROW(net.checkConservation());
    // Fan-out happens in the routers: the source injected each flit once per direction its
    // tree leaves in (west, east, north; split at the source, see test_multicast_deadlock).
    CHECK(net.multicastBranches(route, 12).size() == 3);
    CHECK(net.flitsInjected() == 3 * 20 * 3);
    CHECK(net.flitsEjected() == 3 * 20 * dsts.size());
}

TEST_CASE("a multicast that needs more route entries than a router holds is rejected",
          "[noc][routes]") {
    auto p = test::meshParams(8, 1);
    p.route_limit = 3;
    noc::Network net(p);
    // Each route from node 0 to node 7 puts one entry in every router of the row.
    net.addMulticastRoute(0, {7});
    net.addMulticastRoute(1, {7});
    net.addMulticastRoute(2, {7});
    CHECK_THROWS_WITH(net.addMulticastRoute(0, {6}), Catch::Contains("router r(2,0)") &&
                                                         Catch::Contains("4 route entries") &&
                                                         Catch::Contains("limit of 3"));
    // Nothing of the rejected route was installed.
    CHECK(net.routeEntries(0) == 1);
    CHECK(net.routeEntries(2) == 3);
}

TEST_CASE("destination table routing beyond the route limit is a config error", "[noc][routes]") {
    auto p = test::meshParams(8, 8);
    p.routing = noc::RoutingAlgo::Table;
    p.route_limit = 24;
    CHECK_THROWS_WITH(noc::Network(p), Catch::Contains("more than 24 route entries at router") &&
                                           Catch::Contains("route_limit"));
}

TEST_CASE("destination table routing delivers like XY when the tables fit", "[noc][routes]") {
    auto p = test::meshParams(3, 3);
    p.routing = noc::RoutingAlgo::Table;
    p.route_limit = 64;
    noc::Network net(p);
    test::Recorder rec;
    net.setObserver(&rec);
    for (uint32_t s = 0; s < 9; ++s)
        for (uint32_t d = 0; d < 9; ++d) net.enqueuePacket(s, d, noc::kNoRoute, 2, 0, false);
    test::runUntilIdle(net);
    CHECK(rec.packets.size() == 81);
    for (const auto& d : rec.packets) CHECK(d.hops <= 4);
    CHECK_NOTHROW(net.checkConservation());
}

TEST_CASE("hand-built routes are walked to count deliveries and a missing entry is reported",
          "[noc][routes]") {
    auto p = test::meshParams(3, 1);
    noc::Network net(p);
    const uint8_t E = noc::Topology::kEast, L = noc::Topology::kFirstLocal;
    // Route 100 from node 0: east to r(1,0), which keeps a copy and forwards east to r(2,0).
    net.addRouteEntry(0, L, 100, 1u << E);
    net.addRouteEntry(1, noc::Topology::kWest, 100, (1u << L) | (1u << E));
    net.addRouteEntry(2, noc::Topology::kWest, 100, 1u << L);
    test::Recorder rec;
    net.setObserver(&rec);
    net.enqueuePacket(0, 0, 100, 3, 0, false);
    test::runUntilIdle(net);
    CHECK(rec.packets.size() == 2);
    CHECK_NOTHROW(net.checkConservation());
    CHECK_THROWS_WITH(net.enqueuePacket(1, 0, 100, 1, 100, false),
                      Catch::Contains("no entry at r(1,0)"));
}

TEST_CASE("a route sent from two sources in turn delivers each source's tree, whatever its id",
          "[noc][routes]") {
    // Network::tree keeps one source per route id (a slot per id up to 5 x nodes + 4096, ids
    // above that uncached): alternating sources must not answer one's tree for the other.
    for (const uint32_t route : {100u, 1000000u}) {
        auto p = test::meshParams(3, 1);
        noc::Network net(p);
        const uint8_t E = noc::Topology::kEast, W = noc::Topology::kWest,
                      L = noc::Topology::kFirstLocal;
        // From node 0: east through r(1,0), which keeps a copy, to r(2,0). From node 1: east
        // to r(2,0) only.
        net.addRouteEntry(0, L, route, 1u << E);
        net.addRouteEntry(1, W, route, (1u << L) | (1u << E));
        net.addRouteEntry(1, L, route, 1u << E);
        net.addRouteEntry(2, W, route, 1u << L);
        test::Recorder rec;
        net.setObserver(&rec);
        std::map<uint64_t, uint32_t> src_of;  // message id -> source
        for (uint32_t i = 0; i < 6; ++i) {
            noc::Message m;
            m.src = i % 2;
            m.route = route;
            m.bytes = 16 * 3;
            src_of[net.send(m, i)] = m.src;
        }
        test::runUntilIdle(net);
        std::map<uint32_t, std::multiset<uint32_t>> got;  // source -> nodes reached
        for (auto [msg, node] : rec.messages) got[src_of.at(msg)].insert(node);
        CHECK(got[0] == std::multiset<uint32_t>{1, 1, 1, 2, 2, 2});
        CHECK(got[1] == std::multiset<uint32_t>{2, 2, 2});
        CHECK_NOTHROW(net.checkConservation());
    }
}

TEST_CASE("a path route follows its routers, not dimension order, within the route limit",
          "[noc][routes]") {
    // 3 x 3 mesh: node 0 to node 8 by Y first (0 -> 3 -> 6 -> 7 -> 8), where XY would go
    // 0 -> 1 -> 2 -> 5 -> 8.
    auto p = test::meshParams(3, 3);
    p.route_limit = 2;
    noc::Network net(p);
    const uint32_t route = net.addPathRoute(0, 8, {0, 3, 6, 7, 8});
    test::Recorder rec;
    net.setObserver(&rec);
    noc::Message m;
    m.src = 0, m.dst = 8, m.route = route, m.bytes = 16 * 4;
    net.send(m, 0);
    test::runUntilIdle(net);
    REQUIRE(rec.packets.size() == 1);
    CHECK(rec.packets[0].node == 8);
    CHECK(rec.packets[0].hops == 4);
    CHECK(net.routeEntries(3) == 1);  // the path's routers hold it; XY's do not
    CHECK(net.routeEntries(1) == 0);
    CHECK_NOTHROW(net.checkConservation());
    CHECK_THROWS_WITH(net.addPathRoute(0, 8, {0, 4, 8}), Catch::Contains("not neighbours"));
    CHECK_THROWS_WITH(net.addPathRoute(0, 8, {1, 2, 5, 8}), Catch::Contains("must start at"));
    // Two more routes through router 3 exceed its limit of 2: refused, nothing installed.
    net.addPathRoute(3, 5, {3, 4, 5});
    CHECK_THROWS_WITH(net.addPathRoute(0, 4, {0, 3, 4}), Catch::Contains("route_limit"));
    CHECK(net.routeEntries(0) == 1);
}

TEST_CASE("a pair route carries every unicast between its two nodes and keeps them unicasts",
          "[noc][routes]") {
    // XY from 0 to 8 on 3 x 3 goes 0 -> 1 -> 2 -> 5 -> 8; the pair route sends it Y first.
    auto p = test::meshParams(3, 3);
    noc::Network net(p);
    CHECK(net.pairRoute(0, 8) == noc::kNoRoute);
    const uint32_t route = net.addPairRoute(0, 8, {0, 3, 6, 7, 8});
    CHECK(net.pairRoute(0, 8) == route);
    CHECK(net.pairRoute(8, 0) == noc::kNoRoute);  // a pair is directed
    struct Routes : test::Recorder {
        std::vector<uint32_t> routes;  // of the delivered messages
        void onMessageDelivered(const noc::Message& m, uint32_t node, uint64_t c) override {
            routes.push_back(m.route);
            Recorder::onMessageDelivered(m, node, c);
        }
    } rec;
    net.setObserver(&rec);
    noc::Message m;
    m.src = 0, m.dst = 8, m.bytes = 16 * 4;  // no route: addressed to the core
    net.send(m, 0);
    noc::Message back = m;
    back.src = 8, back.dst = 0;
    net.send(back, 0);
    test::runUntilIdle(net);
    REQUIRE(rec.packets.size() == 2);
    REQUIRE(rec.messages.size() == 2);
    for (uint32_t r : rec.routes) CHECK(r == noc::kNoRoute);  // receivers match by source
    // Out 0 -> 3 -> 6 -> 7 -> 8 (the pair route), back 8 -> 7 -> 6 -> 3 -> 0 (XY): routers 1, 2
    // and 5, on XY's way out, saw neither.
    for (uint32_t r : {3u, 6u, 7u}) CHECK(net.router(r).traversals() > 0);
    for (uint32_t r : {1u, 2u, 5u}) CHECK(net.router(r).traversals() == 0);
    for (const auto& d : rec.packets) CHECK(d.hops == 4);
    CHECK(net.pairRouteFlits() == 4);  // the 64 B message out, 16 B flits; none of the reply
    CHECK_NOTHROW(net.checkConservation());
    CHECK_THROWS_WITH(net.addPairRoute(0, 8, {0, 1, 2, 5, 8}), Catch::Contains("already"));
}
