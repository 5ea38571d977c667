#pragma once
// One compute die of the wafer as a named SystemC hierarchy node (wafer.die_X_Y). Its routers
// and cores live in the wafer's plain C++ NoC engine and core array (noc::Network, CoreArray:
// no module per router or core); the die knows which router indices are its own and which sit
// on each edge, owns its HBM stacks (hw::MemoryStack children hbm_0, hbm_1, ..., each a
// MemoryBridge + dram::HbmTarget, reached through one core::NocMemoryPort per attach router on
// its edge) and
// reports its own counters: routers, links leaving it by kind, and (as children) its stacks.
#include <cstdint>
#include <memory>
#include <optional>
#include <systemc>
#include <vector>

#include "core/CoreParams.h"
#include "dram/HbmParams.h"
#include "hw/HbmAttachParams.h"
#include "hw/MemoryStack.h"
#include "hw/StatsGroup.h"
#include "noc/Network.h"
#include "noc/Topology.h"

namespace wsc::hw {

class Die : public sc_core::sc_module, public StatsGroup {
  public:
    // Die (x, y) of the topology's die array; with `hbm` it gets one stack per entry of
    // attach.stacks, at the edge routers each entry names.
    Die(sc_core::sc_module_name name, const noc::Topology& topo, uint32_t die_x, uint32_t die_y,
        const core::CoreParams& cp, const std::optional<dram::HbmParams>& hbm,
        const HbmAttachParams& attach, MemoryTarget target = MemoryTarget::Hbm);

    uint32_t index() const { return index_; }  // die_y * dies_x + die_x, as Topology::dieOf
    uint32_t x() const { return x_; }
    uint32_t y() const { return y_; }
    // Global router indices of this die, row-major inside the die.
    const std::vector<uint32_t>& routers() const { return routers_; }
    bool contains(uint32_t router) const;
    // Routers along one edge of the die, in order of position (y for west/east, x otherwise).
    std::vector<uint32_t> edgeRouters(HbmAttachParams::Edge e) const;

    uint32_t stacks() const { return static_cast<uint32_t>(stacks_.size()); }
    MemoryStack& stack(uint32_t k) { return *stacks_.at(k); }
    const MemoryStack& stack(uint32_t k) const { return *stacks_.at(k); }
    // Stack k's attach routers (global indices, in attach order); stackRouter(k) is the first.
    const std::vector<uint32_t>& stackRouters(uint32_t k) const { return stack_routers_.at(k); }
    uint32_t stackRouter(uint32_t k) const { return stack_routers_.at(k).front(); }
    // The stack with an attach router closest (mesh hops) to `router`; ties go to the lower
    // stack index. Needs at least one stack.
    uint32_t nearestStack(uint32_t router) const;
    // Of stack k's attach routers, the index (into stackRouters(k)) of the one closest to
    // `router`; ties go to the earlier one in attach order.
    uint32_t nearestAttach(uint32_t k, uint32_t router) const;

    // The network of the current run, for the router and link counters (null: none yet).
    void bindNetwork(const noc::Network* net) { net_ = net; }
    void dumpStats(nlohmann::json& out) const override;

  private:
    const noc::Topology& topo_;
    uint32_t x_, y_, index_;
    uint32_t x0_, y0_, dx_, dy_;  // origin (routers) and size of the die
    std::vector<uint32_t> routers_;
    std::vector<std::unique_ptr<MemoryStack>> stacks_;
    std::vector<std::vector<uint32_t>> stack_routers_;
    std::vector<HbmAttachParams::Stack> stack_place_;
    const noc::Network* net_ = nullptr;
};

}  // namespace wsc::hw
