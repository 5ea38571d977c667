// The deadlock watchdog: a cyclic route with one VC and long packets jams; the watchdog must
// stop the run and name the stuck flits.
#include <catch2/catch.hpp>

#include "NocTestUtil.h"
#include "noc/DeadlockError.h"

using namespace wsc;

TEST_CASE("the watchdog reports a routing deadlock with the stuck flits", "[noc][watchdog]") {
    auto jam = test::jammedRing();
    noc::Network& net = *jam;
    try {
        test::runUntilIdle(net, 0, 100000);
        FAIL("expected the watchdog to fire");
    } catch (const noc::DeadlockError& e) {
        std::string m = e.what();
        CHECK_THAT(m, Catch::Contains("no flit moved for 500 cycles"));
        CHECK_THAT(m, Catch::Contains("waiting for a VC"));
        CHECK_THAT(m, Catch::Contains("r(0,0) in"));
        CHECK_THAT(m, Catch::Contains("packet"));
        // The four packets (two input VCs each) wait for each other round the ring: the report
        // names that loop.
        CHECK_THAT(m, Catch::Contains("cycle of waits (8 input VCs"));
        CHECK_THAT(m, Catch::Contains("needs a VC held by"));
        INFO(m);
    }
}

TEST_CASE("jammed routers sleep: the network is not stepped again until the watchdog is due",
          "[noc][watchdog]") {
    // The same jam as above. Every router in it waits for a VC no one will free, grants nothing
    // and sleeps; NIs wait for credits. So after the last flit moves, the next cycle with work
    // is the watchdog's (Network::nextActiveCycle), not every cycle up to it.
    auto jam = test::jammedRing();
    noc::Network& net = *jam;
    uint64_t c = 0, steps = 0, last_moved = 0, traversals = 0;
    try {
        net.step(c);
        for (;;) {
            const uint64_t n = net.nextActiveCycle(c);
            REQUIRE(n != noc::kNever);
            c = n;
            ++steps;
            net.step(c);
            if (net.flitRouterTraversals() != traversals)
                traversals = net.flitRouterTraversals(), last_moved = c;
            REQUIRE(c < 10000);
        }
    } catch (const noc::DeadlockError& e) {
        CHECK_THAT(std::string(e.what()), Catch::Contains("no flit moved for 500 cycles"));
    }
    INFO("steps " << steps << ", last movement at cycle " << last_moved << ", watchdog at " << c);
    CHECK(last_moved > 0);
    CHECK(c >= last_moved + 500);
    // Steps while flits moved, then a few for in-flight credits, then the watchdog's.
    CHECK(steps <= last_moved + 10);
    CHECK(c - last_moved > 400);
}
