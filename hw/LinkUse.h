#pragma once
// One router-to-router link's share of a phase: which routers and port it joins, its kind and the
// fraction of the phase's cycles it was busy. Taken from a noc::Network before it is destroyed,
// so heatmaps and reports can be written after the run.
#include <cstdint>
#include <string>

#include "noc/Link.h"

namespace wsc::hw {

struct LinkUse {
    uint32_t src = 0, dst = 0;  // routers
    uint8_t src_port = 0;       // noc::Topology port at src (East, West, North, South)
    noc::Link::Kind kind = noc::Link::Kind::OnDie;
    std::string name;        // noc::Network::linkName
    double utilization = 0;  // busy cycles / phase cycles
};

}  // namespace wsc::hw
