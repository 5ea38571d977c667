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

// A gate's answer. TakeRest promises that every later flit of the same packet at this node would
// be taken too with nothing to account (a flit streaming into a posted receive): the NI then stops
// asking for that packet, which spares a visit to the node's state per flit on large meshes.
enum class Admission : uint8_t { Refuse, Take, TakeRest };

class EjectionGate {
  public:
    virtual ~EjectionGate() = default;
    // A flit carrying `bytes` payload bytes of message `m` reached node `node` at `cycle`.
    // Take / TakeRest take it (the gate commits to the bytes); Refuse leaves it in the network.
    virtual Admission admitFlit(const Message& m, uint32_t node, uint32_t bytes,
                                uint64_t cycle) = 0;
};

}  // namespace wsc::noc
