#pragma once
// Parameters of a synthetic-traffic run (the traffic testbench's workload).
#include <cstdint>
#include <string>

namespace wsc::noc {

struct TrafficParams {
    std::string pattern =
        "uniform";              // uniform transpose bitcomp bitrev shuffle tornado neighbor hotspot
    double rate = 0.1;          // offered load, flits/node/cycle (Bernoulli per node)
    uint32_t packet_flits = 1;  // packet length in flits
    // Also report the latencies and hops in BookSim2's accounting (--compat booksim): one more
    // cycle at the source (its creation cycle) and hops as routers (docs/NOC.md "Definitions").
    bool compat_booksim = false;
    uint32_t hotspot_node = 0;      // hotspot target (pattern hotspot)
    double hotspot_fraction = 0.2;  // share of packets sent to the hotspot
    uint64_t warmup_cycles = 1000;
    uint64_t measure_cycles = 10000;
    uint64_t drain_cycles = 100000;  // max cycles to drain measured packets before giving up
    uint64_t seed = 1;
    // Not a config key: the run's memory budget for queued packets (beyond saturation the source
    // queues grow with rate x time). 0 = no cap; the CLI sets it from --max-memory / available
    // memory minus the static estimate (testbench/ResourceEstimate).
    uint64_t max_live_packets = 0;
};

}  // namespace wsc::noc
