#pragma once
// The events of one run that cost energy, as counted by the blocks (links count bits, cores count
// MACs and bytes). EnergyModel multiplies them by the configured energies; keeping the counts
// separate from the prices lets a test recompute the total independently.
#include <cstdint>

namespace wsc::hw {

struct EnergyEvents {
    uint64_t cycles = 0;          // run length at the NoC clock (for average and static power)
    uint64_t flops = 0;           // 2 per MAC plus one per vector element operation
    uint64_t sram_bytes = 0;      // bytes written to or read from SRAM by transfers
    uint64_t link_bits = 0;       // router-to-router links on a die: bits x hops
    uint64_t local_bits = 0;      // NI <-> router links (injection + ejection)
    uint64_t d2d_bits = 0;        // die-to-die (and wrap-around) links
    uint64_t w2w_bits = 0;        // links between wafers (noc.w2w), not in d2d_bits
    uint64_t hbm_read_bits = 0;   // bits read from memory
    uint64_t hbm_write_bits = 0;  // bits written to memory
};

}  // namespace wsc::hw
