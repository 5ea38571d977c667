#pragma once
// Runs the dma_stream workload: cores DMA-load a tensor from a memory port (HBM stack or simple
// memory) attached at one NoC node or several (one NocMemoryPort each, the one stack behind
// them; each core uses its nearest), through the NoC, into their SRAM. Reports the bandwidth
// reached, the HBM controller's own statistics, NoC hops and latency split into request NoC /
// memory / response NoC (summed over the attach nodes), and the bounds (HBM peak, NoC links out of
// the attach nodes); in functional mode it checks every core's SRAM against the tensor written to
// memory.
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/CoreParams.h"
#include "firmware/DmaStreamWorkload.h"
#include "firmware/Firmware.h"
#include "hw/MemorySystem.h"
#include "noc/Network.h"
#include "noc/NocParams.h"
#include "noc/NocShell.h"

namespace wsc::tb {

struct DmaStreamResult {
    uint64_t cycles = 0;  // last cycle + 1
    double clock_hz = 1e9;
    uint32_t port_node = 0;            // the first (or only) attach node
    std::vector<uint32_t> port_nodes;  // every attach node of the memory port, in attach order
    uint32_t active_ports = 0;         // attach nodes that serve at least one streaming core
    uint32_t busiest_port_cores = 0;   // streaming cores on the attach node that serves the most
    std::vector<uint32_t> cores;       // the streaming cores
    uint64_t bytes = 0;                // data moved (all cores)
    uint64_t first_push = 0, last_done = 0;  // cycles of the first request and the last answer seen
    double bandwidth_gbps = 0;  // bytes / (last_done - first_push) cycles, GB/s (1e9 B/s)
    double avg_hops = 0;
    double avg_req_noc_ns = 0, avg_port_wait_ns = 0, avg_mem_ns = 0, avg_resp_noc_ns = 0,
           avg_round_trip_ns = 0, max_round_trip_ns = 0;
    uint64_t request_msg_bytes = 0, response_msg_bytes = 0;
    // bounds, GB/s
    double noc_link_gbps = 0;   // one flit stream into/out of an attach node (NI link)
    double noc_bound_gbps = 0;  // noc_link x data / (flits x flit bytes) of a response
    // noc_bound x cores / busiest_port_cores: every attach node sends its cores' data through its
    // own NI link, so the run lasts at least as long as the busiest one needs (every core moves
    // the same bytes); = active_ports x noc_bound when the cores spread evenly. Each core also
    // receives through its own link, a looser bound (cores x noc_bound).
    double noc_total_gbps = 0;
    double memory_peak_gbps = 0;  // HBM peak (or the simple memory's bandwidth)
    double memory_side_gbps = 0;  // bursts in the target at once x burst / target latency
    // HBM controller's own view (memory == hbm)
    bool hbm = false;
    double hbm_bandwidth_gbps = 0, hbm_row_hit_rate = 0, hbm_avg_read_latency_ns = 0;
    uint64_t hbm_bytes_read = 0;
    bool checked = false, correct = false;
    uint64_t mismatches = 0;
    double wall_seconds = 0;
};

// What a run of the workload on a network will do, decided before anything is built: the attach
// nodes, each node's port, the streaming cores and their firmware (one buffer per chunk).
// plan() throws std::invalid_argument for a workload the network cannot run (more cores than
// nodes besides the port's, a chunk too large for one buffer); Preflight also checks the
// firmware's buffers fit SRAM.
struct DmaStreamPlan {
    std::vector<uint32_t> port_nodes;
    std::vector<uint32_t> port_of;  // per node: the index of its nearest attach node
    std::vector<uint32_t> cores;    // the streaming cores, farthest first
    uint64_t chunk = 0;             // bytes per dma.load
    firmware::Firmware firmware;
    std::vector<std::vector<uint16_t>> buffers;  // per streaming core: its chunk buffers
};

class DmaStreamTestbench {
  public:
    static DmaStreamPlan plan(const noc::Network& net, const firmware::DmaStreamWorkload& w);
    // Builds the hw::MemorySystem the workload asks for (call once per process, before any run).
    static hw::MemorySystem makeMemory(const core::CoreParams& cp, const noc::NocParams& np,
                                       const firmware::DmaStreamWorkload& w);
    static DmaStreamResult run(const noc::NocParams& np, const core::CoreParams& cp,
                               const firmware::DmaStreamWorkload& w, noc::NocShell& shell,
                               hw::MemorySystem& mem, nlohmann::json* stats = nullptr);
    static void printReport(std::ostream& os, const firmware::DmaStreamWorkload& w,
                            const DmaStreamResult& r);
    // The tensor value at element e of core slot s (deterministic in the seed).
    static float value(uint64_t seed, uint32_t slot, uint64_t e);
};

}  // namespace wsc::tb
