#include "hw/HardwareLoader.h"

#include "hw/CoreConfigLoader.h"
#include "hw/EnergyConfigLoader.h"
#include "hw/HbmConfigLoader.h"
#include "hw/NocConfigLoader.h"
#include "hw/WaferConfigLoader.h"

namespace wsc::hw {

HardwareConfig HardwareLoader::loadFile(const std::string& path, const ConfigOverrides& ov) {
    return load(YamlReader::loadFile(path, ov));
}

HardwareConfig HardwareLoader::loadString(const std::string& text, const std::string& name) {
    return load(YamlReader::loadString(text, name));
}

HardwareConfig HardwareLoader::load(const YamlReader& root) {
    // New sections go into this list and get a loader call below (hbm:, core:, wafer: are
    // planned); until then they are unknown keys, so a file using them fails loudly instead of
    // being silently half-read.
    root.checkKeys({"noc", "core", "wafer", "hbm", "energy"});
    HardwareConfig hw;
    hw.source = root.source();
    // A wafer: section gives the topology (dies x cores); noc: then describes only the network.
    if (const auto w = root.optionalChild("wafer")) {
        const noc::TopologyParams topo = WaferConfigLoader::load(*w, hw.wafer);
        hw.noc = NocConfigLoader::load(root.child("noc"), &topo);
    } else {
        hw.noc = NocConfigLoader::load(root.child("noc"));
    }
    if (const auto c = root.optionalChild("core")) hw.core = CoreConfigLoader::load(*c, hw.noc);
    if (const auto h = root.optionalChild("hbm")) {
        hw.hbm = HbmConfigLoader::load(*h);
        hw.hbm_attach = HbmConfigLoader::loadAttach(*h, hw.hbm->stacks, hw.noc);
    }
    if (const auto e = root.optionalChild("energy")) hw.energy = EnergyConfigLoader::load(*e);
    return hw;
}

}  // namespace wsc::hw
