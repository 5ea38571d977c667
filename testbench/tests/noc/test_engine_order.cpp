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

TEST_CASE("the delay line's mask allocator grants what the general VC allocator grants",
          "[noc][engine][va]") {
    // Router::allocateUnicastVcs is the general allocator's delay-line rules with requester
    // masks instead of lists: the same traffic must give the same cycles and counters through
    // either. Meshes past the knee (heads compete for a port's VCs), with 2 and 4 VCs, the
    // single-cycle hop, and a torus, whose dateline classes restrict a head to part of a
    // port's VCs.
    struct Case {
        const char* name;
        noc::NocParams p;
    };
    std::vector<Case> cases = {
        {"8x8, 4 VCs x 4, pipeline 2", test::meshParams(8, 8, 2, 4, 4)},
        {"8x8, 2 VCs x 2, pipeline 0", test::meshParams(8, 8, 0, 2, 2)},
        {"4x4 torus, 4 VCs x 2, pipeline 1", test::meshParams(4, 4, 1, 4, 2)}};
    cases[2].p.topology.wrap = true;
    for (Case& c : cases) {
        INFO(c.name);
        c.p.router.unicast_va = false;
        const Outcome general = run(c.p, size_t(-1));
        c.p.router.unicast_va = true;
        const Outcome masks = run(c.p, size_t(-1));
        REQUIRE(general.deliveries.size() > 300);
        CHECK(general.last == masks.last);
        CHECK(general.deliveries == masks.deliveries);
        CHECK(general.stats == masks.stats);
    }
}
