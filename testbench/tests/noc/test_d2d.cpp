// Die-to-die links: FEC latency on long links (torus wrap), link-level retry with a bit-error
// rate, and the dateline that keeps a torus deadlock-free.
#include <catch2/catch.hpp>

#include "NocTestUtil.h"
#include "noc/ZeroLoadModel.h"

using namespace wsc;

namespace {
noc::NocParams dieLevel(uint32_t kx, uint32_t ky, bool wrap) {
    // A TEMP-like die-level mesh: one router per die, 26 mm die pitch, 2 GHz.
    auto p = test::meshParams(kx, ky, 2, 2, 8);
    p.topology.die_x = p.topology.die_y = 1;
    p.topology.die_pitch_mm = 27.0;
    p.topology.wrap = wrap;
    p.d2d.latency = 20;
    p.d2d.serdes_latency = 4;
    p.d2d.fec_latency = 420;  // 210 ns at 2 GHz
    p.d2d.fec_threshold_mm = 50.0;
    p.d2d.width_bytes = 16;
    p.watchdog_cycles = 100000;
    p.router.vc_buffer_flits = 64;
    return p;
}
}  // namespace

TEST_CASE("a torus wrap link longer than 50 mm carries the FEC latency", "[noc][d2d]") {
    auto p = dieLevel(8, 1, true);
    noc::Network net(p);
    // The wrap link joins x = 7 and x = 0: 7 x 27 = 189 mm, so FEC applies; neighbours (27 mm)
    // do not need it.
    bool sawWrap = false;
    for (uint32_t l = 0; l < net.links().size(); ++l) {
        const auto& k = net.link(l);
        if (k.kind() != noc::Link::Kind::D2D) continue;
        if (k.spec().length_mm > 50) {
            sawWrap = true;
            CHECK(k.spec().length_mm == Approx(189.0));
            CHECK(k.spec().fec == 420);
            CHECK(k.flight() == 20 + 4 + 420);
        } else {
            CHECK(k.spec().fec == 0);
            CHECK(k.flight() == 20 + 4);
        }
    }
    CHECK(sawWrap);
    test::Recorder rec;
    net.setObserver(&rec);
    // 7 -> 0 goes the short way: one hop over the wrap link.
    net.enqueuePacket(7, 0, noc::kNoRoute, 1, 0, false);
    test::runUntilIdle(net);
    REQUIRE(rec.packets.size() == 1);
    const uint64_t expect = 1 + 1 + 2 * 2 + (20 + 4 + 420);  // local links + 2 routers + wrap link
    CHECK(rec.packets[0].cycle == expect);
    CHECK(noc::ZeroLoadModel(net).packetLatency(7, 0, 1) == expect);
    // Without wrap the same packet crosses 7 short links and pays no FEC.
    noc::Network mesh(dieLevel(8, 1, false));
    CHECK(noc::ZeroLoadModel(mesh).packetLatency(7, 0, 1) == 1 + 1 + 8 * 2 + 7 * 24);
}

TEST_CASE("a D2D link with BER > 0 loses nothing and counts its retries", "[noc][d2d]") {
    auto p = dieLevel(4, 4, false);
    p.d2d.ber = 1e-4;  // ~1.3% of 128-bit flits corrupted
    noc::Network net(p, 3);
    test::Recorder rec;
    net.setObserver(&rec);
    std::mt19937_64 rng(1);
    uint64_t c = 0, sent = 0;
    for (; c < 4000; ++c) {
        if (c % 4 == 0)
            for (uint32_t n = 0; n < 16; ++n, ++sent)
                net.enqueuePacket(n, rng() % 16, noc::kNoRoute, 4, c, false);
        net.step(c);
    }
    test::runUntilIdle(net, c, c + 10000000);
    CHECK(rec.packets.size() == sent);
    CHECK_NOTHROW(net.checkConservation());
    CHECK(net.linkRetries() > 0);
    // Retries cost link time and energy: bits sent exceed flits x flit bits on D2D links.
    uint64_t flits = 0, bits = 0;
    for (const auto& l : net.links())
        if (l.kind() == noc::Link::Kind::D2D) flits += l.flits(), bits += l.bitsSent();
    CHECK(bits == (flits + net.linkRetries()) * 128);
}

TEST_CASE("a corrupted flit arrives late by the NACK round trip", "[noc][d2d]") {
    noc::Link::Spec s;
    s.kind = noc::Link::Kind::D2D;
    s.latency = 10;
    s.serdes = 2;
    s.width_bytes = 16;
    s.ber = 0.005;  // P(128-bit flit corrupted) = 1 - (1 - ber)^128 = 0.47
    noc::Link link(s, 16, 1);
    uint64_t t = 0, last = 0;
    for (int i = 0; i < 200; ++i, t += 1) {
        uint64_t before = link.retries();
        uint64_t arrival = link.transmit(t);
        uint64_t retries = link.retries() - before;
        // Each retry adds the NACK's trip back (one-way latency) and a resend (flight); a flit
        // never overtakes the one before it.
        CHECK(arrival == std::max(t + 12 + retries * (12 + 12), last + 1));
        last = arrival;
    }
    CHECK(link.retries() > 50);
    CHECK(link.retries() < 400);
    s.ber = 1e-3;
    CHECK_THROWS_WITH(noc::Link(s, 2048, 1), Catch::Contains("bit-error rate"));
}

