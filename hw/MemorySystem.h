#pragma once
// The memory ports of a chip for a run, as one flat list: port i is a hw::MemoryStack (a
// MemoryBridge bound to a SimpleMemory or a dram::HbmTarget, chosen by MemoryTarget). SystemC
// modules, so it is built once per process before the first sc_start and can serve several runs
// (attach() rewires it). Core c uses port c mod ports. hw::Wafer is the per-die alternative:
// HBM stacks owned by their dies and attached at edge routers.
//
// attach() connects the cores straight to the bridges (no NoC crossing); attachOverNoc() puts a
// core::NocMemoryPort in front of each bridge at a NoC node, so DMA requests and data cross the
// NoC to and from the port's node.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/CoreArray.h"
#include "core/CoreParams.h"
#include "dram/HbmParams.h"
#include "hw/MemoryPorts.h"
#include "hw/MemoryStack.h"
#include "noc/Network.h"
#include "noc/NocShell.h"

namespace wsc::hw {

class MemorySystem : public MemoryPorts {
  public:
    MemorySystem(const core::CoreParams& p, double clock_hz);
    // `hbm` configures every HbmTarget (one stack per port) when target is Hbm; `sync` is the
    // HBM -> NoC synchronizer depth (NoC cycles).
    MemorySystem(const core::CoreParams& p, double clock_hz, MemoryTarget target,
                 const dram::HbmParams& hbm = dram::HbmParams::hbm3Default(), uint32_t sync = 2);
    // Connects every port to `cores` (as its memory ports) and to `shell` (wake-ups, cycles).
    void attach(core::CoreArray& cores, noc::NocShell& shell, bool functional);
    // Same, but port i sits at the NoC nodes nodes[i] (one NocMemoryPort each, see
    // MemoryStack::attachAt) and DMA crosses the NoC (nodes.size() == ports()); header and
    // window as in core::NocMemoryPort. Registered with `cores` port by port, node by node.
    void attachOverNoc(core::CoreArray& cores, noc::NocShell& shell, noc::Network& net,
                       bool functional, const std::vector<std::vector<uint32_t>>& nodes,
                       uint32_t header_bytes = 16, uint32_t window = 32);
    MemoryTarget target() const { return target_; }
    core::SimpleMemory& memory(uint32_t port);  // throws unless the target is Simple
    dram::HbmTarget& hbm(uint32_t port);        // throws unless the target is Hbm
    MemoryStack& stack(uint32_t port) { return *stacks_.at(port); }
    // The NoC ports of the last attachOverNoc, port by port, node by node (empty after attach()).
    std::vector<core::NocMemoryPort*> nocPorts() const;

    // MemoryPorts
    uint32_t ports() const override { return static_cast<uint32_t>(stacks_.size()); }
    uint32_t portOfCore(uint32_t core) const override { return core % ports(); }
    void hostWrite(uint32_t port, uint64_t addr, const void* src, uint64_t len) override;
    void hostRead(uint32_t port, uint64_t addr, void* dst, uint64_t len) override;
    uint64_t transactions() const override;

  private:
    MemoryTarget target_ = MemoryTarget::Simple;
    std::vector<std::unique_ptr<MemoryStack>> stacks_;
    bool over_noc_ = false;
};

}  // namespace wsc::hw
