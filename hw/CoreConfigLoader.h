#pragma once
// Turns the `core:` section of a hardware YAML into core::CoreParams: times converted to cycles
// at the NoC clock (cores and NoC share one clock), sizes to bytes, impossible cores rejected
// with the position and key (see docs/CONFIG.md).
#include "core/CoreParams.h"
#include "hw/YamlReader.h"
#include "noc/NocParams.h"

namespace wsc::hw {

class CoreConfigLoader {
  public:
    static core::CoreParams load(const YamlReader& coreNode, const noc::NocParams& noc);
};

}  // namespace wsc::hw
