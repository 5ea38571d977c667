// Multicast trees and deadlock. A tree that leaves its source east and west (or north and south)
// owns VCs in both directions while it waits for credits on one of them; with every node of a
// row broadcasting to the row at once, two such trees wait for each other through the traffic
// between them. Network::send splits a tree at its source into one packet stream per direction,
// after which every packet's dependencies point one way and the same traffic drains.
#include <catch2/catch.hpp>

#include "NocTestUtil.h"
#include "noc/DeadlockError.h"

using namespace wsc;

namespace {

constexpr uint32_t kRow = 16, kMessages = 6, kFlits = 16;

noc::NocParams rowParams() {
    auto p = test::meshParams(kRow, 1, 1, 2, 8);  // WSE-2-like: 1-cycle routers, 2 VCs x 8 flits
    p.watchdog_cycles = 2000;
    return p;
}

// Every node's route to every other node of the row.
std::vector<uint32_t> rowRoutes(noc::Network& net) {
    std::vector<uint32_t> routes;
    for (uint32_t s = 0; s < kRow; ++s) {
        std::vector<uint32_t> dsts;
        for (uint32_t d = 0; d < kRow; ++d)
            if (d != s) dsts.push_back(d);
        routes.push_back(net.addMulticastRoute(s, dsts));
    }
    return routes;
}

}  // namespace

TEST_CASE("a tree is split at its source into one branch per direction", "[noc][multicast]") {
    noc::Network net(rowParams());
    auto routes = rowRoutes(net);
    const auto& mid = net.multicastBranches(routes[5], 5);
    REQUIRE(mid.size() == 2);  // east and west
    CHECK(mid[0].mask == (1u << noc::Topology::kEast));
    CHECK(mid[0].deliveries == kRow - 1 - 5);
    CHECK(mid[1].mask == (1u << noc::Topology::kWest));
    CHECK(mid[1].deliveries == 5);
    const auto& edge = net.multicastBranches(routes[0], 0);
    REQUIRE(edge.size() == 1);  // one direction only: sent whole
    CHECK(edge[0].mask == 0);
    CHECK(edge[0].deliveries == kRow - 1);
}

TEST_CASE("whole trees forked east and west deadlock a row broadcast", "[noc][multicast]") {
    noc::Network net(rowParams());
    auto routes = rowRoutes(net);
    for (uint32_t m = 0; m < kMessages; ++m)
        for (uint32_t s = 0; s < kRow; ++s) net.enqueuePacket(s, 0, routes[s], kFlits, 0, false);
    try {
        test::runUntilIdle(net, 0, 1000000);
        FAIL("expected the watchdog to fire");
    } catch (const noc::DeadlockError& e) {
        // Eastbound and westbound packets of trees forked at their sources wait in a loop.
        const std::string m = e.what();
        INFO(m);
        CHECK_THAT(m, Catch::Contains("cycle of waits"));
        CHECK_THAT(m, Catch::Contains("in E vc") && Catch::Contains("in W vc"));
    }
}

TEST_CASE("the same row broadcast sent as messages is split and drains", "[noc][multicast]") {
    noc::Network net(rowParams());
    test::Recorder rec;
    net.setObserver(&rec);
    auto routes = rowRoutes(net);
    for (uint32_t m = 0; m < kMessages; ++m)
        for (uint32_t s = 0; s < kRow; ++s) {
            noc::Message msg;
            msg.src = s;
            msg.route = routes[s];
            msg.bytes = kFlits * 16;
            net.send(msg, 0);
        }
    test::runUntilIdle(net, 0, 1000000);
    REQUIRE(net.idle());
    CHECK_NOTHROW(net.checkConservation());
    CHECK(rec.messages.size() == kMessages * kRow * (kRow - 1));
    // Each source injects once per branch: nodes 0 and 15 have one, the others two.
    CHECK(net.flitsInjected() == uint64_t(kMessages) * kFlits * (2 * kRow - 2));
    CHECK(net.flitsEjected() == uint64_t(kMessages) * kFlits * kRow * (kRow - 1));
}
