#pragma once
// The memory ports of a chip for a run: per port one MemoryBridge (TLM initiator shared by the
// cores on that port) bound to one SimpleMemory target. SystemC modules, so it is built once per
// process before the first sc_start and can serve several runs (attach() rewires it).
#include <cstdint>
#include <memory>
#include <vector>

#include "core/CoreArray.h"
#include "core/CoreParams.h"
#include "core/MemoryBridge.h"
#include "core/SimpleMemory.h"
#include "noc/NocShell.h"

namespace wsc::tb {

class MemorySystem {
public:
    MemorySystem(const core::CoreParams& p, double clock_hz);
    // Connects every port to `cores` (as its memory ports) and to `shell` (wake-ups, cycles).
    void attach(core::CoreArray& cores, noc::NocShell& shell, bool functional);
    uint32_t ports() const { return static_cast<uint32_t>(bridges_.size()); }
    core::SimpleMemory& memory(uint32_t port) { return *memories_.at(port); }
    uint64_t transactions() const;

private:
    std::vector<std::unique_ptr<core::MemoryBridge>> bridges_;
    std::vector<std::unique_ptr<core::SimpleMemory>> memories_;
};

}  // namespace wsc::tb
