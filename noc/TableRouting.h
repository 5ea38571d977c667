#pragma once
// Table-driven routing: each router looks up (input port, route id) in its own RouteTable.
// Multicast is an entry with several output ports. A head flit with no matching entry is a
// configuration bug in the installed routes and is reported, not dropped.
#include <vector>

#include "noc/RouteTable.h"
#include "noc/RoutingPolicy.h"
#include "noc/Topology.h"

namespace wsc::noc {

class TableRouting : public RoutingPolicy {
  public:
    TableRouting(const Topology& topo, uint32_t vcs);
    RouteDecision route(uint32_t router, uint8_t in_port, uint8_t in_vc,
                        const PacketInfo& pkt) const override;
    RouteTable& table(uint32_t router) { return tables_[router]; }
    const RouteTable& table(uint32_t router) const { return tables_[router]; }

  private:
    const Topology& topo_;
    uint8_t vcs_;
    std::vector<RouteTable> tables_;
};

}  // namespace wsc::noc
