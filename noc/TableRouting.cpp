#include "noc/TableRouting.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::noc {

TableRouting::TableRouting(const Topology& topo, uint32_t vcs)
    : topo_(topo), vcs_(static_cast<uint8_t>(vcs)), tables_(topo.routers()) {}

RouteDecision TableRouting::route(uint32_t r, uint8_t in_port, uint8_t,
                                  const PacketInfo& pkt) const {
    uint8_t mask = tables_[r].lookup(in_port, pkt.route);
    if (!mask)
        throw std::runtime_error(fmt::format(
            "routing: {} has no route entry for route id {} arriving on port {} (packet {} from "
            "node {})",
            topo_.name(r), pkt.route, Topology::portName(in_port), pkt.id, pkt.src));
    RouteDecision d;
    d.out_mask = mask;
    d.vc_lo = 0;
    d.vc_hi = vcs_;
    return d;
}

}  // namespace wsc::noc
