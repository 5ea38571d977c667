#pragma once
// Loads a hardware description: a YAML map with a top-level `noc:` section. Used for plain
// hardware files and for the inline `hardware:` map of a scenario.
#include <string>

#include "hw/ConfigOverrides.h"
#include "hw/HardwareConfig.h"
#include "hw/YamlReader.h"

namespace wsc::hw {

class HardwareLoader {
  public:
    // `overrides`: --set assignments, key paths from the file's root (hw/ConfigOverrides).
    static HardwareConfig loadFile(const std::string& path, const ConfigOverrides& overrides = {});
    static HardwareConfig loadString(const std::string& text, const std::string& name);
    // `root` is the map holding the sections (the file root, or a scenario's `hardware:` map).
    static HardwareConfig load(const YamlReader& root);
};

}  // namespace wsc::hw
