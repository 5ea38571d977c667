#include "hw/HardwareLoader.h"

#include "hw/CoreConfigLoader.h"
#include "hw/NocConfigLoader.h"

namespace wsc::hw {

HardwareConfig HardwareLoader::loadFile(const std::string& path) {
    return load(YamlReader::loadFile(path));
}

HardwareConfig HardwareLoader::loadString(const std::string& text, const std::string& name) {
    return load(YamlReader::loadString(text, name));
}

HardwareConfig HardwareLoader::load(const YamlReader& root) {
    // New sections go into this list and get a loader call below (hbm:, core:, wafer: are
    // planned); until then they are unknown keys, so a file using them fails loudly instead of
    // being silently half-read.
    root.checkKeys({"noc", "core"});
    HardwareConfig hw;
    hw.noc = NocConfigLoader::load(root.child("noc"));
    if (const auto c = root.optionalChild("core")) hw.core = CoreConfigLoader::load(*c, hw.noc);
    return hw;
}

}  // namespace wsc::hw
