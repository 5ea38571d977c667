// Network::step's large-mesh path (arrivals chained per router, routers visited in index order)
// is a cache optimisation: the same traffic must give the same deliveries, cycle for cycle and
// in the same order (same-cycle arrivals at NIs reach them in NI order: NiArrivalOrder), and the
// same counters as the path that applies arrivals as they come and visits routers in the order
// they were woken.
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
    bool masks_on = false;       // every router could run the delay line's mask VC allocator
    bool in_node_order = false;  // deliveries reported by cycle, then node
    bool drained = false;        // idle at the end, every output VC's credits back
};

// 300 cycles of uniform random 1-4 flit packets at about 0.15 flits/node/cycle (past an 8x8
// mesh's knee, so VCs fill and routers block and sleep), then drain. trees: also a 2-flit row
// broadcast on a table route from a random node every other cycle or so, so some router-cycles
// mix tree heads with unicast heads (the mask VC allocator hands those to allocateVcs after
// routing some of them).
Outcome run(const noc::NocParams& p, size_t chain_from, bool trees = false) {
    noc::Network net(p);
    net.setChainRouters(chain_from);
    Outcome o;
    o.masks_on = true;
    for (uint32_t r = 0; r < net.nodes(); ++r) o.masks_on = o.masks_on && net.router(r).unicastVa();
    std::vector<uint32_t> routes;
    const uint32_t kx = p.topology.x;
    if (trees)
        for (uint32_t s = 0; s < net.nodes(); ++s) {
            std::vector<uint32_t> row;
            for (uint32_t d = s / kx * kx; d < (s / kx + 1) * kx; ++d)
                if (d != s) row.push_back(d);
            routes.push_back(net.addMulticastRoute(s, row));
        }
    test::Recorder rec;
    net.setObserver(&rec);
    std::mt19937_64 rng(7);
    uint64_t c = 0;
    for (; c < 300; ++c) {
        test::offerUniform(net, rng, c);
        if (trees && rng() % 2 == 0) {
            // Split at the source into one packet per direction, as Network::send does (a
            // tree forking both ways can deadlock with another: docs/NOC.md).
            const uint32_t s = uint32_t(rng() % net.nodes());
            for (const auto& b : net.multicastBranches(routes[s], s))
                net.enqueuePacket(s, s, routes[s], 2, c, true, 0, b.mask);
        }
        net.step(c);
    }
    o.last = test::runUntilIdle(net, c);
    net.checkConservation();
    // Drained for real: nothing pending (credits in flight included) and every credit home.
    o.drained = net.idle();
    for (uint32_t r = 0; r < net.nodes(); ++r)
        for (uint8_t port = 0; port < net.router(r).ports(); ++port)
            for (uint8_t v = 0; v < p.router.vcs; ++v)
                if (net.router(r).outLink(port) != noc::Router::kNoLink &&
                    net.router(r).credits(port, v) != p.router.vc_buffer_flits)
                    o.drained = false;
    // As reported: the order of visits differs between the two paths, the order of deliveries
    // must not.
    for (const auto& d : rec.packets)
        o.deliveries.emplace_back(d.cycle, d.node, d.packet_id, d.hops);
    o.in_node_order = std::is_sorted(o.deliveries.begin(), o.deliveries.end());
    net.dumpStats(o.stats);
    return o;
}
}  // namespace

TEST_CASE("chained arrivals and index-order visits change no result", "[noc][engine]") {
    // Credits: the unchained step's ring (due 1 to 7 cycles ahead: credit latency + sa) against
    // the chained step's wheel; latency 7 on the four-stage router (sa 1) is 8 and takes the
    // wheel both ways, on the delay line 7 is the ring's last slot.
    for (const bool staged : {false, true})
        for (const uint32_t credit_latency : {1u, 7u}) {
            auto p = test::meshParams(8, 8, 2, 2, 4);
            p.link.credit_latency = credit_latency;
            if (staged) {
                p.router.staged = true;
                p.router.stages = {1, 1, 1, 1};
            }
            const Outcome direct = run(p, size_t(-1)), chained = run(p, 1);
            INFO((staged ? "four-stage router" : "delay-line router")
                 << ", credit latency " << credit_latency);
            REQUIRE(direct.deliveries.size() > 1000);
            CHECK(direct.last == chained.last);
            CHECK(direct.drained);
            CHECK(chained.drained);
            CHECK(direct.in_node_order);
            CHECK(direct.deliveries == chained.deliveries);
            CHECK(direct.stats == chained.stats);
        }
}

TEST_CASE("the delay line's mask allocator grants what the general VC allocator grants",
          "[noc][engine][va]") {
    // Router::allocateUnicastVcs is the general allocator's delay-line rules with requester
    // masks instead of lists: the same traffic must give the same cycles and counters through
    // either. Meshes past the knee (heads compete for a port's VCs) with 2 and 4 VCs and the
    // single-cycle hop; an 8x8 torus with one-flit buffers, whose dateline classes restrict a
    // head to part of a port's VCs while packets hold their VCs long; and row broadcasts on
    // table routes among the unicasts, whose router-cycles go to the general allocator.
    // (Serving a port's requesters from the bottom instead of from its pointer fails this.)
    struct Case {
        const char* name;
        noc::NocParams p;
        bool trees;
    };
    std::vector<Case> cases = {
        {"8x8, 4 VCs x 4, pipeline 2", test::meshParams(8, 8, 2, 4, 4), false},
        {"8x8, 2 VCs x 2, pipeline 0", test::meshParams(8, 8, 0, 2, 2), false},
        {"8x8 torus, 4 VCs x 1, pipeline 1", test::meshParams(8, 8, 1, 4, 1), false},
        {"8x8 with row broadcasts, 4 VCs x 4, pipeline 2", test::meshParams(8, 8, 2, 4, 4), true}};
    cases[2].p.topology.wrap = true;
    for (Case& c : cases) {
        INFO(c.name);
        c.p.router.unicast_va = false;
        const Outcome general = run(c.p, size_t(-1), c.trees);
        CHECK_FALSE(general.masks_on);
        c.p.router.unicast_va = true;
        const Outcome masks = run(c.p, size_t(-1), c.trees);
        CHECK(masks.masks_on);
        REQUIRE(general.deliveries.size() > 1000);  // about 1200 unicasts, more with trees
        CHECK(general.last == masks.last);
        CHECK(general.deliveries == masks.deliveries);
        CHECK(general.stats == masks.stats);
    }
}
