#pragma once
// A flit as it sits in a buffer or crosses a link. Kept to 8 bytes: everything that is per packet
// (source, destination, route, timestamps) lives once in the network's packet table.
#include <cstdint>

namespace wsc::noc {

struct Flit {
    enum Flags : uint8_t { kHead = 1, kTail = 2 };
    uint32_t packet = 0;  // slot in the packet table
    uint16_t seq = 0;     // index of this flit within its packet
    uint8_t flags = 0;
    uint8_t vc = 0;  // virtual channel on the channel it is crossing / buffered in

    bool head() const { return flags & kHead; }
    bool tail() const { return flags & kTail; }
};
static_assert(sizeof(Flit) == 8, "keep flits small: buffers dominate per-router memory");

}  // namespace wsc::noc
