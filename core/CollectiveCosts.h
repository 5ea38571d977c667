#pragma once
// The core numbers firmware/collectives' closed forms need, from a core's parameters
// (firmware/ cannot see core::CoreParams: the dependency points the other way).
#include "core/CoreParams.h"
#include "firmware/collectives/CollectiveTiming.h"

namespace wsc::core {

inline firmware::coll::CoreCosts collectiveCosts(const CoreParams& p) {
    firmware::coll::CoreCosts c;
    c.vector_lanes = p.vector.lanes;
    c.vector_latency = p.vector.latencyOf(0, false);  // index 0 = VADD (Opcode order)
    c.sram_port_bytes = p.sram.port_bytes;
    c.sram_ports = p.sram.ports;
    return c;
}

}  // namespace wsc::core
