#pragma once
// Turns the `wafer:` section (die array, cores per die, pitches) into the NoC topology: one router
// per core, mesh = dies x cores per die, die = cores per die, so links between dies become D2D
// links with lengths from the pitches (noc::Topology). With a wafer: section the noc: section
// leaves out `topology`; everything else of the NoC (clock, links, d2d, routers) stays in noc:.
#include "hw/WaferParams.h"
#include "hw/YamlReader.h"
#include "noc/NocParams.h"

namespace wsc::hw {

class WaferConfigLoader {
  public:
    // Fills `wafer` and returns the topology it implies.
    static noc::TopologyParams load(const YamlReader& waferNode, WaferParams& wafer);
};

}  // namespace wsc::hw
