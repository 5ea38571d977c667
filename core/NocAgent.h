#pragma once
// Something besides the cores that sends and receives messages on the NoC from inside the shell's
// step, driven by CoreArray (the network has one observer and the shell one driver). A memory
// port attached at a NoC node (NocMemoryPort) is one. CoreArray hands it every delivered message
// whose tag is one of its kinds (MessageTag::isMemory and the agent index), calls beforeStep after
// the cores' own evaluation (so what a core pushed this cycle can leave this cycle), and keeps
// stepping while it has work.
#include <cstdint>

#include "noc/Packet.h"

namespace wsc::core {

class NocAgent {
  public:
    virtual ~NocAgent() = default;
    // A message for this agent reached `node` (inside Network::step: must not send from here).
    virtual void onMessage(const noc::Message& m, uint32_t node, uint64_t cycle) = 0;
    // Once per stepped cycle, after the cores; may send.
    virtual void beforeStep(uint64_t cycle) = 0;
    // Next cycle > cycle at which beforeStep has something to do (noc::kNever if none).
    virtual uint64_t nextWake(uint64_t cycle) const = 0;
};

}  // namespace wsc::core
