#pragma once
// Fault-tolerant unicast routing: up*/down* (Autonet) over the links that survive. Each
// connected part of the mesh gets a BFS spanning tree from its north-west-most router; a link
// direction is "up" if it goes to a lower BFS level (or the same level and a lower router index).
// A legal route takes any number of up links, then only down links, which rules out cyclic
// channel dependencies on any graph, so it is deadlock-free with every VC usable. Among the
// shortest legal routes a router prefers the XY direction, then E, W, N, S, so fault-free regions
// route much like XY. The phase (may still go up / only down) is known from the input port.
// Tables: one output port per (router, destination router, phase).
#include <cstdint>
#include <string>
#include <vector>

#include "noc/DimensionOrderRouting.h"
#include "noc/FaultMap.h"
#include "noc/RoutingPolicy.h"
#include "noc/Topology.h"

namespace wsc::noc {

class UpDownRouting : public RoutingPolicy {
  public:
    static constexpr uint32_t kMaxRouters = 4096;  // tables are routers^2 * 2 bytes
    static constexpr uint8_t kUnreachable = 0xFF;

    UpDownRouting(const Topology& topo, const FaultMap& faults, uint32_t vcs);
    RouteDecision route(uint32_t router, uint8_t in_port, uint8_t in_vc,
                        const PacketInfo& pkt) const override;
    // Output port at router r for a packet to dst_node that arrived on in_port.
    uint8_t nextPort(uint32_t r, uint8_t in_port, uint32_t dst_node) const;
    bool reachable(uint32_t src_router, uint32_t dst_router) const;
    uint32_t component(uint32_t r) const { return comp_[r]; }
    // Routers outside the largest connected part (empty when the mesh is still connected).
    std::vector<uint32_t> cutOff() const;
    bool linkUp(uint32_t r, uint8_t port) const;  // direction r -> neighbour is "up"

  private:
    size_t idx(uint32_t r, uint32_t d, uint32_t phase) const {
        return (size_t(r) * topo_.routers() + d) * 2 + phase;
    }
    const Topology& topo_;
    const FaultMap& faults_;
    DimensionOrderRouting dor_;
    uint8_t vcs_;
    std::vector<uint32_t> level_, comp_;
    std::vector<uint8_t> next_;  // output port or kUnreachable
};

}  // namespace wsc::noc
