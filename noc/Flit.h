#pragma once
// A flit as it sits in a buffer or crosses a link. Kept to 16 bytes: everything that is per packet
// (source, route, timestamps) lives once in the network's packet table, except what a
// dimension-order head needs at every router it crosses, its destination and its hop count
// (reading and counting them in the packet table was a cache miss per hop on large meshes).
#include <cstdint>

namespace wsc::noc {

struct Flit {
    enum Flags : uint8_t { kHead = 1, kTail = 2 };
    uint32_t packet = 0;  // slot in the packet table
    uint16_t seq = 0;     // index of this flit within its packet
    uint8_t flags = 0;
    uint8_t vc = 0;  // virtual channel on the channel it is crossing / buffered in
    // In a head flit (the only one routed): the destination of a packet routed in dimension
    // order (route kNoRoute) on a network without fault routing (Network::dorInFlit): its
    // router's coordinates and its NI's port there, as
    // dimension-order routing reads them (a node's coordinates looked up per hop missed in
    // cache too). dst_x kTableRoute: routed and counted by the packet record (a table route, a
    // tree, or a route around failures). Mesh sides are at most 65535, so no router has
    // kTableRoute as its x.
    uint16_t dst_x = kTableRoute, dst_y = 0;
    // Router-to-router links the head has crossed (a dst_x packet's; Network::flitEjected
    // copies it into the record).
    uint16_t hops = 0;
    uint8_t dst_port = 0;
    static constexpr uint16_t kTableRoute = 0xFFFF;
    bool dimensionOrder() const { return dst_x != kTableRoute; }

    bool head() const { return flags & kHead; }
    bool tail() const { return flags & kTail; }
};
static_assert(sizeof(Flit) == 16, "keep flits small: buffers dominate per-router memory");

}  // namespace wsc::noc
