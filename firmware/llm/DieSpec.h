#pragma once
// The numbers of one die that a step schedule needs, taken from the hardware config (the die is
// one core at die level: its PE array, vector unit and SRAM are the die's; its memory is the
// die's HBM stacks). Kept as plain numbers so firmware/ does not depend on core/ or hw/.
#include <cstdint>

namespace wsc::firmware::llm {

struct DieSpec {
    uint64_t sram_bytes = 0;           // on-die SRAM: staging for tiles and collectives
    uint64_t hbm_bytes = 0;            // memory capacity of the die (all its stacks)
    double hbm_bytes_per_cycle = 0;    // the die's memory bandwidth at the NoC clock
    uint64_t peak_macs_per_cycle = 0;  // PE array at the working dtype
    uint32_t vector_lanes = 1;
    uint32_t dma_burst = 256;  // largest memory transaction (tiles are cut on bursts)
    double clock_hz = 1e9;
    // SRAM shares (of sram_bytes): compute tiles, and each communication stream's staging. The
    // rest (8%) stays free: it is the core's receive buffer (core.rx_buffer's default), where a
    // message that arrives before its recv waits; with none left, two early messages at a die's
    // ejection port block the one its recv waits for (a head-of-line deadlock).
    double compute_share = 0.6;
    double comm_share = 0.08;  // per communication stream (four of them)
};

}  // namespace wsc::firmware::llm
