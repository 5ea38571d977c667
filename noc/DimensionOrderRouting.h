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
    // The same for a packet bound for the router at (dx, dy), to its port `local_port`. Inline:
    // it runs for every head at every router, and out of line the returned struct went through
    // the stack (a store-forwarding stall per call).
    RouteDecision routeTo(uint32_t router, uint8_t in_port, uint8_t in_vc, uint32_t dx, uint32_t dy,
                          uint8_t local_port) const {
        const uint8_t out = nextPort(router, dx, dy, local_port);
        RouteDecision d;
        d.out_mask = static_cast<uint8_t>(1u << out);
        d.vc_lo = 0;
        d.vc_hi = vcs_;
        if (topo_.torus() && !Topology::isLocal(out)) torusClass(router, in_port, in_vc, out, d);
        return d;
    }
    // The output port a packet at `router` bound for `dst_router` takes (local port excluded).
    uint8_t nextPort(uint32_t router, uint32_t dst_router, uint8_t local_port) const;
    // The same for the destination router at (dx, dy).
    uint8_t nextPort(uint32_t router, uint32_t dx, uint32_t dy, uint8_t local_port) const {
        const uint32_t cx = topo_.x(router), cy = topo_.y(router);
        const bool needX = cx != dx, needY = cy != dy;
        if (needX && (x_first_ || !needY))
            return dimPort(cx, dx, topo_.kx(), Topology::kEast, Topology::kWest);
        if (needY) return dimPort(cy, dy, topo_.ky(), Topology::kSouth, Topology::kNorth);
        return local_port;
    }

  private:
    uint8_t dimPort(uint32_t cur, uint32_t dst, uint32_t k, uint8_t pos, uint8_t neg) const {
        if (!topo_.torus()) return dst > cur ? pos : neg;
        // Shorter way round; ties go the positive way so the choice is deterministic.
        const uint32_t fwd = (dst + k - cur) % k;
        return fwd <= k - fwd ? pos : neg;
    }
    // On a torus: the dateline VC class of a hop leaving on `out` (Dally & Seitz).
    void torusClass(uint32_t router, uint8_t in_port, uint8_t in_vc, uint8_t out,
                    RouteDecision& d) const;
    const Topology& topo_;
    bool x_first_;
    uint8_t vcs_;
};

}  // namespace wsc::noc
