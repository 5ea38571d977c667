#pragma once
// Helpers for NoC tests: build parameters in C++ and step a Network directly (no SystemC).
#include <map>
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

}  // namespace wsc::test
