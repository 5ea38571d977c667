#include "noc/DimensionOrderRouting.h"

namespace wsc::noc {

DimensionOrderRouting::DimensionOrderRouting(const Topology& topo, bool xFirst, uint32_t vcs)
    : topo_(topo), x_first_(xFirst), vcs_(static_cast<uint8_t>(vcs)) {}

uint8_t DimensionOrderRouting::nextPort(uint32_t r, uint32_t dr, uint8_t local_port) const {
    return nextPort(r, topo_.x(dr), topo_.y(dr), local_port);
}

RouteDecision DimensionOrderRouting::route(uint32_t r, uint8_t in_port, uint8_t in_vc,
                                           const PacketInfo& pkt) const {
    const uint32_t dr = topo_.routerOfNode(pkt.dst);
    return routeTo(r, in_port, in_vc, topo_.x(dr), topo_.y(dr), topo_.portOfNode(pkt.dst));
}

void DimensionOrderRouting::torusClass(uint32_t r, uint8_t in_port, uint8_t in_vc, uint8_t out,
                                       RouteDecision& d) const {
    uint8_t half = vcs_ / 2;
    bool inClass1 = in_vc >= half && !Topology::isLocal(in_port);
    bool straight = !Topology::isLocal(in_port) && Topology::opposite(in_port) == out;
    bool class1 = topo_.isWrap(r, out) || (straight && inClass1);
    d.vc_lo = class1 ? half : 0;
    d.vc_hi = class1 ? vcs_ : half;
}

}  // namespace wsc::noc
