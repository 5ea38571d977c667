#pragma once
// What a core needs from the chip around it: the NoC (send, egress credits), wake-ups at a
// future cycle, and its memory port. CoreArray implements it; tests may stub it.
#include <cstddef>
#include <cstdint>

#include "core/MemoryRequest.h"
#include "noc/Packet.h"

namespace wsc::core {

class CoreEnvironment {
  public:
    virtual ~CoreEnvironment() = default;
    virtual void send(const noc::Message& m, uint64_t now) = 0;
    // Packets waiting in the core's NI (egress queue); SEND stalls on credits at tx_queue.
    virtual size_t egressQueued(uint32_t core) const = 0;
    virtual void wakeAt(uint32_t core, uint64_t cycle) = 0;
    // The core made room in its receive buffer or posted a receive: flits its NI refused may be
    // taken now (CoreArray retries them; noc::EjectionGate).
    virtual void ejectionReady(uint32_t /*core*/) {}
    virtual void memoryRequest(MemoryRequest&& r) = 0;  // throws if the core has no memory port
    virtual uint32_t cores() const = 0;
};

}  // namespace wsc::core
