#pragma once
// Whether a node may take a flit off the network now. Without a gate an NI drains every flit the
// cycle it arrives (the NoC's own model: an endpoint that never pushes back). A gate (the core
// array: arrivals land in SRAM, docs/ARCHITECTURE.md "Receive buffer") may refuse; the NI then
// keeps the flit in its ejection buffer, returns no credit, and later flits of that VC queue
// behind it, so the refusal back-pressures the path and the sender through credit flow control.
// A node that refused is retried only when its owner calls Network::wakeEjection.
#include <cstdint>

#include "noc/Packet.h"

namespace wsc::noc {

class EjectionGate {
  public:
    virtual ~EjectionGate() = default;
    // A flit carrying `bytes` payload bytes of message `m` reached node `node` at `cycle`.
    // True takes it (the gate commits to the bytes); false leaves it in the network.
    virtual bool admitFlit(const Message& m, uint32_t node, uint32_t bytes, uint64_t cycle) = 0;
};

}  // namespace wsc::noc
