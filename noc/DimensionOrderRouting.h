#pragma once
// XY or YX dimension-order routing on a mesh or torus. On a torus it takes the shorter way
// round and uses two VC classes with a dateline on the wrap link (Dally & Seitz): a packet
// starts each dimension in class 0 and moves to class 1 once it has crossed that dimension's
// wrap link, which breaks the cyclic channel dependency of the ring.
#include "noc/RoutingPolicy.h"
#include "noc/Topology.h"

namespace wsc::noc {

class DimensionOrderRouting : public RoutingPolicy {
  public:
    DimensionOrderRouting(const Topology& topo, bool xFirst, uint32_t vcs);
    RouteDecision route(uint32_t router, uint8_t in_port, uint8_t in_vc,
                        const PacketInfo& pkt) const override;
    // The output port a packet at `router` bound for `dst_router` takes (local port excluded).
    uint8_t nextPort(uint32_t router, uint32_t dst_router, uint8_t local_port) const;

  private:
    uint8_t dimPort(uint32_t cur, uint32_t dst, uint32_t k, uint8_t pos, uint8_t neg) const;
    const Topology& topo_;
    bool x_first_;
    uint8_t vcs_;
};

}  // namespace wsc::noc
