#pragma once
// Prices counted events: compute pJ/FLOP (from TFLOPS/W), SRAM pJ/byte, NoC pJ/bit per hop,
// NI-link pJ/bit, D2D pJ/bit, HBM read/write pJ/bit, static power x time. The prices come from
// the hardware config (energy:, noc:, hbm: sections); the counts from the run (EnergyEvents).
// Plain C++: no simulation state, so the same counts always give the same energy.
#include <optional>

#include "core/CoreStats.h"
#include "dram/HbmParams.h"
#include "hw/EnergyEvents.h"
#include "hw/EnergyParams.h"
#include "hw/EnergyReport.h"
#include "noc/Network.h"
#include "noc/NocParams.h"

namespace wsc::hw {

class EnergyModel {
  public:
    // Without an hbm: section memory traffic costs nothing (no HBM is modelled beside the dies).
    EnergyModel(const noc::NocParams& noc, const EnergyParams& energy,
                const std::optional<dram::HbmParams>& hbm);

    EnergyReport evaluate(const EnergyEvents& ev) const;

    // Adds a network's link bits by link kind (each link counts the bits it carried).
    static void countNetwork(EnergyEvents& ev, const noc::Network& net);
    // Adds one core's counted work: 2 FLOPs per MAC, 1 per vector element; SRAM bytes moved by
    // NoC receives/sends and DMA; DMA bytes as memory reads (the core stats do not split loads
    // from stores).
    static void countCore(EnergyEvents& ev, const core::CoreStats& s);

  private:
    noc::NocParams noc_;
    EnergyParams e_;
    double hbm_read_pj_ = 0, hbm_write_pj_ = 0;
};

}  // namespace wsc::hw
