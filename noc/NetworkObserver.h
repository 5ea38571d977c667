#pragma once
// Callbacks from the network to whoever drives it (testbench, cores). Plain interfaces so the
// network never depends on its users.
#include <cstddef>
#include <cstdint>

#include "noc/Packet.h"

namespace wsc::noc {

class NetworkObserver {
  public:
    virtual ~NetworkObserver() = default;
    // A packet's tail reached node `node` (called once per destination for multicast).
    virtual void onPacketDelivered(const PacketInfo&, uint32_t /*node*/, uint64_t /*cycle*/) {}
    // Every packet of a message reached node `node`.
    virtual void onMessageDelivered(const Message&, uint32_t /*node*/, uint64_t /*cycle*/) {}
    // Node `node`'s NI finished injecting a packet; `queued` packets are left in its queue.
    // Lets a sender that waits for room wake on an event instead of polling every cycle.
    virtual void onPacketInjected(uint32_t /*node*/, size_t /*queued*/, uint64_t /*cycle*/) {}
};

}  // namespace wsc::noc
