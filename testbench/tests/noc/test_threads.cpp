// Threaded stepping (Network::setThreads, `--threads`): lanes chain the arrivals of contiguous
// router ranges, any thread visits chunks of their active routers, and the chunks' effects are
// applied in router order each cycle, so a run must be bit-identical to a
// single-threaded one: every delivery in the same cycle, at the same node and in the same order,
// and every counter equal. Checked with unicast and multicast traffic (a tree's head forks at
// several routers of different lanes in one cycle), delay-line and four-stage routers, 2 and 3
// threads (3 on this 2-core machine also checks that the result does not depend on timing),
// fixed lane ranges far apart, a 64x64 mesh against the default one-thread step, long D2D
// links with retries and an observer that sends from deliveries, the watchdog's report, and an
// observer's exception ending a threaded step.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>

#include "NocTestUtil.h"
#include "noc/DeadlockError.h"
#include "noc/StepThreads.h"

using namespace wsc;

namespace {
struct Outcome {
    std::vector<test::Recorder::Delivery> packets;
    std::vector<std::pair<uint64_t, uint32_t>> messages;
    nlohmann::json stats;
    uint64_t last = 0, traversals = 0, threaded_steps = 0;
    std::vector<uint32_t> boundaries;  // the lane ranges at the end
};

// Drives `net`: `trees` multicast trees from random sources to up to `fanout` random nodes,
// `cycles` cycles of uniform 1-4 flit packets at about 0.15 flits/node/cycle (routers block and
// sleep) plus a multicast message of up to `units` x 16 bytes every `every` cycles, then drains;
// returns what `rec` (the network's observer) saw and the network's counters.
Outcome drive(noc::Network& net, const test::Recorder& rec, std::mt19937_64& rng, int trees,
              int fanout, uint64_t cycles, uint64_t every, uint64_t units) {
    const uint32_t n = net.nodes();
    std::vector<std::pair<uint32_t, uint32_t>> routes;  // (source, route)
    for (int t = 0; t < trees; ++t) {
        const uint32_t src = uint32_t(rng() % n);
        std::vector<uint32_t> dsts;
        for (int k = 0; k < fanout; ++k) {
            const uint32_t d = uint32_t(rng() % n);
            if (d != src && std::find(dsts.begin(), dsts.end(), d) == dsts.end()) dsts.push_back(d);
        }
        routes.emplace_back(src, net.addMulticastRoute(src, dsts));
    }
    uint64_t c = 0;
    for (; c < cycles; ++c) {
        test::offerUniform(net, rng, c);
        if (c % every == 0) {
            const auto& [src, route] = routes[rng() % routes.size()];
            noc::Message m;
            m.src = src;
            m.route = route;
            m.bytes = 16 * (1 + rng() % units);
            net.send(m, c);
        }
        net.step(c);
    }
    Outcome o;
    o.last = test::runUntilIdle(net, c, c + 10000000);
    net.checkConservation();
    o.packets = rec.packets;
    o.messages = rec.messages;
    o.traversals = net.flitRouterTraversals();
    o.threaded_steps = net.threadedSteps();
    o.boundaries = net.laneBoundaries();
    net.dumpStats(o.stats);
    return o;
}

// `chain_from`: the step chains arrivals (and threads may run) from this many routers; an empty
// `first` leaves the lane ranges at equal shares, otherwise sets them.
Outcome run(const noc::NocParams& p, unsigned threads, size_t chain_from = 1,
            const std::vector<uint32_t>& first = {}, uint64_t cycles = 400) {
    noc::Network net(p);
    net.setChainRouters(chain_from);
    net.setThreads(threads);
    REQUIRE(net.threads() == threads);
    if (!first.empty()) net.setLaneBoundaries(first);
    test::Recorder rec;
    net.setObserver(&rec);
    std::mt19937_64 rng(11);
    return drive(net, rec, rng, 6, 5, cycles, 7, 40);
}

bool same(const test::Recorder::Delivery& a, const test::Recorder::Delivery& b) {
    return a.packet_id == b.packet_id && a.node == b.node && a.cycle == b.cycle &&
           a.created == b.created && a.hops == b.hops;
}

void requireSame(const Outcome& one, const Outcome& many) {
    CHECK(many.last == one.last);
    CHECK(many.traversals == one.traversals);
    REQUIRE(many.packets.size() == one.packets.size());
    size_t differ = 0;
    for (size_t i = 0; i < one.packets.size(); ++i)
        differ += same(one.packets[i], many.packets[i]) ? 0 : 1;
    CHECK(differ == 0);  // same deliveries in the same order
    CHECK(many.messages == one.messages);
    CHECK(many.stats == one.stats);
}

}  // namespace

