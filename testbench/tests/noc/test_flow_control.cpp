// Credit flow control and integrity under load: no buffer overflows (the router throws if a flit
// arrives at a full VC, so surviving is the check, and the observed maximum must not exceed the
// depth), every flit delivered exactly once and in order, and the watchdog stays quiet.
#include <catch2/catch.hpp>
#include <random>

#include "NocTestUtil.h"

using namespace wsc;

namespace {
// Drives random unicast traffic directly on a Network for `cycles`, then drains.
uint64_t hammer(noc::Network& net, double rate, uint32_t flits, uint64_t cycles, uint64_t seed,
                uint64_t start = 0) {
    std::mt19937_64 rng(seed);
    std::bernoulli_distribution inject(rate / flits);
    const uint32_t N = net.nodes();
    uint64_t c = start;
    for (; c < start + cycles; ++c) {
        for (uint32_t n = 0; n < N; ++n)
            if (inject(rng)) net.enqueuePacket(n, rng() % N, noc::kNoRoute, flits, c, true);
        net.step(c);
    }
    return test::runUntilIdle(net, c, c + 1000000);
}
}  // namespace

TEST_CASE("no buffer ever overflows under credit flow control", "[noc][credits]") {
    struct Cfg {
        uint32_t vcs, depth, pipeline, flits, width;
        double rate;
    };
    for (Cfg k : {Cfg{1, 1, 1, 1, 16, 0.9}, Cfg{1, 2, 2, 5, 16, 0.9}, Cfg{2, 4, 2, 4, 16, 0.8},
                  Cfg{4, 8, 4, 8, 8, 0.7}, Cfg{3, 2, 3, 3, 5, 0.9}, Cfg{2, 2, 0, 3, 16, 0.9},
                  Cfg{2, 8, 0, 4, 4, 0.8}}) {
        auto p = test::meshParams(4, 4, k.pipeline, k.vcs, k.depth);
        p.link.width_bytes = k.width;
        p.link.credit_latency = 2;
        noc::Network net(p, 7);
        INFO("vcs " << k.vcs << " depth " << k.depth << " pipeline " << k.pipeline << " flits "
                    << k.flits);
        REQUIRE_NOTHROW(hammer(net, k.rate, k.flits, 3000, 11));
        CHECK(net.maxBufferOccupancy() <= k.depth);
        CHECK(net.maxBufferOccupancy() == k.depth);  // overloaded: buffers do fill up completely
        REQUIRE_NOTHROW(net.checkConservation());
        CHECK(net.flitsEjected() == net.flitsInjected());
        CHECK(net.flitsInjected() > 1000);
    }
}

TEST_CASE("conservation check notices undelivered flits", "[noc][integrity]") {
    auto p = test::meshParams(4, 4);
    noc::Network net(p);
    net.enqueuePacket(0, 15, noc::kNoRoute, 4, 0, false);
    net.step(0);
    net.step(1);  // head in flight, not delivered
    CHECK_THROWS_WITH(net.checkConservation(),
                      Catch::Contains("conservation") && Catch::Contains("still in the network"));
    test::runUntilIdle(net, 2);
    CHECK_NOTHROW(net.checkConservation());
}

TEST_CASE("same seed gives the same cycles and a different seed does not", "[noc][determinism]") {
    auto run = [](uint64_t seed) {
        auto p = test::meshParams(6, 6, 2, 2, 4);
        noc::Network net(p, seed);
        test::Recorder rec;
        net.setObserver(&rec);
        hammer(net, 0.35, 3, 2000, seed);
        uint64_t sum = 0;
        for (const auto& d : rec.packets) sum = sum * 1000003 + d.cycle * 31 + d.node;
        return std::make_pair(sum, rec.packets.size());
    };
    auto a = run(5), b = run(5), c = run(6);
    CHECK(a == b);
    CHECK(a != c);
}

TEST_CASE("YX routing delivers everything and takes YX paths", "[noc][routing]") {
    auto p = test::meshParams(5, 4);
    p.routing = noc::RoutingAlgo::YX;
    noc::Network net(p);
    test::Recorder rec;
    net.setObserver(&rec);
    // 0 = (0,0) -> 19 = (4,3): first south along x = 0, so the link r(0,0).S carries the flit.
    net.enqueuePacket(0, 19, noc::kNoRoute, 1, 0, false);
    uint64_t end = test::runUntilIdle(net);
    REQUIRE(rec.packets.size() == 1);
    uint64_t south = 0, east = 0;
    for (uint32_t l = 0; l < net.links().size(); ++l) {
        if (net.linkName(l) == "r(0,0).S->r(0,1)") south = net.link(l).flits();
        if (net.linkName(l) == "r(0,0).E->r(1,0)") east = net.link(l).flits();
    }
    CHECK(south == 1);
    CHECK(east == 0);
    hammer(net, 0.3, 2, 1000, 3, end + 1);
    CHECK_NOTHROW(net.checkConservation());
}
