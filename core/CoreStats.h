#pragma once
// Per-core counters. Every cycle of a core is exactly one of: busy (an instruction issued, or
// units still working with nothing to issue), stalled for one cause, or idle (program finished),
// so busy + stalls + idle = cycles. Unit counters (PE busy, vector busy, relay) overlap them.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>

namespace wsc::core {

enum class StallCause : uint8_t { Data, Credits, Sram, Pe, Vector, Dma, Sync, Count };
const char* stallName(StallCause c);
// What a core's cycle is charged to.
enum class CoreState : uint8_t { Busy, Stall, Idle };

struct CoreStats {
    uint64_t busy = 0, idle = 0;
    std::array<uint64_t, static_cast<size_t>(StallCause::Count)> stall{};
    uint64_t instructions = 0;
    uint64_t macs = 0, pe_busy = 0, gemm_ops = 0;
    uint64_t vector_ops = 0, vector_elems = 0, vector_busy = 0;
    uint64_t bytes_in = 0, bytes_out = 0;  // NoC payload bytes received / sent
    uint64_t messages_in = 0, messages_out = 0;
    uint64_t dma_bytes = 0;                 // memory-port bytes
    uint64_t relays = 0, relay_cycles = 0;  // cycles the controller spent forwarding
    // Receive buffer (core.rx_buffer): flits refused because it was full (a flit refused again
    // on a retry counts again) and early-arrival bytes it held at most.
    uint64_t rx_refusals = 0, rx_held_peak = 0;
    uint64_t finish_cycle = 0;  // cycle the last instruction retired

    uint64_t stalls() const;
    uint64_t cycles() const { return busy + idle + stalls(); }
    // Useful MACs over peak MACs in `cycles` cycles.
    double utilization(uint64_t peak_macs_per_cycle, uint64_t cycles) const;
    void toJson(nlohmann::json& j, uint64_t peak_macs_per_cycle) const;
};

}  // namespace wsc::core
