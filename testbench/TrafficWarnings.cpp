#include "testbench/TrafficWarnings.h"

#include <fmt/format.h>

#include <cmath>

namespace wsc::tb {

std::vector<std::string> TrafficWarnings::of(const noc::TrafficParams& tp, const TrafficResult& r) {
    std::vector<std::string> w;
    // A packet created at the start of the window arrives after the zero-load latency at best:
    // with a shorter warm-up the first cycles of the window eject less than steady state does.
    const bool short_warmup =
        r.zero_load_latency > 0 && double(tp.warmup_cycles) < r.zero_load_latency;
    if (short_warmup)
        w.push_back(fmt::format(
            "warm-up {} cycles is shorter than the zero-load latency {:.1f} cycles: the "
            "measurement window starts before the network reaches steady state, so the accepted "
            "rate reads low (give a warm-up of at least {} cycles)",
            tp.warmup_cycles, r.zero_load_latency,
            static_cast<uint64_t>(std::ceil(r.zero_load_latency))));
    if (!r.drained && tp.drain_cycles < r.longest_path_latency)
        w.push_back(fmt::format(
            "not every measured packet arrived, but the drain window ({} cycles) is shorter than "
            "the longest path's zero-load latency ({} cycles): that alone says nothing about "
            "saturation "
            "(give a drain of at least {} cycles)",
            tp.drain_cycles, r.longest_path_latency, r.longest_path_latency));
    if (r.offered_actual > 0 && r.accepted < kAcceptedShare * r.offered_actual)
        w.push_back(fmt::format(
            "accepted {:.4f} is {:.1f}% below offered {:.4f} flits/node/cycle: {}", r.accepted,
            100.0 * (1.0 - r.accepted / r.offered_actual), r.offered_actual,
            short_warmup ? "the short warm-up above, or saturation (lengthen the warm-up to tell)"
                         : "the network is saturated at this rate, and the latencies are those "
                           "of a growing backlog"));
    return w;
}

}  // namespace wsc::tb
