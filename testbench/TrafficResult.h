#pragma once
// Everything one synthetic-traffic run measured; printed as the summary and dumped as JSON.
#include <cstdint>
#include <string>
#include <vector>

namespace wsc::tb {

struct TrafficResult {
    double offered = 0;         // flits/node/cycle asked for
    double offered_actual = 0;  // flits/node/cycle created during the measurement window
    double accepted = 0;        // flits/node/cycle ejected during the measurement window
    uint64_t measured_packets = 0;
    double latency_avg = 0;  // creation -> tail ejection, cycles
    uint64_t latency_p50 = 0, latency_p99 = 0, latency_max = 0;
    // p99 falls in the histogram's power-of-two range (>= 4096 cycles): latency_p99 is the upper
    // edge of its bin, an upper bound, not the exact quantile (dram::LatencyHistogram).
    bool latency_p99_bin_bound = false;
    double network_latency_avg = 0;  // head injection -> tail ejection
    double hops_avg = 0;
    double zero_load_latency = 0;  // closed form for this pattern (uniform: mean over pairs)
    uint64_t zero_load_sampled_pairs = 0;  // pairs a sampled uniform mean averaged; 0: every pair
    // Zero-load latency of the farthest pair (mesh: opposite corners; torus: half-way): a drain
    // window shorter than this cannot tell a long path from saturation.
    uint64_t longest_path_latency = 0;
    double link_util_avg = 0, link_util_max = 0;  // router-to-router links, measurement window
    std::string link_util_max_name;
    bool drained = true;  // every measured packet arrived before the drain limit
    uint64_t warmup = 0, measure = 0, drain = 0, total_cycles = 0;
    uint64_t flit_router_traversals = 0;
    uint64_t flits_injected = 0, flits_ejected = 0;
    uint64_t link_retries = 0;
    double link_energy_pj = 0;
    uint32_t max_vc_occupancy = 0;
    double wall_seconds = 0;   // building the network and simulating
    double build_seconds = 0;  // of which building the network, routes and generator
    bool conservation_ok = false;
    uint64_t unreachable_packets = 0;  // not sent: destination failed or cut off by faults
    uint32_t failed_links = 0, failed_routers = 0;
    std::vector<std::string> warnings;  // TrafficWarnings: what makes this run's numbers suspect
};

}  // namespace wsc::tb
