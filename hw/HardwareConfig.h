#pragma once
// Everything a hardware YAML describes, typed. One member per top-level section; later sections
// (hbm:, core:, wafer:) add their own member here and their loader in HardwareLoader::load.
#include "core/CoreParams.h"
#include "noc/NocParams.h"

namespace wsc::hw {

struct HardwareConfig {
    noc::NocParams noc;
    core::CoreParams core;  // defaults when the file has no core: section
};

}  // namespace wsc::hw
