#pragma once
// Route computation as a plain policy: given where a head flit is and which packet it leads,
// name the output port(s) and the range of virtual channels it may take on them.
#include <cstdint>

#include "noc/Packet.h"

namespace wsc::noc {

struct RouteDecision {
    uint8_t out_mask = 0;  // bit per output port; more than one bit = multicast fork
    uint8_t vc_lo = 0;     // allowed output VCs [vc_lo, vc_hi): VC classes for the torus dateline
    uint8_t vc_hi = 0;
    // Unicast only: where the head may go instead when every VC of [vc_lo, vc_hi) on out_mask's
    // port is taken (an escape channel, noc/EscapeRouting); 0xFF = no alternative.
    uint8_t alt_port = 0xFF;
    uint8_t alt_vc_lo = 0, alt_vc_hi = 0;
};

class RoutingPolicy {
  public:
    virtual ~RoutingPolicy() = default;
    virtual RouteDecision route(uint32_t router, uint8_t in_port, uint8_t in_vc,
                                const PacketInfo& pkt) const = 0;
};

}  // namespace wsc::noc