TEST_CASE("torus traffic with dateline VCs does not deadlock", "[noc][d2d][torus]") {
    auto p = test::meshParams(6, 6, 1, 2, 2);
    p.topology.wrap = true;
    p.topology.die_x = p.topology.die_y = 6;  // one die; the wrap links are still D2D links
    p.topology.core_pitch_mm = 1.0;           // 5 mm wraps: no FEC
    p.d2d.latency = 1;
    p.d2d.width_bytes = 16;
    p.watchdog_cycles = 2000;
    noc::Network net(p, 9);
    std::mt19937_64 rng(2);
    uint64_t c = 0;
    for (; c < 5000; ++c) {
        for (uint32_t n = 0; n < 36; ++n)
            if (rng() % 4 == 0) net.enqueuePacket(n, rng() % 36, noc::kNoRoute, 4, c, false);
        REQUIRE_NOTHROW(net.step(c));
    }
    REQUIRE_NOTHROW(test::runUntilIdle(net, c, c + 1000000));
    CHECK_NOTHROW(net.checkConservation());
}

namespace {
// Two dies of 2 x 1 routers at 1 GHz; the D2D link between x = 1 and x = 2 runs at d2d_hz with a
// 3-cycle latency and 16 B per D2D cycle (16 B flits: one D2D cycle per flit).
uint64_t d2dPacketLatency(double d2d_hz, uint32_t flits, uint64_t* model) {
    auto p = test::meshParams(4, 1, 2, 2, 16);
    p.clock_hz = 1e9;
    p.topology.die_x = 2;
    p.topology.die_y = 1;
    p.topology.die_pitch_mm = 10;
    p.d2d.latency = 3;
    p.d2d.width_bytes = 16;
    p.d2d.clock_hz = d2d_hz;
    p.d2d.sync = 2;
    noc::Network net(p);
    test::Recorder rec;
    net.setObserver(&rec);
    net.enqueuePacket(0, 3, noc::kNoRoute, flits, 0, false);
    test::runUntilIdle(net);
    REQUIRE(rec.packets.size() == 1);
    *model = noc::ZeroLoadModel(net).packetLatency(0, 3, flits);
    return rec.packets[0].cycle;
}
}  // namespace

TEST_CASE("a D2D link on its own clock changes zero-load latency by the crossing closed form",
          "[noc][d2d][clock]") {
    // Path 0 -> 3: injection (1) + 4 routers x P (2) + two on-die links (1 each) + the D2D link +
    // ejection (1) + (F - 1) x the slowest serialization on the path (docs/NOC.md, T0).
    const auto t0 = [](uint64_t d2d_flight, uint64_t s_path, uint32_t F) {
        return 1 + 4 * 2 + 2 * 1 + d2d_flight + 1 + (F - 1) * s_path;
    };
    for (uint32_t F : {1u, 4u}) {
        uint64_t model = 0;
        // D2D on the NoC clock: flight = latency + s - 1 = 3, one cycle per flit.
        CHECK(d2dPacketLatency(0.0, F, &model) == t0(3, 1, F));
        CHECK(model == t0(3, 1, F));
        // Same clock given explicitly: still no crossing.
        CHECK(d2dPacketLatency(1e9, F, &model) == t0(3, 1, F));
        // 500 MHz: flight = ceil(((sync + K + 1) f_noc - gcd) / f_d2d) + sync with K = 3 + 1 - 1
        // = ceil((6e9 - 5e8) / 5e8) + 2 = 11 + 2 = 13; a flit holds the port ceil(1 x 2) = 2 NoC
        // cycles.
        CHECK(d2dPacketLatency(5e8, F, &model) == t0(13, 2, F));
        CHECK(model == t0(13, 2, F));
        // 2 GHz: ceil((6e9 - 1e9) / 2e9) + 2 = 3 + 2 = 5; ceil(1 / 2) = 1 cycle per flit.
        CHECK(d2dPacketLatency(2e9, F, &model) == t0(5, 1, F));
        // 1.5 GHz (3:2): ceil((6e9 - 5e8) / 1.5e9) + 2 = 4 + 2 = 6.
        CHECK(d2dPacketLatency(1.5e9, F, &model) == t0(6, 1, F));
        CHECK(model == t0(6, 1, F));
    }
}
