#pragma once
// Counters of one pseudo-channel; HbmController sums them into HbmStats.
#include <array>
#include <cstdint>

#include "dram/DramCommand.h"
#include "dram/HbmParams.h"

namespace wsc::dram {

struct ChannelStats {
    uint64_t reads = 0, writes = 0;  // bursts completed on the data bus
    uint64_t row_hits = 0;           // first command for the burst was RD/WR: its row was open
    uint64_t row_misses = 0;         // first command was ACT: bank was precharged
    uint64_t row_conflicts = 0;      // first command was PRE: another row was open
    std::array<uint64_t, kCommandTypes> commands{};
    uint64_t banks_precharged = 0;  // PRE of an open bank plus every bank PREA closed
    uint64_t read_latency_sum = 0;  // burst arrival to last data beat, cycles
    uint64_t write_latency_sum = 0;
    // Queue occupancy integrated over time: sum of (length x cycles).
    uint64_t read_queue_integral = 0, write_queue_integral = 0, observed_cycles = 0;
    uint32_t read_queue_max = 0, write_queue_max = 0;
    uint64_t write_drains = 0;

    void add(const ChannelStats& o);
    // Energy in pJ: data transfer (pJ/bit) + activate/precharge + refresh.
    double energyPj(const HbmParams& p) const;
    double readEnergyPj(const HbmParams& p) const;
    double writeEnergyPj(const HbmParams& p) const;
    double activateEnergyPj(const HbmParams& p) const;
    double refreshEnergyPj(const HbmParams& p) const;
};

}  // namespace wsc::dram
