#pragma once
// The wafer as an architect describes it (the `wafer:` section): an array of dies, each a mesh of
// cores, at a die pitch. WaferConfigLoader turns it into the NoC topology (one router per core;
// links between dies are D2D links); this struct keeps the architect's view for reports and
// heatmaps (dies x cores instead of one flat mesh).
#include <cstdint>

namespace wsc::hw {

struct WaferParams {
    bool present = false;                 // false: the file has no wafer: section (plain noc: mesh)
    uint32_t dies_x = 1, dies_y = 1;      // die array (all wafers together)
    uint32_t wafers_x = 1, wafers_y = 1;  // wafers joined edge to edge (dies_x / wafers_x each)
    uint32_t cores_x = 1, cores_y = 1;    // cores (routers) per die; 1 x 1 = die-level model
    double die_pitch_mm = 26.0;           // distance between neighbouring dies' origins
    double core_pitch_mm = 1.0;           // distance between neighbouring cores on a die
    double die_width_mm = 0.0, die_height_mm = 0.0;  // die outline for drawings (0: from pitch)
    uint32_t dies() const { return dies_x * dies_y; }
    uint32_t coresPerDie() const { return cores_x * cores_y; }
};

}  // namespace wsc::hw