TEST_CASE("threaded stepping gives bit-identical results", "[noc][engine][threads]") {
    for (const bool staged : {false, true}) {
        auto p = test::meshParams(8, 8, 2, 2, 4);
        if (staged) {
            p.router.staged = true;
            p.router.stages = {1, 1, 1, 1};
        }
        INFO((staged ? "four-stage router" : "delay-line router"));
        const Outcome one = run(p, 1);
        REQUIRE(one.packets.size() > 1000);
        REQUIRE(one.messages.size() > 100);  // multicast deliveries, one per destination
        CHECK(one.threaded_steps == 0);
        // 8: a lane per mesh row, so every north- or southbound flit and credit is an event
        // for another lane's wheel.
        for (const unsigned threads : {2u, 3u, 8u}) {
            INFO("threads " << threads);
            const Outcome many = run(p, threads);
            CHECK(many.threaded_steps > 400);  // every step of the run went through the lanes
            requireSame(one, many);
        }
    }
}

TEST_CASE("threaded stepping: where the lane ranges lie changes nothing", "[noc][threads]") {
    // Splits far apart (one router against 63, halves, 63 against one; three uneven lanes) must
    // all give the one-thread result.
    const auto p = test::meshParams(8, 8, 2, 2, 4);
    const Outcome one = run(p, 1);
    for (const auto& first :
         std::vector<std::vector<uint32_t>>{{0, 1}, {0, 32}, {0, 63}, {0, 7, 50}}) {
        INFO("lanes from routers " << first[1] << (first.size() > 2 ? " ..." : ""));
        const Outcome many = run(p, unsigned(first.size()), 1, first);
        CHECK(many.threaded_steps > 400);
        CHECK(many.boundaries == first);  // as set
        requireSame(one, many);
    }
    noc::Network net(p);
    net.setThreads(2);
    CHECK_THROWS_AS(net.setLaneBoundaries({0}), std::invalid_argument);
    CHECK_THROWS_AS(net.setLaneBoundaries({1, 5}), std::invalid_argument);
    CHECK_THROWS_AS(net.setLaneBoundaries({0, 64}), std::invalid_argument);
    // Once stepped, each lane's wheel holds its routers' events: the ranges stay.
    net.setChainRouters(1);
    net.step(0);
    CHECK_THROWS_AS(net.setLaneBoundaries({0, 32}), std::logic_error);
}

TEST_CASE("threaded stepping on a 64x64 mesh equals the default one-thread run", "[noc][threads]") {
    // 4096 routers: the default threshold, where one thread chains arrivals by itself; nothing
    // is lowered, so this is what `--threads 2` is compared with by a user.
    auto p = test::meshParams(64, 64, 2, 2, 4);
    const size_t dflt = 4096;
    const Outcome one = run(p, 1, dflt, {}, 120);
    REQUIRE(one.packets.size() > 10000);
    const Outcome many = run(p, 2, dflt, {}, 120);
    CHECK(many.threaded_steps > 120);
    requireSame(one, many);
}

namespace {
// Records deliveries and answers each of the first `echoes` multicast messages with a unicast
// back to its sender, sent from inside the delivery (the step's NI part, which runs while other
// threads chain): a send that grows the packet table during a threaded step.
struct Echo : test::Recorder {
    noc::Network* net = nullptr;
    uint32_t echoes = 300;
    void onMessageDelivered(const noc::Message& m, uint32_t node, uint64_t c) override {
        test::Recorder::onMessageDelivered(m, node, c);
        if (m.route == noc::kNoRoute || echoes == 0) return;
        --echoes;
        noc::Message r;
        r.src = node;
        r.dst = m.src;
        r.bytes = 16 * (1 + m.id % 5);
        net->send(r, c);
    }
};

// 8x8 routers in 2x2-router dies: D2D links of 20 cycles (their events go past the lanes'
// 16-cycle blocks) with bit errors (retries; a flit resent several times may land beyond the
// wheel's ring), uniform traffic, a few multicast trees, and the Echo observer.
Outcome runDies(unsigned threads) {
    auto p = test::meshParams(8, 8, 2, 2, 8);
    p.topology.die_x = p.topology.die_y = 2;
    p.topology.die_pitch_mm = 10;
    p.d2d.latency = 20;
    p.d2d.serdes_latency = 4;
    p.d2d.ber = 2e-3;  // 1 - (1 - 2e-3)^128: a fifth of the flits crossing a die edge resent
    p.d2d.width_bytes = 16;
    p.watchdog_cycles = 100000;
    noc::Network net(p, 5);
    net.setChainRouters(1);
    net.setThreads(threads);
    Echo rec;
    rec.net = &net;
    net.setObserver(&rec);
    std::mt19937_64 rng(3);
    const Outcome o = drive(net, rec, rng, 4, 6, 600, 5, 30);
    CHECK(net.linkRetries() > 0);
    CHECK(rec.echoes == 0);  // every echo was sent
    return o;
}
}  // namespace

