#pragma once
// Fault-tolerant unicast routing with an escape VC (Duato): VCs 1..n-1 follow a shortest path
// over the surviving links (XY-preferred among equals, so an intact mesh routes exactly XY);
// VC 0 is the escape channel and follows up*/down* (noc/UpDownRouting). A head that finds every
// adaptive VC of its shortest-path port taken may take the escape VC of the up*/down* port
// instead (the router tries the primary first, then RouteDecision's alternative); once on the
// escape VC a packet stays there to its destination. Shortest paths around failures can form
// cyclic dependencies, but they only ever wait on the escape network, whose up*/down*
// dependencies are acyclic and which every head can always request, so no cycle can hold for
// ever. Up*/down* alone (every VC) funnels traffic towards its spanning tree's root and
// saturates near half of XY's throughput on an intact mesh; this keeps XY's throughput when
// nothing failed and degrades gradually as links fail. Needs >= 2 VCs.
#include <cstdint>
#include <vector>

#include "noc/FaultMap.h"
#include "noc/RoutingPolicy.h"
#include "noc/Topology.h"
#include "noc/UpDownRouting.h"

namespace wsc::noc {

class EscapeRouting : public RoutingPolicy {
  public:
    // `updown` must outlive this object (the network owns both).
    EscapeRouting(const Topology& topo, const FaultMap& faults, const UpDownRouting& updown,
                  uint32_t vcs);
    RouteDecision route(uint32_t router, uint8_t in_port, uint8_t in_vc,
                        const PacketInfo& pkt) const override;
    // Next port on the shortest surviving path from router r to router d (kUnreachable if none).
    uint8_t shortestPort(uint32_t r, uint32_t d) const { return next_[size_t(r) * R_ + d]; }
    // Links from r to d on that path (UINT32_MAX if unreachable).
    uint32_t distance(uint32_t r, uint32_t d) const;

  private:
    const Topology& topo_;
    const UpDownRouting& updown_;
    uint8_t vcs_;
    uint32_t R_;
    std::vector<uint8_t> next_;  // [r * R + d] -> port on a shortest path
};

}  // namespace wsc::noc
