#pragma once
// Turns the `energy:` section into EnergyParams. `compute` takes either an efficiency as data
// sheets and papers give it ("2 TFLOPS/W", TEMP Table I) or an energy per FLOP ("0.5 pJ/FLOP");
// both end as pJ/FLOP (1 / (TFLOPS/W) = pJ/FLOP). `sram` is an energy per bit or per byte.
#include "hw/EnergyParams.h"
#include "hw/YamlReader.h"

namespace wsc::hw {

class EnergyConfigLoader {
  public:
    static EnergyParams load(const YamlReader& energyNode);

  private:
    static double computePjPerFlop(const YamlReader& e);
};

}  // namespace wsc::hw
