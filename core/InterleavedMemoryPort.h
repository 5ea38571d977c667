#pragma once
// One memory port over several: a die's memory as its HBM stacks, address-interleaved. A DMA
// burst goes to stack (addr / granule) mod n at the stack-local address
// (addr / (granule * n)) * granule + addr mod granule, so a die-level core that streams through
// its memory uses every stack of its die, as a die's memory controllers interleave across their
// channels. A burst that starts near a granule's end goes whole to the stack of its first byte
// (bursts are at most one granule long). Plain C++ (the ports are TLM bridges behind it).
#include <cstdint>
#include <vector>

#include "core/MemoryPort.h"

namespace wsc::core {

class InterleavedMemoryPort : public MemoryPort {
  public:
    // `granule` bytes per stack before the next one; at least the DMA burst.
    InterleavedMemoryPort(std::vector<MemoryPort*> ports, uint64_t granule);
    void push(MemoryRequest&& r) override;
    uint32_t ports() const { return static_cast<uint32_t>(ports_.size()); }
    // Which port and local address a global address goes to.
    uint32_t portOf(uint64_t addr) const;
    uint64_t localAddress(uint64_t addr) const;
    uint64_t requests(uint32_t port) const { return requests_.at(port); }

  private:
    std::vector<MemoryPort*> ports_;
    uint64_t granule_;
    std::vector<uint64_t> requests_;
};

}  // namespace wsc::core
