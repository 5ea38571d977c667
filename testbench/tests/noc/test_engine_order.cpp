// Network::step's large-mesh path (arrivals chained per router, routers visited in index order)
// is a cache optimisation: the same traffic must give the same deliveries, cycle for cycle, and
// the same counters as the path that applies arrivals as they come.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "NocTestUtil.h"

using namespace wsc;

namespace {
struct Outcome {
    std::vector<std::tuple<uint64_t, uint32_t, uint64_t, uint32_t>> deliveries;
    nlohmann::json stats;
    uint64_t last = 0;
};

Outcome run(const noc::NocParams& p, size_t chain_from) {
    noc::Network net(p);
    net.setChainRouters(chain_from);
    test::Recorder rec;
    net.setObserver(&rec);
    std::mt19937_64 rng(7);
    uint64_t c = 0;
    // 300 cycles of uniform random 1-4 flit packets at about 0.15 flits/node/cycle (past an 8x8
    // mesh's knee, so VCs fill and routers block and sleep), then drain.
    for (; c < 300; ++c) {
        test::offerUniform(net, rng, c);
        net.step(c);
    }
    Outcome o;
    o.last = test::runUntilIdle(net, c);
    net.checkConservation();
    // Deliveries in one cycle may be reported in another order (events are scheduled in the
    // order routers are visited); a node takes at most one flit a cycle, so (cycle, node) orders
    // them canonically.
    for (const auto& d : rec.packets)
        o.deliveries.emplace_back(d.cycle, d.node, d.packet_id, d.hops);
    std::sort(o.deliveries.begin(), o.deliveries.end());
    net.dumpStats(o.stats);
    return o;
}
}  // namespace

TEST_CASE("chained arrivals and index-order visits change no result", "[noc][engine]") {
    for (const bool staged : {false, true}) {
        auto p = test::meshParams(8, 8, 2, 2, 4);
        if (staged) {
            p.router.staged = true;
            p.router.stages = {1, 1, 1, 1};
        }
        const Outcome direct = run(p, size_t(-1)), chained = run(p, 1);
        INFO((staged ? "four-stage router" : "delay-line router"));
        REQUIRE(direct.deliveries.size() > 1000);
        CHECK(direct.last == chained.last);
        CHECK(direct.deliveries == chained.deliveries);
        CHECK(direct.stats == chained.stats);
    }
}