TEST_CASE("threaded stepping with long D2D links, retries and sends from deliveries",
          "[noc][threads]") {
    const Outcome one = runDies(1);
    REQUIRE(one.packets.size() > 1000);
    for (const unsigned threads : {2u, 3u}) {
        INFO("threads " << threads);
        const Outcome many = runDies(threads);
        CHECK(many.threaded_steps > 600);
        requireSame(one, many);
    }
}

TEST_CASE("threaded stepping: an observer's exception ends the step on every thread",
          "[noc][threads]") {
    // Thrown from a delivery, i.e. from the calling thread's NI part while the other threads
    // chain and wait to visit: every wait must end and the step must rethrow, not hang.
    struct Thrower : noc::NetworkObserver {
        uint32_t left = 50;
        void onPacketDelivered(const noc::PacketInfo&, uint32_t, uint64_t) override {
            if (--left == 0) throw std::runtime_error("observer gave up");
        }
    };
    for (const unsigned threads : {2u, 3u}) {
        INFO("threads " << threads);
        noc::Network net(test::meshParams(8, 8, 2, 2, 4));
        net.setChainRouters(1);
        net.setThreads(threads);
        Thrower t;
        net.setObserver(&t);
        std::mt19937_64 rng(7);
        CHECK_THROWS_WITH(
            [&] {
                for (uint64_t c = 0; c < 2000; ++c) {
                    test::offerUniform(net, rng, c);
                    net.step(c);
                }
            }(),
            "observer gave up");
        CHECK(net.threadedSteps() > 0);
    }
}

TEST_CASE("threads are not used below the chaining threshold", "[noc][threads]") {
    // An 8x8 mesh at the default threshold: one thread applies arrivals as they come, an order
    // lanes cannot repeat, so a threaded network steps on the calling thread there and equals
    // the plain one-thread run exactly.
    const auto p = test::meshParams(8, 8, 2, 2, 4);
    const Outcome many = run(p, 2, 4096);
    CHECK(many.threaded_steps == 0);
    requireSame(run(p, 1, 4096), many);
}

TEST_CASE("threaded stepping: the deadlock watchdog reports as with one thread", "[noc][threads]") {
    // test::jammedRing (four packets that each hold one link of a 2x2 ring and wait for the
    // next). The report (cycle, stuck flits, the cycle of waits) must be the one-thread report,
    // word for word.
    auto jam = [](unsigned threads) -> std::string {
        auto net = test::jammedRing(threads);
        net->setChainRouters(1);
        REQUIRE(net->threads() == threads);
        try {
            test::runUntilIdle(*net, 0, 100000);
        } catch (const noc::DeadlockError& e) {
            return e.what();
        }
        return "no deadlock reported";
    };
    const std::string one = jam(1);
    CHECK_THAT(one, Catch::Contains("no flit moved for 500 cycles"));
    CHECK_THAT(one, Catch::Contains("cycle of waits"));
    CHECK(jam(2) == one);
    CHECK(jam(4) == one);
}

TEST_CASE("threads: a count beyond the routers is capped, zero is refused", "[noc][threads]") {
    auto p = test::meshParams(2, 2);
    noc::Network net(p);
    net.setThreads(16);
    CHECK(net.threads() == 4);  // one router per lane at most
    CHECK_THROWS_AS(net.setThreads(0), std::invalid_argument);
    net.enqueuePacket(0, 3, noc::kNoRoute, 3, 0, true);
    test::runUntilIdle(net);
    net.checkConservation();
    CHECK(net.packetsDelivered() == 1);
    CHECK_THROWS_AS(net.setThreads(2), std::logic_error);  // after the run started
}

TEST_CASE("StepThreads: a member's exception is rethrown after the barrier", "[noc][threads]") {
    noc::StepThreads team(3);
    std::vector<int> ran(3, 0);
    // Member 2 throws; members 0 and 1 still finish; the caller gets member 2's error.
    CHECK_THROWS_WITH(team.run([&](unsigned m) {
        ran[m] = 1;
        if (m == 2) throw std::runtime_error("member 2 failed");
    }),
                      "member 2 failed");
    CHECK(ran == std::vector<int>{1, 1, 1});
    // The lowest member's error wins when several throw; the team stays usable.
    CHECK_THROWS_WITH(team.run([&](unsigned m) {
        if (m >= 1) throw std::runtime_error("member " + std::to_string(m));
    }),
                      "member 1");
    CHECK_THROWS_WITH(team.run([&](unsigned m) {
        if (m == 0) throw std::runtime_error("caller");
    }),
                      "caller");
    std::vector<int> count(3, 0);
    team.run([&](unsigned m) { ++count[m]; });
    CHECK(count == std::vector<int>{1, 1, 1});
}
