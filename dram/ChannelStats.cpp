#include "dram/ChannelStats.h"

#include <algorithm>

namespace wsc::dram {

void ChannelStats::add(const ChannelStats& o) {
    reads += o.reads;
    writes += o.writes;
    row_hits += o.row_hits;
    row_misses += o.row_misses;
    row_conflicts += o.row_conflicts;
    for (unsigned i = 0; i < kCommandTypes; ++i) commands[i] += o.commands[i];
    banks_precharged += o.banks_precharged;
    read_latency_sum += o.read_latency_sum;
    write_latency_sum += o.write_latency_sum;
    read_queue_integral += o.read_queue_integral;
    write_queue_integral += o.write_queue_integral;
    observed_cycles += o.observed_cycles;
    read_queue_max = std::max(read_queue_max, o.read_queue_max);
    write_queue_max = std::max(write_queue_max, o.write_queue_max);
    write_drains += o.write_drains;
}

double ChannelStats::readEnergyPj(const HbmParams& p) const {
    return double(reads) * p.accessBytes() * 8.0 * p.read_pj_per_bit;
}
double ChannelStats::writeEnergyPj(const HbmParams& p) const {
    return double(writes) * p.accessBytes() * 8.0 * p.write_pj_per_bit;
}
double ChannelStats::activateEnergyPj(const HbmParams& p) const {
    return double(commands[unsigned(CommandType::ACT)]) * p.act_pj +
           double(banks_precharged) * p.pre_pj;
}
double ChannelStats::refreshEnergyPj(const HbmParams& p) const {
    return double(commands[unsigned(CommandType::REF)]) * p.ref_pj +
           double(commands[unsigned(CommandType::REFpb)]) * p.refpb_pj;
}
double ChannelStats::energyPj(const HbmParams& p) const {
    return readEnergyPj(p) + writeEnergyPj(p) + activateEnergyPj(p) + refreshEnergyPj(p);
}

}  // namespace wsc::dram
