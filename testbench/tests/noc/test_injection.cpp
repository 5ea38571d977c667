// noc.injection: an NI takes packets in arrival order (fifo) or interleaves destinations
// (interleave: the oldest packet for another destination than the last one's).
#include <catch2/catch.hpp>

#include "NocTestUtil.h"
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
