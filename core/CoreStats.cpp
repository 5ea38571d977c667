#include "core/CoreStats.h"

#include <nlohmann/json.hpp>

namespace wsc::core {

const char* stallName(StallCause c) {
    static const char* const names[] = {"data", "credits", "sram", "pe", "vector", "dma", "sync"};
    return names[static_cast<size_t>(c)];
}

uint64_t CoreStats::stalls() const {
    uint64_t s = 0;
    for (uint64_t v : stall) s += v;
    return s;
}

double CoreStats::utilization(uint64_t peak, uint64_t cyc) const {
    return peak && cyc ? double(macs) / (double(peak) * double(cyc)) : 0.0;
}

void CoreStats::toJson(nlohmann::json& j, uint64_t peak) const {
    nlohmann::json st = nlohmann::json::object();
    for (size_t i = 0; i < stall.size(); ++i)
        st[stallName(static_cast<StallCause>(i))] = stall[i];  // cycles
    j = {{"cycles", cycles()},
         {"busy_cycles", busy},
         {"idle_cycles", idle},
         {"stall_cycles", st},
         {"instructions", instructions},
         {"macs", macs},
         {"gemm_ops", gemm_ops},
         {"pe_busy_cycles", pe_busy},
         {"vector_ops", vector_ops},
         {"vector_elems", vector_elems},
         {"vector_busy_cycles", vector_busy},
         {"bytes_in", bytes_in},
         {"bytes_out", bytes_out},
         {"messages_in", messages_in},
         {"messages_out", messages_out},
         {"dma_bytes", dma_bytes},
         {"relays", relays},
         {"relay_cycles", relay_cycles},
         {"rx_refusals", rx_refusals},
         {"rx_held_peak_bytes", rx_held_peak},
         {"finish_cycle", finish_cycle},
         {"utilization", utilization(peak, cycles())}};
}

}  // namespace wsc::core
