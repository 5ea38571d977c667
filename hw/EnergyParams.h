#pragma once
// Energy per counted event that is not already a field of a block's own parameters (the `energy:`
// section). NoC and D2D energies live in noc::NocParams (link.energy, local_link.energy,
// d2d.energy) and HBM energies in dram::HbmParams (read/write pJ/bit) because the blocks count
// those bits themselves; EnergyModel gathers all of them.
namespace wsc::hw {

struct EnergyParams {
    double compute_pj_per_flop = 0.0;  // from TFLOPS/W: 1 / (TFLOPS/W) pJ per FLOP
    double sram_pj_per_byte = 0.0;     // SRAM read or write, per byte
    double static_power_w = 0.0;       // leakage and clocks, charged for the whole run
};

}  // namespace wsc::hw
