#pragma once
// The chip top as a SystemC module ("wafer"), assembled from one hw::HardwareConfig: the NoC
// shell ("wafer.noc", the one SC_METHOD that steps the plain C++ network and cores), one hw::Die
// per die of the topology ("wafer.die_X_Y", X along x), and in each die its HBM stacks
// ("wafer.die_X_Y.hbm_K": MemoryBridge "bridge" + dram::HbmTarget "controller"). Elaborated once
// per process; each run builds a fresh noc::Network (buildNetwork) and, for core workloads, a
// core::CoreArray on it (buildCores), then attachMemory wires every core's DMA to the nearest
// stack of its own die, directly or through the core::NocMemoryPort at that stack's nearest edge
// router (a stack may attach through several).
//
// Clock domains: cores and NoC on noc.clock; D2D links on noc.d2d.clock (crossings inside
// noc::Link); each HBM stack on its tCK (its answers cross into the NoC clock in the bridge with
// hbm.sync synchronizer cycles). docs/ARCHITECTURE.md, "Wafer and dies" and "Clock domains".
#include <cstdint>
#include <memory>
#include <systemc>
#include <vector>

#include "core/CoreArray.h"
#include "core/InterleavedMemoryPort.h"
#include "hw/Die.h"
#include "hw/HardwareConfig.h"
#include "hw/MemoryPorts.h"
#include "hw/StatsGroup.h"
#include "noc/Network.h"
#include "noc/NocShell.h"

namespace wsc::hw {

class Wafer : public sc_core::sc_module, public StatsGroup, public MemoryPorts {
  public:
    // `memory`: each HBM stack is the cycle-level controller (Hbm) or a latency/bandwidth model
    // of the same stack (Simple: stackModel() below), for long runs.
    Wafer(sc_core::sc_module_name name, const HardwareConfig& hw,
          MemoryTarget memory = MemoryTarget::Hbm);
    MemoryTarget memoryTarget() const { return memory_; }
    // The latency/bandwidth model of one stack of `hbm`: its peak bandwidth times
    // kStreamEfficiency (what the cycle-level controller sustains on streaming DMA, measured:
    // docs/LLM.md, "Memory fidelity"), a row-miss read latency (tRCD + tCL + a burst), and its
    // capacity.
    static core::MemoryParams stackModel(const dram::HbmParams& hbm,
                                         const core::MemoryParams& base);
    static constexpr double kStreamEfficiency = 0.95;

    const HardwareConfig& config() const { return hw_; }
    const noc::Topology& topology() const { return topo_; }
    noc::NocShell& shell() { return *shell_; }

    // A fresh network for a run (drops the previous network and cores).
    noc::Network& buildNetwork(uint64_t seed = 1);
    noc::Network& network();
    // The cores of this run on the current network (`cp` may differ from the config's, e.g. the
    // workload's functional flag).
    core::CoreArray& buildCores(const core::CoreParams& cp);
    core::CoreArray& cores();
    // Drops this run's cores (and the firmware they own) once its results are read, so a
    // caller that builds the next run's program first does not hold two programs at once.
    void releaseCores();
    // Every core's DMA goes to the nearest stack of its own die (Die::nearestStack); with
    // over_noc through the NocMemoryPort at that stack's nearest attach router
    // (Die::nearestAttach), else straight to its bridge.
    // `interleave` (direct only): every core spreads its DMA over all the stacks of its die,
    // address-interleaved at `granule` bytes (core::InterleavedMemoryPort) — a die-level core
    // is the whole die and uses all of its memory.
    void attachMemory(bool functional, bool over_noc, uint32_t header_bytes = 16,
                      uint32_t window = 32, bool interleave = false, uint64_t granule = 0);

    uint32_t dies() const { return static_cast<uint32_t>(dies_.size()); }
    Die& die(uint32_t index) { return *dies_.at(index); }
    Die& die(uint32_t x, uint32_t y) { return *dies_.at(y * topo_.diesX() + x); }
    Die& dieOfRouter(uint32_t router) { return *dies_.at(topo_.dieOf(router)); }
    // Flat stack index (die-major) <-> die and stack.
    MemoryStack& stackOfPort(uint32_t port);

    // MemoryPorts (ports = every die's stacks, die-major; valid after attachMemory for
    // portOfCore).
    uint32_t ports() const override;
    uint32_t portOfCore(uint32_t core) const override;
    void hostWrite(uint32_t port, uint64_t addr, const void* src, uint64_t len) override;
    void hostRead(uint32_t port, uint64_t addr, void* dst, uint64_t len) override;
    uint64_t transactions() const override;

    // Wafer-level facts; dies and stacks are written by hw::HierarchyStats under their names.
    void dumpStats(nlohmann::json& out) const override;

  private:
    HardwareConfig hw_;
    noc::Topology topo_;
    std::unique_ptr<noc::NocShell> shell_;
    std::vector<std::unique_ptr<Die>> dies_;
    std::unique_ptr<noc::Network> net_;
    std::unique_ptr<core::CoreArray> cores_;
    std::vector<uint32_t> port_of_core_;
    MemoryTarget memory_;
    std::vector<std::unique_ptr<core::InterleavedMemoryPort>> interleaved_;
};

}  // namespace wsc::hw
