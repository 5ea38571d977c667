#pragma once
// Stack-level statistics: summed channel counters plus transaction latency distributions.
#include <cstdint>
#include <string>

#include "dram/ChannelStats.h"
#include "dram/HbmParams.h"
#include "dram/LatencyHistogram.h"

namespace wsc::dram {

struct HbmStats {
    ChannelStats channels;          // summed over all pseudo-channels
    LatencyHistogram read_latency;  // per transaction: accepted to last data beat, cycles
    LatencyHistogram write_latency;
    uint64_t transactions = 0;
    uint64_t bytes_read = 0, bytes_written = 0;  // bursts x access bytes
    uint64_t first_arrival = UINT64_MAX, last_completion = 0;
    uint32_t pseudo_channels = 1;

    uint64_t elapsedCycles() const {
        return last_completion > first_arrival ? last_completion - first_arrival : 0;
    }
    // Achieved bytes/s over [first arrival, last completion].
    double bandwidthBytesPerSec(const HbmParams& p) const;
    // Fraction of bursts whose first command was a column command.
    double rowHitRate() const;
    double avgReadQueue() const;  // mean per pseudo-channel, over observed time
    double avgWriteQueue() const;
    double energyPj(const HbmParams& p) const { return channels.energyPj(p); }
    // Multi-line human-readable summary.
    std::string summary(const HbmParams& p) const;
};

}  // namespace wsc::dram
