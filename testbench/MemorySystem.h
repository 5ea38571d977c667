#pragma once
// The memory ports of a chip for a run: per port one MemoryBridge (TLM initiator shared by the
// cores on that port) bound to one target, either a SimpleMemory (fixed latency and bandwidth)
// or a dram::HbmTarget (one HBM3 stack controller), chosen by MemoryTarget. SystemC modules, so
// it is built once per process before the first sc_start and can serve several runs (attach()
// rewires it).
//
// attach() connects the cores straight to the bridges (no NoC crossing); attachOverNoc() puts a
// core::NocMemoryPort in front of each bridge at a NoC node, so DMA requests and data cross the
// NoC to and from the port's node.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/CoreArray.h"
#include "core/CoreParams.h"
#include "core/MemoryBridge.h"
#include "core/NocMemoryPort.h"
#include "core/SimpleMemory.h"
#include "dram/HbmParams.h"
#include "dram/HbmTarget.h"
#include "noc/Network.h"
#include "noc/NocShell.h"

namespace wsc::tb {

enum class MemoryTarget { Simple, Hbm };

class MemorySystem {
  public:
    MemorySystem(const core::CoreParams& p, double clock_hz);
    // `hbm` configures every HbmTarget (one stack per port) when target is Hbm.
    MemorySystem(const core::CoreParams& p, double clock_hz, MemoryTarget target,
                 const dram::HbmParams& hbm = dram::HbmParams::hbm3Default());
    // Connects every port to `cores` (as its memory ports) and to `shell` (wake-ups, cycles).
    void attach(core::CoreArray& cores, noc::NocShell& shell, bool functional);
    // Same, but port i sits at NoC node nodes[i] and DMA crosses the NoC (nodes.size() == ports());
    // header and window as in core::NocMemoryPort.
    void attachOverNoc(core::CoreArray& cores, noc::NocShell& shell, noc::Network& net,
                       bool functional, const std::vector<uint32_t>& nodes,
                       uint32_t header_bytes = 16, uint32_t window = 32);
    uint32_t ports() const { return static_cast<uint32_t>(bridges_.size()); }
    MemoryTarget target() const { return target_; }
    core::SimpleMemory& memory(uint32_t port);  // throws unless the target is Simple
    dram::HbmTarget& hbm(uint32_t port);        // throws unless the target is Hbm
    // Host access to a port's memory (either target), e.g. to place a tensor before a run.
    void hostWrite(uint32_t port, uint64_t addr, const void* src, uint64_t len);
    void hostRead(uint32_t port, uint64_t addr, void* dst, uint64_t len);
    // The NoC ports of the last attachOverNoc (empty after attach()).
    const std::vector<std::unique_ptr<core::NocMemoryPort>>& nocPorts() const { return noc_ports_; }
    uint64_t transactions() const;

  private:
    MemoryTarget target_ = MemoryTarget::Simple;
    std::vector<std::unique_ptr<core::MemoryBridge>> bridges_;
    std::vector<std::unique_ptr<core::SimpleMemory>> memories_;
    std::vector<std::unique_ptr<dram::HbmTarget>> hbms_;
    std::vector<std::unique_ptr<core::NocMemoryPort>> noc_ports_;
};

}  // namespace wsc::tb
