#pragma once
// Loads a scenario file (top-level `scenario:` with name, hardware and workload). `hardware` is
// either an inline map (same format as a hardware file) or a path to a hardware YAML, resolved
// relative to the scenario file's directory (for loadString: relative to the directory part of
// `name`, i.e. the current directory when `name` has none).
#include <optional>
#include <string>

#include "hw/ConfigOverrides.h"
#include "hw/HardwareConfig.h"
#include "hw/ScenarioConfig.h"
#include "hw/YamlReader.h"

namespace wsc::hw {

class ScenarioLoader {
  public:
    // `overrides`: --set assignments with key paths from the scenario's root
    // ("scenario.workload.rate"); those under scenario.hardware go to the hardware file when the
    // scenario names one by path (hw/ConfigOverrides).
    static ScenarioConfig loadFile(const std::string& path, const ConfigOverrides& overrides = {});
    static ScenarioConfig loadString(const std::string& text, const std::string& name,
                                     const ConfigOverrides& overrides = {});
    // `root` as loaded, overrides not yet applied.
    static ScenarioConfig load(const YamlReader& root, const ConfigOverrides& overrides = {});
    // The hardware file a scenario document names by path (resolved against the scenario's
    // folder), or nullopt for inline hardware or a document that is not a scenario.
    static std::optional<std::string> hardwareFile(const YamlReader& root);

  private:
    static HardwareConfig loadHardware(const YamlReader& scenario,
                                       const ConfigOverrides& hardware_file_overrides);
    static noc::TrafficParams loadTraffic(const YamlReader& workload, const noc::NocParams& noc);
    static firmware::GemmWorkload loadGemm(const YamlReader& workload, const noc::NocParams& noc);
    static std::string loadTracePath(const YamlReader& workload);
};

}  // namespace wsc::hw
