#include "noc/DimensionOrderRouting.h"

namespace wsc::noc {

DimensionOrderRouting::DimensionOrderRouting(const Topology& topo, bool xFirst, uint32_t vcs)
    : topo_(topo), x_first_(xFirst), vcs_(static_cast<uint8_t>(vcs)) {}

uint8_t DimensionOrderRouting::dimPort(uint32_t cur, uint32_t dst, uint32_t k, uint8_t pos,
                                       uint8_t neg) const {
    if (!topo_.torus()) return dst > cur ? pos : neg;
    // Shorter way round; ties go the positive way so the choice is deterministic.
    uint32_t fwd = (dst + k - cur) % k;
    return fwd <= k - fwd ? pos : neg;
}

uint8_t DimensionOrderRouting::nextPort(uint32_t r, uint32_t dr, uint8_t local_port) const {
    uint32_t cx = topo_.x(r), cy = topo_.y(r), dx = topo_.x(dr), dy = topo_.y(dr);
    bool needX = cx != dx, needY = cy != dy;
    if (needX && (x_first_ || !needY))
        return dimPort(cx, dx, topo_.kx(), Topology::kEast, Topology::kWest);
    if (needY) return dimPort(cy, dy, topo_.ky(), Topology::kSouth, Topology::kNorth);
    return local_port;
}

RouteDecision DimensionOrderRouting::route(uint32_t r, uint8_t in_port, uint8_t in_vc,
                                           const PacketInfo& pkt) const {
    uint32_t dr = topo_.routerOfNode(pkt.dst);
    uint8_t out = nextPort(r, dr, topo_.portOfNode(pkt.dst));
    RouteDecision d;
    d.out_mask = static_cast<uint8_t>(1u << out);
    d.vc_lo = 0;
    d.vc_hi = vcs_;
    if (topo_.torus() && !Topology::isLocal(out)) {
        uint8_t half = vcs_ / 2;
        bool inClass1 = in_vc >= half && !Topology::isLocal(in_port);
        bool straight = !Topology::isLocal(in_port) && Topology::opposite(in_port) == out;
        bool class1 = topo_.isWrap(r, out) || (straight && inClass1);
        d.vc_lo = class1 ? half : 0;
        d.vc_hi = class1 ? vcs_ : half;
    }
    return d;
}

}  // namespace wsc::noc
