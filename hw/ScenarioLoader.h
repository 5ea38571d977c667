#pragma once
// Loads a scenario file (top-level `scenario:` with name, hardware and workload). `hardware` is
// either an inline map (same format as a hardware file) or a path to a hardware YAML, resolved
// relative to the scenario file's directory (for loadString: relative to the directory part of
// `name`, i.e. the current directory when `name` has none).
#include <string>

#include "hw/HardwareConfig.h"
#include "hw/ScenarioConfig.h"
#include "hw/YamlReader.h"

namespace wsc::hw {

class ScenarioLoader {
  public:
    static ScenarioConfig loadFile(const std::string& path);
    static ScenarioConfig loadString(const std::string& text, const std::string& name);
    static ScenarioConfig load(const YamlReader& root);

  private:
    static HardwareConfig loadHardware(const YamlReader& scenario);
    static noc::TrafficParams loadTraffic(const YamlReader& workload, const noc::NocParams& noc);
    static firmware::GemmWorkload loadGemm(const YamlReader& workload, const noc::NocParams& noc);
};

}  // namespace wsc::hw
