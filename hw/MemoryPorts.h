#pragma once
// What a workload testbench needs from a chip's memory ports, whoever owns them (a flat
// hw::MemorySystem, or the dies of a hw::Wafer): how many, which one a core's DMA goes to, and
// host access to place operands and read results.
#include <cstdint>

namespace wsc::hw {

class MemoryPorts {
  public:
    virtual ~MemoryPorts() = default;
    virtual uint32_t ports() const = 0;
    virtual uint32_t portOfCore(uint32_t core) const = 0;
    virtual void hostWrite(uint32_t port, uint64_t addr, const void* src, uint64_t len) = 0;
    virtual void hostRead(uint32_t port, uint64_t addr, void* dst, uint64_t len) = 0;
    virtual uint64_t transactions() const = 0;  // TLM transactions over all ports so far
};

}  // namespace wsc::hw
