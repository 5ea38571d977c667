#pragma once
// Everything a hardware YAML describes, typed. One member per top-level section; later sections
// (hbm:, core:, wafer:) add their own member here and their loader in HardwareLoader::load.
#include <optional>

#include "core/CoreParams.h"
#include "dram/HbmParams.h"
#include "hw/EnergyParams.h"
#include "hw/HbmAttachParams.h"
#include "hw/SourceMap.h"
#include "hw/WaferParams.h"
#include "noc/NocParams.h"

namespace wsc::hw {

struct HardwareConfig {
    noc::NocParams noc;
    core::CoreParams core;               // defaults when the file has no core: section
    WaferParams wafer;                   // wafer: section (present = false without one)
    std::optional<dram::HbmParams> hbm;  // hbm: section; none = no HBM beside the dies
    HbmAttachParams hbm_attach;          // where each die's stacks attach (with hbm only)
    EnergyParams energy;                 // energy: section (zeros without one)
    // Where the keys came from: source.error("noc.route_limit", ...) reports a check made after
    // loading at the key's file:line:column (hw/SourceMap).
    ConfigSource source;
};

}  // namespace wsc::hw
