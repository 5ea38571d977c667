// The zero-load model's uniform mean in closed form (ZeroLoadModel::exactUniformMean) against
// the mean of packetLatency walked over every ordered pair, and where the closed form must
// refuse.
#include <catch2/catch.hpp>

#include "NocTestUtil.h"
#include "noc/ZeroLoadModel.h"

using namespace wsc;

namespace {
double walkedMean(const noc::Network& net, uint32_t flits) {
    const noc::ZeroLoadModel zl(net);
    double sum = 0;
    for (uint32_t s = 0; s < net.nodes(); ++s)
        for (uint32_t d = 0; d < net.nodes(); ++d) sum += double(zl.packetLatency(s, d, flits));
    return sum / (double(net.nodes()) * net.nodes());
}

// 2 x 2 dies of 4 x 3 routers joined by D2D links 24 cycles long.
noc::NocParams d2dMesh() {
    auto p = test::meshParams(8, 6);
    p.topology.die_x = 4;
    p.topology.die_y = 3;
    p.d2d.latency = 20;
    p.d2d.serdes_latency = 4;
    return p;
}

void checkAgainstWalk(const noc::NocParams& p, uint32_t flits) {
    noc::Network net(p);
    double mean = -1;
    REQUIRE(noc::ZeroLoadModel(net).exactUniformMean(flits, mean));
    CHECK(mean == Approx(walkedMean(net, flits)).epsilon(1e-12));
}
}  // namespace

TEST_CASE("zero-load uniform mean in closed form equals the walk over every pair",
          "[noc][zeroload]") {
    SECTION("8x8, P = 2, one-cycle links: the documented 19.75 cycles") {
        auto p = test::meshParams(8, 8);
        noc::Network net(p);
        double mean = 0;
        REQUIRE(noc::ZeroLoadModel(net).exactUniformMean(1, mean));
        CHECK(mean == Approx(19.75).epsilon(1e-12));
        checkAgainstWalk(p, 1);
        checkAgainstWalk(p, 4);
    }
    SECTION("rectangular, YX, two NIs per router, slower links, deeper pipeline") {
        auto p = test::meshParams(5, 3, 3);
        p.routing = noc::RoutingAlgo::YX;
        p.topology.local_ports = 2;
        p.link.latency = 2;
        p.local_link.latency = 3;
        p.link.width_bytes = 8;  // two cycles per 16-byte flit on the mesh links
        checkAgainstWalk(p, 1);
        p.local_link.width_bytes = 8;  // every link two cycles per flit: multi-flit too
        checkAgainstWalk(p, 3);
    }
    SECTION("dies joined by D2D links with their own flight") {
        const auto p = d2dMesh();
        checkAgainstWalk(p, 1);
        checkAgainstWalk(p, 2);  // D2D as wide as the mesh links: one per-flit time
    }
    SECTION("a line of routers, and destination tables (routed as dimension order)") {
        checkAgainstWalk(test::meshParams(1, 6), 1);
        checkAgainstWalk(test::meshParams(6, 1), 2);
        auto p = test::meshParams(4, 4);
        p.route_limit = 256;  // an entry per destination and input port
        p.topology.die_x = p.topology.die_y = 2;
        p.d2d.latency = 20;
        p.routing = noc::RoutingAlgo::Table;
        checkAgainstWalk(p, 1);
    }
    // What the report prints (uniformMeanLatency): every pair's mean, none sampled.
    auto reported = [](uint32_t k_x, uint32_t k_y, uint32_t link_latency) {
        auto p = test::meshParams(k_x, k_y);
        p.link.latency = link_latency;
        noc::Network net(p);
        uint64_t sampled = 99;
        const double mean = noc::ZeroLoadModel(net).uniformMeanLatency(1, &sampled);
        CHECK(sampled == 0);
        CHECK(mean == Approx(walkedMean(net, 1)).epsilon(1e-12));
    };
    SECTION("up to the enumerated size the report's mean is every pair's, from the sums") {
        reported(7, 4, 3);
    }
    SECTION("beyond the enumerated size the report's mean is the closed form, not a sample") {
        reported(40, 40, 2);  // 1600 nodes > kExactNodes
    }
}

TEST_CASE("zero-load closed form refuses what is not a sum over links", "[noc][zeroload]") {
    double mean = -1;
    SECTION("a torus (shorter way round)") {
        auto p = test::meshParams(6, 6);
        p.topology.wrap = true;
        noc::Network net(p);
        CHECK_FALSE(noc::ZeroLoadModel(net).exactUniformMean(1, mean));
        CHECK(mean == -1.0);  // untouched
    }
    SECTION("routes around failures") {
        auto p = test::meshParams(6, 6);
        p.faults.force_updown = true;
        noc::Network net(p);
        CHECK_FALSE(noc::ZeroLoadModel(net).exactUniformMean(1, mean));
        CHECK(mean == -1.0);
    }
    SECTION("multi-flit packets over links of different per-flit times") {
        auto p = test::meshParams(6, 6);
        p.link.width_bytes = 8;  // mesh links 2 cycles per flit, NI links 1
        noc::Network net(p);
        CHECK_FALSE(noc::ZeroLoadModel(net).exactUniformMean(2, mean));
        CHECK(mean == -1.0);
        CHECK(noc::ZeroLoadModel(net).exactUniformMean(1, mean));  // one flit: no bottleneck
        CHECK(mean == Approx(walkedMean(net, 1)).epsilon(1e-12));
    }
}

// (Without failures every row of a mesh has the same links, D2D ones included, and every column
// too, so which row or column a route runs along cannot change its sum: these meshes cannot tell
// XY from YX, nor a segment taken along the wrong line. The sums follow the order anyway.)
TEST_CASE("zero-load path sums give every pair the latency its walk gives", "[noc][zeroload]") {
    auto everyPair = [](const noc::NocParams& p, uint32_t flits) {
        noc::Network net(p);
        const noc::ZeroLoadModel walk(net);
        noc::ZeroLoadModel quick(net);
        REQUIRE(quick.buildPathSums(flits));
        uint64_t differ = 0;
        for (uint32_t s = 0; s < net.nodes(); ++s)
            for (uint32_t d = 0; d < net.nodes(); ++d)
                differ += quick.packetLatency(s, d, flits) != walk.packetLatency(s, d, flits);
        CHECK(differ == 0);
        // Another packet length is walked, not read from sums built for this one.
        CHECK(quick.packetLatency(0, net.nodes() - 1, flits + 1) ==
              walk.packetLatency(0, net.nodes() - 1, flits + 1));
    };
    auto p = test::meshParams(7, 4, 3);
    p.link.latency = 2;
    everyPair(p, 1);
    p.routing = noc::RoutingAlgo::YX;
    p.topology.local_ports = 2;
    p.local_link.latency = 3;
    everyPair(p, 1);
    everyPair(p, 5);  // every link one cycle per flit
    auto d2d = d2dMesh();
    everyPair(d2d, 1);
    d2d.routing = noc::RoutingAlgo::YX;
    everyPair(d2d, 3);
    auto torus = test::meshParams(6, 6);
    torus.topology.wrap = true;
    noc::Network net(torus);
    noc::ZeroLoadModel zl(net);
    CHECK_FALSE(zl.buildPathSums(1));  // the walk stays (shorter way round, datelines)
}
