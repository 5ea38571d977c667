#pragma once
// One memory port of a chip as a SystemC module: a core::MemoryBridge (TLM-2.0 initiator,
// "bridge") bound to its target, either a dram::HbmTarget (one HBM stack controller,
// "controller") or a core::SimpleMemory ("memory"). The port is reached by the cores either
// directly (connectDirect: no NoC crossing) or through a core::NocMemoryPort at a NoC node
// (attachAt: DMA bursts cross the NoC as request/response messages). hw::Die owns one per HBM
// stack (named hbm_k); hw::MemorySystem holds a flat list of them.
//
// A stack may sit on several NoC nodes (an HBM PHY along a die edge, reached through several edge
// routers): attachAt then creates one NocMemoryPort per node, all pushing into the one bridge's
// queue (arrival order; one TLM-2.0 AT initiator into the one controller, so the HBM boundary and
// the clock crossing are those of a single-node stack). Each port brings its own
// `core.memory.max_outstanding` transactions: the bridge allows that many times the number of
// ports in flight, pooled. The answers go back to the port that issued them (MemoryRequest::via).
//
// The answer of an HBM stack crosses from the HBM clock (tCK) into the NoC clock through the
// bridge's asynchronous crossing with `sync` synchronizer cycles; a SimpleMemory is timed in the
// NoC domain and is captured at the next edge (docs/ARCHITECTURE.md, "Clock domains").
#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "core/CoreArray.h"
#include "core/CoreParams.h"
#include "core/MemoryBridge.h"
#include "core/NocMemoryPort.h"
#include "core/SimpleMemory.h"
#include "dram/HbmParams.h"
#include "dram/HbmTarget.h"
#include "hw/StatsGroup.h"
#include "noc/Network.h"
#include "noc/NocShell.h"

namespace wsc::hw {

enum class MemoryTarget { Simple, Hbm };

class MemoryStack : public sc_core::sc_module, public StatsGroup {
  public:
    // `hbm` describes one stack (its `stacks` count and totals are ignored here); `sync` is the
    // HBM -> NoC synchronizer depth in NoC cycles (Hbm only).
    MemoryStack(sc_core::sc_module_name name, const core::CoreParams& cp, MemoryTarget target,
                const dram::HbmParams& hbm = dram::HbmParams::hbm3Default(), uint32_t sync = 2);

    // The cores reach this port's bridge directly; `cores` gets it as its next memory port.
    void connectDirect(core::CoreArray& cores, noc::NocShell& shell, bool functional);
    // The port sits at the NoC nodes `nodes` (distinct, at least one): one NocMemoryPort per node
    // is created, in that order (and registered with `cores` as its next memory ports); the
    // previous ones, if any, are dropped.
    void attachAt(core::CoreArray& cores, noc::NocShell& shell, noc::Network& net, bool functional,
                  const std::vector<uint32_t>& nodes, uint32_t header_bytes = 16,
                  uint32_t window = 32);

    MemoryTarget target() const { return target_; }
    core::MemoryBridge& bridge() { return *bridge_; }
    core::SimpleMemory& memory();  // throws unless Simple
    dram::HbmTarget& hbm();        // throws unless Hbm
    const dram::HbmTarget* hbmOrNull() const { return hbm_.get(); }
    // The NoC ports of the last attachAt, one per node (none after connectDirect).
    uint32_t nocPorts() const { return static_cast<uint32_t>(ports_.size()); }
    const core::NocMemoryPort* nocPort(uint32_t i = 0) const {
        return i < ports_.size() ? ports_[i].get() : nullptr;
    }
    core::NocMemoryPort* nocPort(uint32_t i = 0) {
        return i < ports_.size() ? ports_[i].get() : nullptr;
    }
    // Host access (setup, readout) through transport_dbg / the memory's own accessors.
    void hostWrite(uint64_t addr, const void* src, uint64_t len);
    void hostRead(uint64_t addr, void* dst, uint64_t len);
    uint64_t transactions() const { return bridge_->transactions(); }

    void dumpStats(nlohmann::json& out) const override;

  private:
    MemoryTarget target_;
    std::unique_ptr<core::MemoryBridge> bridge_;
    std::unique_ptr<core::SimpleMemory> memory_;
    std::unique_ptr<dram::HbmTarget> hbm_;
    std::vector<std::unique_ptr<core::NocMemoryPort>> ports_;
    uint32_t max_outstanding_;  // per port (core.memory.max_outstanding)
};

}  // namespace wsc::hw
