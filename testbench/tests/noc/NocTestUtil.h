#pragma once
// Helpers for NoC tests: build parameters in C++ and step a Network directly (no SystemC).
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "noc/Network.h"

namespace wsc::test {

inline noc::NocParams meshParams(uint32_t kx, uint32_t ky, uint32_t pipeline = 2, uint32_t vcs = 4,
                                 uint32_t depth = 8) {
    noc::NocParams p;
    p.topology.x = kx;
    p.topology.y = ky;
    p.router.pipeline = pipeline;
    p.router.vcs = vcs;
    p.router.vc_buffer_flits = depth;
    p.flit_bytes = 16;
    p.link.width_bytes = 16;
    p.local_link.width_bytes = 16;
    p.d2d.width_bytes = 16;
    return p;
}

// Records every packet and message delivery.
struct Recorder : noc::NetworkObserver {
    struct Delivery {
        uint64_t packet_id;
        uint32_t node;
        uint64_t cycle;
        uint64_t created;
        uint32_t hops;
    };
    std::vector<Delivery> packets;
    std::vector<std::pair<uint64_t, uint32_t>> messages;  // (message id, node)
    void onPacketDelivered(const noc::PacketInfo& p, uint32_t node, uint64_t c) override {
        packets.push_back({p.id, node, c, p.created, p.hops});
    }
    void onMessageDelivered(const noc::Message& m, uint32_t node, uint64_t) override {
        messages.push_back({m.id, node});
    }
};

// Steps from cycle `from` until the network is idle; returns the last cycle stepped.
inline uint64_t runUntilIdle(noc::Network& net, uint64_t from = 0, uint64_t limit = 1000000) {
    uint64_t c = from;
    net.step(c);
    while (!net.idle()) {
        uint64_t n = net.nextActiveCycle(c);
        if (n == noc::kNever || n > limit) break;
        c = n;
        net.step(c);
    }
    return c;
}

// One cycle of uniform random traffic: each node starts a packet of 1-4 flits with probability
// 1/16 (about 0.15 flits/node/cycle: past an 8x8 mesh's knee, so VCs fill and routers block and
// sleep) to another node, measured.
inline void offerUniform(noc::Network& net, std::mt19937_64& rng, uint64_t cycle) {
    const uint32_t n = net.nodes();
    for (uint32_t s = 0; s < n; ++s)
        if (rng() % 16 == 0) {
            uint32_t d = uint32_t(rng() % n);
            if (d == s) d = (d + 1) % n;
            net.enqueuePacket(s, d, noc::kNoRoute, 1 + uint32_t(rng() % 4), cycle, true);
        }
}

// A 2x2 mesh that deadlocks: every node sends a 12-flit packet clockwise two hops on table
// routes, 1 VC of 2 flits, so each packet holds one link of the ring and waits for the next
// (classic cyclic dependency). Watchdog 500 cycles.
inline std::unique_ptr<noc::Network> jammedRing(uint32_t threads = 1) {
    auto p = meshParams(2, 2, 1, 1, 2);
    p.watchdog_cycles = 500;
    p.threads = threads;
    auto net = std::make_unique<noc::Network>(p);
    const uint8_t E = noc::Topology::kEast, W = noc::Topology::kWest, N = noc::Topology::kNorth,
                  S = noc::Topology::kSouth, L = noc::Topology::kFirstLocal;
    // Ring r0(0,0) -E-> r1(1,0) -S-> r3(1,1) -W-> r2(0,1) -N-> r0.
    const uint32_t ring[4] = {0, 1, 3, 2};
    const uint8_t outp[4] = {E, S, W, N};
    for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t route = 200 + i;
        const uint32_t r0 = ring[i], r1 = ring[(i + 1) % 4], r2 = ring[(i + 2) % 4];
        net->addRouteEntry(r0, L, route, 1u << outp[i]);
        net->addRouteEntry(r1, noc::Topology::opposite(outp[i]), route, 1u << outp[(i + 1) % 4]);
        net->addRouteEntry(r2, noc::Topology::opposite(outp[(i + 1) % 4]), route, 1u << L);
    }
    for (uint32_t i = 0; i < 4; ++i) net->enqueuePacket(ring[i], 0, 200 + i, 12, 0, false);
    return net;
}

}  // namespace wsc::test
