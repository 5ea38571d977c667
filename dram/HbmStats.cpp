#include "dram/HbmStats.h"

#include <fmt/format.h>

namespace wsc::dram {

double HbmStats::bandwidthBytesPerSec(const HbmParams& p) const {
    const uint64_t cyc = elapsedCycles();
    if (cyc == 0) return 0.0;
    return double(bytes_read + bytes_written) / (double(cyc) * p.tCK_ps * 1e-12);
}

double HbmStats::rowHitRate() const {
    const uint64_t n = channels.row_hits + channels.row_misses + channels.row_conflicts;
    return n ? double(channels.row_hits) / double(n) : 0.0;
}

double HbmStats::avgReadQueue() const {
    const uint64_t c = channels.observed_cycles;
    return c ? double(channels.read_queue_integral) / double(c) : 0.0;
}

double HbmStats::avgWriteQueue() const {
    const uint64_t c = channels.observed_cycles;
    return c ? double(channels.write_queue_integral) / double(c) : 0.0;
}

std::string HbmStats::summary(const HbmParams& p) const {
    const double bw = bandwidthBytesPerSec(p);
    const double peak = p.stackPeakBandwidthBytesPerSec();
    const auto& c = channels.commands;
    return fmt::format(
        "hbm: {} transactions, {} B read, {} B written in {} cycles\n"
        "  bandwidth {:.1f} GB/s = {:.1f}% of {:.1f} GB/s peak\n"
        "  row hits {:.1f}% (hit {} miss {} conflict {})\n"
        "  read latency avg {:.1f} p99 {} max {} cycles; write latency avg {:.1f} p99 {} cycles\n"
        "  queue occupancy per pseudo-channel: read avg {:.2f} max {}, write avg {:.2f} max {}; "
        "write drains {}\n"
        "  commands ACT {} PRE {} PREA {} RD {} WR {} REF {} REFpb {}\n"
        "  energy {:.3f} uJ (read {:.3f}, write {:.3f}, act/pre {:.3f}, refresh {:.3f})",
        transactions, bytes_read, bytes_written, elapsedCycles(), bw / 1e9, 100.0 * bw / peak,
        peak / 1e9, 100.0 * rowHitRate(), channels.row_hits, channels.row_misses,
        channels.row_conflicts, read_latency.mean(), read_latency.quantile(0.99),
        read_latency.max(), write_latency.mean(), write_latency.quantile(0.99), avgReadQueue(),
        channels.read_queue_max, avgWriteQueue(), channels.write_queue_max, channels.write_drains,
        c[unsigned(CommandType::ACT)], c[unsigned(CommandType::PRE)],
        c[unsigned(CommandType::PREA)], c[unsigned(CommandType::RD)], c[unsigned(CommandType::WR)],
        c[unsigned(CommandType::REF)], c[unsigned(CommandType::REFpb)], energyPj(p) * 1e-6,
        channels.readEnergyPj(p) * 1e-6, channels.writeEnergyPj(p) * 1e-6,
        channels.activateEnergyPj(p) * 1e-6, channels.refreshEnergyPj(p) * 1e-6);
}

}  // namespace wsc::dram
