// noc.injection: an NI takes packets in arrival order (fifo) or interleaves destinations
// (interleave: the oldest packet for another destination than the last one's). Packets posted
// (Network::postPacket, the traffic generator's path) enter their NIs when the next step starts.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "NocTestUtil.h"
#include "noc/EjectionGate.h"
#include "noc/Network.h"

using namespace wsc;

namespace {
// Node 1 of a 3 x 1 mesh (4 VCs) queues four 4-flit packets to node 0 and then four to node 2 at
// cycle 0; returns the deliveries in order: (node, cycle).
std::vector<std::pair<uint32_t, uint64_t>> run(bool interleave) {
    noc::NocParams p = test::meshParams(3, 1);
    // Router links a quarter as wide as a flit (4 cycles each) behind a one-flit-per-cycle NI:
    // as a die's D2D links behind its DMA, the links out of the router are the bottleneck.
    p.link.width_bytes = p.flit_bytes / 4;
    p.interleave_injection = interleave;
    noc::Network net(p);
    test::Recorder rec;
    net.setObserver(&rec);
    for (uint32_t dst : {0u, 0u, 0u, 0u, 2u, 2u, 2u, 2u})
        net.enqueuePacket(1, dst, noc::kNoRoute, 4, 0, false);
    test::runUntilIdle(net);
    std::vector<std::pair<uint32_t, uint64_t>> out;
    for (const auto& d : rec.packets) out.push_back({d.node, d.cycle});
    return out;
}
}  // namespace

TEST_CASE("fifo injection sends one destination's packets before the next's", "[noc][injection]") {
    const auto d = run(false);
    REQUIRE(d.size() == 8);
    // All four packets to node 0 arrive before the first to node 2.
    uint64_t last0 = 0, first2 = ~0ull;
    for (const auto& [n, c] : d) {
        if (n == 0) last0 = std::max(last0, c);
        if (n == 2) first2 = std::min(first2, c);
    }
    CHECK(last0 < first2);
}

TEST_CASE("interleaved injection alternates destinations and keeps each in order",
          "[noc][injection]") {
    const auto f = run(false), d = run(true);
    REQUIRE(d.size() == 8);
    uint64_t last0 = 0, first2 = ~0ull, last2 = 0, lastf = 0;
    for (const auto& [n, c] : d) {
        if (n == 0) last0 = std::max(last0, c);
        if (n == 2) first2 = std::min(first2, c), last2 = std::max(last2, c);
    }
    for (const auto& [n, c] : f) lastf = std::max(lastf, c);
    CHECK(first2 < last0);  // node 2's first packet no longer waits for all of node 0's
    // The two links out of node 1's router run in parallel: everything is delivered sooner.
    CHECK(std::max(last0, last2) < lastf);
}

namespace {
// 300 cycles of offerUniform's traffic on an 8x8 mesh, each packet queued by enqueuePacket or
// posted (postPacket), with `threads` (arrivals chained on any mesh, so threads run), then
// drained: the deliveries in order and the counters.
std::pair<std::vector<test::Recorder::Delivery>, nlohmann::json> offered(bool post,
                                                                         unsigned threads) {
    noc::Network net(test::meshParams(8, 8, 2, 2, 4));
    net.setChainRouters(1);
    net.setThreads(threads);
    test::Recorder rec;
    net.setObserver(&rec);
    std::mt19937_64 rng(5);
    uint64_t c = 0;
    for (; c < 300; ++c) {
        const uint32_t n = net.nodes();
        for (uint32_t s = 0; s < n; ++s)
            if (rng() % 16 == 0) {
                uint32_t d = uint32_t(rng() % n);
                if (d == s) d = (d + 1) % n;
                const uint32_t flits = 1 + uint32_t(rng() % 4);
                if (post)
                    net.postPacket(s, d, flits, c, c % 2 == 0);
                else
                    net.enqueuePacket(s, d, noc::kNoRoute, flits, c, c % 2 == 0);
            }
        net.step(c);
    }
    test::runUntilIdle(net, c);
    net.checkConservation();
    if (threads > 1) CHECK(net.threadedSteps() > 0);  // the lanes' step took the posts
    nlohmann::json stats;
    net.dumpStats(stats);
    return {rec.packets, stats};
}
}  // namespace

TEST_CASE("posted packets are the packets enqueuePacket would queue before the step",
          "[noc][injection]") {
    const auto queued = offered(false, 1);
    REQUIRE(queued.first.size() > 1000);
    for (const unsigned threads : {1u, 2u}) {
        INFO("threads " << threads);
        const auto posted = offered(true, threads);
        REQUIRE(posted.first.size() == queued.first.size());
        size_t differ = 0;
        for (size_t i = 0; i < queued.first.size(); ++i) {
            const auto &a = queued.first[i], &b = posted.first[i];
            differ += a.packet_id == b.packet_id && a.node == b.node && a.cycle == b.cycle &&
                              a.created == b.created && a.hops == b.hops
                          ? 0
                          : 1;
        }
        CHECK(differ == 0);
        CHECK(posted.second == queued.second);
    }
}

TEST_CASE("a posted packet is checked at once, counted live and keeps the network busy",
          "[noc][injection]") {
    noc::Network net(test::meshParams(3, 1));
    CHECK_THROWS_AS(net.postPacket(0, 3, 1, 0, false), std::invalid_argument);  // no node 3
    CHECK_THROWS_AS(net.postPacket(0, 2, 0, 0, false), std::invalid_argument);  // no flits
    net.postPacket(0, 2, 2, 0, true);
    CHECK(net.livePackets() == 1);
    CHECK_FALSE(net.idle());
    CHECK(net.nextActiveCycle(0) == 1);  // as if the next step were due anyway
    CHECK_THROWS_AS(net.checkConservation(), std::logic_error);  // not delivered yet
    test::Recorder rec;
    net.setObserver(&rec);
    test::runUntilIdle(net, 1);
    net.checkConservation();
    REQUIRE(rec.packets.size() == 1);
    CHECK(rec.packets[0].node == 2);
    CHECK(rec.packets[0].created == 0);
    CHECK(net.livePackets() == 0);
}

TEST_CASE("postPacket is refused where an ejection gate may retry refused flits first",
          "[noc][injection]") {
    struct Open : noc::EjectionGate {
        noc::Admission admitFlit(const noc::Message&, uint32_t, uint32_t, uint64_t) override {
            return noc::Admission::TakeRest;
        }
    } gate;
    noc::Network net(test::meshParams(3, 1));
    net.setEjectionGate(&gate);
    CHECK_THROWS_AS(net.postPacket(0, 2, 1, 0, false), std::logic_error);
    CHECK(net.livePackets() == 0);
}
