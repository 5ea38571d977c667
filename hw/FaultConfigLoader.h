#pragma once
// Loads the optional `noc.faults:` section: failed links (both directions of a mesh link),
// failed routers (a core and its router), a seeded random link-fault rate, and whether a run may
// go on when faults cut part of the mesh off, and how unicast traffic is routed around them
// (`routing: escape | updown`; escape, the default, needs 2 VCs and with 1 VC up*/down* is used).
#include "hw/YamlReader.h"
#include "noc/NocParams.h"

namespace wsc::hw {

class FaultConfigLoader {
  public:
    static noc::FaultParams load(const YamlReader& faults, const noc::TopologyParams& topo,
                                 uint32_t vcs);
};

}  // namespace wsc::hw
