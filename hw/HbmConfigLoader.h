#pragma once
// Turns the `hbm:` section into dram::HbmParams: starts from HbmParams::hbm3Default(), overrides
// what the file gives (times in cycles or with a unit, converted at the HBM clock tCK and rounded
// up), then runs HbmParams::validate(); its message becomes a ConfigError at the key it is about
// (e.g. 'hbm.timing.tRC'), so an impossible memory is rejected with file, line and column.
// Keys and defaults: docs/CONFIG.md.
#include <string>
#include <vector>

#include "dram/HbmParams.h"
#include "hw/HbmAttachParams.h"
#include "hw/YamlReader.h"
#include "noc/NocParams.h"

namespace wsc::hw {

class HbmConfigLoader {
  public:
    static dram::HbmParams load(const YamlReader& hbmNode);
    // `attach` (one entry per stack: an edge name, or {edge, at} with `at` one position, a list
    // of positions or `all`) and `sync` (HBM -> NoC synchronizer, cycles at the NoC clock),
    // checked against the dies of `noc`'s topology.
    static HbmAttachParams loadAttach(const YamlReader& hbmNode, uint32_t stacks,
                                      const noc::NocParams& noc);

  private:
    // The `at` key of one {edge, at} entry: a position, a list of distinct positions, or `all`
    // (every router of the edge, in order); default the edge's middle router.
    static std::vector<uint32_t> loadPositions(const YamlReader& entry, HbmAttachParams::Edge edge,
                                               uint32_t len, uint32_t dx, uint32_t dy);
    static void loadTiming(const YamlReader& t, dram::HbmParams& p);
    static void loadEnergy(const YamlReader& e, dram::HbmParams& p);
    // An energy per command ("800 pJ", "1.75 nJ"), in pJ: Units has no plain-energy dimension.
    static double energyPj(const YamlReader& e, const std::string& key, double def);
    // The YAML key (relative to hbm:) a validate() message is about, or "" for the section.
    static std::string keyOfMessage(const std::string& message);
};

}  // namespace wsc::hw
