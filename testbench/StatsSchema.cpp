#include "testbench/StatsSchema.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace wsc::tb {

namespace {

using Key = StatsSchema::Key;

// The NoC counters (noc::Network::dumpStats), under "noc" in every file that ran a network.
std::vector<Key> nocKeys() {
    return {
        {"noc.network.flits_injected", "flits", "flits that entered the network from an NI"},
        {"noc.network.flits_ejected", "flits",
         "flits delivered to an NI (a multicast flit once per destination)"},
        {"noc.network.flit_router_traversals", "flits",
         "flit passages through a router (a multicast copy counts once per router)"},
        {"noc.network.packets_created", "packets", "packets the NIs queued"},
        {"noc.network.packet_deliveries", "packets", "packets delivered whole (per destination)"},
        {"noc.network.flits_in_network", "flits",
         "flits still in routers, links or NIs when the file was written (0 after a drained run)"},
        {"noc.network.link_retries", "count", "link-level retransmissions (noc.faults.link_rate)"},
        {"noc.network.link_energy_pj", "pJ", "link energy: bits x each link's pJ/bit"},
        {"noc.network.max_buffer_occupancy_flits", "flits", "most flits any router input VC held"},
        {"noc.routers.*.flit_traversals", "flits", "flits through router r(x,y)"},
        {"noc.routers.*.max_vc_occupancy_flits", "flits", "most flits one of its input VCs held"},
        {"noc.routers.*.route_entries", "count", "table-route entries installed (PLMR R)"},
        {"noc.routers.*.model", "text", "c++ or rtl (a Verilated router)"},
        {"noc.links.*.kind", "text",
         "on-die, d2d, injection or ejection; the key is the link: r(x,y).E->r(x+1,y), "
         "niN->r(x,y).L0, r(x,y).L0->niN"},
        {"noc.links.*.flits", "flits", "flits sent"},
        {"noc.links.*.busy_cycles", "cycles", "cycles the link was sending"},
        {"noc.links.*.retries", "count", "retransmissions"},
        {"noc.links.*.bits", "bits", "payload bits sent"},
        {"noc.links.*.energy_pj", "pJ", "bits x the link's pJ/bit"},
        {"noc.links.*.length_mm", "mm", "length (sets D2D latency and FEC)"},
        {"noc.links.*.flight_cycles", "cycles",
         "flight time of one flit (latency, D2D latency, FEC)"},
        {"noc.links.*.fec", "bool", "the link adds FEC latency"},
        {"noc.nis.*.flits_injected", "flits", "flits NI niN injected"},
        {"noc.nis.*.flits_ejected", "flits", "flits it took off the network"},
        {"noc.nis.*.packets_ejected", "packets", "packets it received whole"},
        {"noc.nis.*.flits_held", "flits",
         "flits its receiver refused and still holds (core.rx_buffer full; 0 after a finished "
         "run)"},
    };
}

std::vector<Key> coreKeys() {
    return {
        {"cores.*.cycles", "cycles", "cycles of core coreN: busy + stalls + idle"},
        {"cores.*.busy_cycles", "cycles", "cycles an instruction issued or its units worked"},
        {"cores.*.idle_cycles", "cycles", "cycles after its program finished"},
        {"cores.*.stall_cycles.*", "cycles",
         "cycles stalled, by cause: data (a receive), credits (egress), sram, pe, vector, dma, "
         "sync (barrier, wait)"},
        {"cores.*.instructions", "count", "instructions issued"},
        {"cores.*.macs", "MACs", "multiply-accumulates on the PE array"},
        {"cores.*.gemm_ops", "count", "GEMM/GEMV instructions"},
        {"cores.*.pe_busy_cycles", "cycles", "cycles the PE array worked (overlaps busy)"},
        {"cores.*.vector_ops", "count", "vector instructions"},
        {"cores.*.vector_elems", "elements", "elements the vector unit processed"},
        {"cores.*.vector_busy_cycles", "cycles", "cycles the vector unit worked"},
        {"cores.*.bytes_in", "bytes", "NoC payload received"},
        {"cores.*.bytes_out", "bytes", "NoC payload sent"},
        {"cores.*.messages_in", "count", "messages received"},
        {"cores.*.messages_out", "count", "messages sent"},
        {"cores.*.dma_bytes", "bytes", "memory-port bytes (DMA loads and stores)"},
        {"cores.*.relays", "count", "software relays (messages forwarded by the controller)"},
        {"cores.*.relay_cycles", "cycles", "controller cycles spent relaying"},
        {"cores.*.rx_refusals", "flits",
         "flits refused because the receive buffer was full (each retry counts)"},
        {"cores.*.rx_held_peak_bytes", "bytes", "most early-arrival bytes held in SRAM at once"},
        {"cores.*.rx_capacity_bytes", "bytes", "the receive buffer's size (core.rx_buffer)"},
        {"cores.*.finish_cycle", "cycles", "cycle its last instruction retired"},
        {"cores.*.utilization", "ratio", "MACs / (peak MACs per cycle x cycles)"},
        {"cores.*.sram_peak_bytes", "bytes", "most SRAM in use at once: buffers + early arrivals"},
        {"cores.*.sram_used_bytes", "bytes", "SRAM its buffers take"},
        {"cores.*.program_instructions", "count",
         "instructions in its program (loops counted once)"},
        {"cores.*.program_bytes", "bytes",
         "program memory: instructions x 72 B (the modelled record)"},
    };
}

std::vector<Key> energyKeys() {
    return {
        {"energy.total_pj", "pJ", "every component's energy"},
        {"energy.seconds", "s", "the run's simulated time"},
        {"energy.average_power_w", "W", "total_pj / seconds"},
        {"energy.components.*.count", "unit",
         "events of the component (compute, sram, noc_links, ni_links, d2d_links, w2w_links, "
         "hbm_read, hbm_write, static)"},
        {"energy.components.*.unit", "text", "what count counts (FLOP, B, bit-hop, bit, W)"},
        {"energy.components.*.pj_each", "pJ", "energy per counted event (static: W)"},
        {"energy.components.*.pj", "pJ", "count x pj_each (static: W x seconds)"},
        {"energy.events.cycles", "cycles", "cycles the energy covers"},
        {"energy.events.flops", "FLOP", "2 x MACs + vector elements"},
        {"energy.events.sram_bytes", "bytes", "SRAM bytes read and written by transfers"},
        {"energy.events.link_bits", "bits", "bits x hops on on-die links"},
        {"energy.events.local_bits", "bits", "bits on router <-> NI links"},
        {"energy.events.d2d_bits", "bits", "bits on die-to-die links"},
        {"energy.events.w2w_bits", "bits", "bits on wafer-to-wafer links"},
        {"energy.events.hbm_read_bits", "bits", "HBM bits read"},
        {"energy.events.hbm_write_bits", "bits", "HBM bits written"},
    };
}

std::vector<Key> trafficFields(const std::string& p) {
    std::vector<std::pair<std::string, std::pair<const char*, const char*>>> f = {
        {"offered_flits_per_node_cycle", {"flits/node/cycle", "the --rate asked for"}},
        {"offered_actual",
         {"flits/node/cycle",
          "flits created in the measurement window / (nodes x measure cycles)"}},
        {"accepted_flits_per_node_cycle",
         {"flits/node/cycle", "flits ejected in the window / (nodes x measure cycles)"}},
        {"measured_packets", {"packets", "packets created in the window and delivered"}},
        {"latency_avg_cycles",
         {"cycles", "packet latency, creation to tail ejection, source queueing included"}},
        {"latency_p50_cycles", {"cycles", "median packet latency"}},
        {"latency_p99_cycles",
         {"cycles", "99th percentile (exact, or a histogram bin's upper bound: see the next key)"}},
        {"latency_p99_bin_bound",
         {"bool", "latency_p99_cycles is a bin bound, not an exact value"}},
        {"latency_max_cycles", {"cycles", "largest packet latency"}},
        {"longest_path_latency_cycles",
         {"cycles", "zero-load latency of the longest path (what a drain window must cover)"}},
        {"warnings.[]", {"text", "the run's warnings (docs/NOC.md, \"Warnings\")"}},
        {"network_latency_avg_cycles",
         {"cycles", "head injection to tail ejection (no source queueing)"}},
        {"hops_avg", {"links", "router-to-router links per measured packet"}},
        {"routers_avg", {"routers", "routers per measured packet: hops_avg + 1"}},
        {"zero_load_latency_cycles", {"cycles", "closed-form zero-load latency of the pattern"}},
        {"link_util_avg", {"ratio", "mean on-die/D2D link busy share over the window"}},
        {"link_util_max", {"ratio", "busiest link's busy share"}},
        {"link_util_max_link", {"text", "the busiest link"}},
        {"link_utilization.*",
         {"ratio", "each link's busy cycles / measure cycles (key: the link)"}},
        {"drained", {"bool", "every measured packet arrived within the drain window"}},
        {"cycles.warmup", {"cycles", "warm-up phase"}},
        {"cycles.measure", {"cycles", "measurement window"}},
        {"cycles.drain", {"cycles", "drain phase as run (at most --drain)"}},
        {"cycles.total",
         {"cycles", "cycles simulated, including the backlog after an undrained run"}},
        {"flit_router_traversals", {"flits", "as noc.network"}},
        {"flits_injected", {"flits", "as noc.network"}},
        {"flits_ejected", {"flits", "as noc.network"}},
        {"link_retries", {"count", "as noc.network"}},
        {"link_energy_pj", {"pJ", "as noc.network"}},
        {"max_vc_occupancy_flits", {"flits", "most flits any input VC held"}},
        {"conservation_ok", {"bool", "every injected flit was delivered exactly once"}},
        {"unreachable_packets", {"packets", "packets with no path (failed links or routers)"}},
        {"failed_links", {"count", "links noc.faults failed"}},
        {"failed_routers", {"count", "routers noc.faults failed"}},
        {"wall_seconds", {"s", "wall time of the run: building the network and simulating"}},
        {"build_seconds", {"s", "of which building the network, routes and traffic generator"}},
    };
    std::vector<Key> out;
    for (const auto& [leaf, um] : f) out.push_back({p + leaf, um.first, um.second});
    return out;
}

std::vector<StatsSchema::Section> build() {
    std::vector<StatsSchema::Section> s;
    s.push_back(
        {"Header",
         "testbench/RunProvenance",
         "every file",
         {
             {"header.wsc_version", "text", "project version (CMakeLists.txt); `wsc --version`"},
             {"header.git_describe", "text",
              "`git describe --always --dirty --tags` of the built tree (-dirty: uncommitted "
              "changes)"},
             {"header.command_line", "text", "the command as typed, shell-quoted"},
             {"header.working_directory", "text", "where it ran"},
             {"header.start_time_utc", "text", "ISO 8601, UTC, process start"},
             {"header.wall_seconds", "s", "process start to the file's writing"},
             {"header.heap_huge_pages", "bool",
              "glibc's malloc.hugetlb tunable was set at start: the heap on transparent huge pages "
              "where "
              "the kernel grants them (testbench/HugePageHeap.h; speed only)"},
             {"header.config_files.*", "text",
              "each YAML the run read (key: its path) as resolved: after --set, re-emitted"},
             {"header.overrides.[]", "text", "the --set assignments in order"},
             {"header.seed", "count", "the workload's seed (absent where there is none)"},
             {"header.workload", "text",
              "what ran: traffic PATTERN, kernel gemm ALGO, llm train MODEL plan PLAN, ..."},
             {"header.warnings.[]", "text", "traffic runs: the run's warnings"},
         }});
    s.push_back({"Scenario runs",
                 "testbench/main.cpp",
                 "wsc run, wsc traffic",
                 {{"scenario", "text", "the scenario or hardware file the run loaded"}}});
    s.push_back({"Traffic", "testbench/TrafficTestbench", "wsc traffic, wsc run (traffic)",
                 trafficFields("traffic.")});
    s.push_back({"Traffic sweeps", "testbench/TrafficTestbench (--sweep)", "wsc traffic --sweep",
                 trafficFields("sweep.[].")});
    s.push_back({"Trace replay",
                 "testbench/TracePlayer",
                 "wsc traffic --trace-file, wsc run (trace)",
                 {
                     {"trace.file", "text", "the trace"},
                     {"trace.messages", "count", "messages replayed"},
                     {"trace.bytes", "bytes", "payload replayed"},
                     {"trace.cycles", "cycles", "first injection to last delivery"},
                     {"trace.latency_avg_cycles", "cycles", "message latency, release to delivery"},
                     {"trace.latency_p50_cycles", "cycles", "median"},
                     {"trace.latency_p99_cycles", "cycles", "99th percentile"},
                     {"trace.latency_max_cycles", "cycles", "largest"},
                     {"trace.delayed_by_deps", "count",
                      "messages released later than their cycle because a dependency arrived late"},
                     {"trace.wall_seconds", "s", "wall time"},
                 }});
    s.push_back({"NoC", "noc/Network::dumpStats", "every file of a simulated network (not llm)",
                 nocKeys()});
    s.push_back({"Cores", "core/CoreStats, core/CoreArray::dumpStats",
                 "wsc kernel, wsc run (gemm, firmware)", coreKeys()});
    s.push_back({"Energy", "hw/EnergyReport (hw/EnergyModel prices hw/EnergyEvents)",
                 "wsc kernel, wsc run (traffic, gemm)", energyKeys()});
    s.push_back(
        {"Kernels",
         "testbench/KernelTestbench",
         "wsc kernel",
         {
             {"kernel.op", "text",
              "gemm, gemv, attention, decode, prefill, kv-replace or weight-replace"},
             {"kernel.algo", "text",
              "meshgemm, cannon, summa, allgather, meshgemm-t, meshgemv, pipeline, ring, shift, "
              "concat"},
             {"kernel.mesh_rows", "cores", "P"},
             {"kernel.mesh_cols", "cores", "Q"},
             {"kernel.m", "elements", "GEMM M (gemv 1; attention: query heads)"},
             {"kernel.k", "elements", "GEMM K (attention: head dimension)"},
             {"kernel.n", "elements", "GEMM N"},
             {"kernel.tree_k", "count", "K-tree levels"},
             {"kernel.broadcast", "bool", "gemv result multicast back"},
             {"kernel.shift_align", "bool", "alignment by messages"},
             {"kernel.unroll", "bool", "ran the straight-line firmware"},
             {"kernel.functional", "bool", "values computed and checked"},
             {"kernel.notes", "text", "how the schedule met its constraints"},
             {"kernel.cycles", "cycles", "until the last core retired"},
             {"kernel.phases.*", "cycles",
              "decode, prefill: cycles by operation (decode: norm1, qkv, attention, o, norm2, up, "
              "down; prefill: norm1, qkv, attention or scores, softmax, context, o, norm2, up, "
              "down), "
              "how far "
              "each moved the all-cores frontier; they add up to kernel.cycles"},
             {"kernel.layers", "count", "decode, prefill: layers in the program"},
             {"kernel.prompt", "tokens",
              "attention, decode: tokens in the cache after the prefill; prefill: the prompt"},
             {"kernel.generated", "tokens", "attention, decode: tokens decoded before the step"},
             {"kernel.macs", "MACs", "MACs the cores ran"},
             {"kernel.useful_macs", "MACs", "the operation's own MACs"},
             {"kernel.peak_macs_per_cycle", "MACs/cycle", "one core's peak"},
             {"kernel.efficiency", "ratio", "useful MACs / (cores x peak x cycles)"},
             {"kernel.compute_cycles", "cycles", "PE + vector busy cycles of the busiest core"},
             {"kernel.exposed_comm_cycles", "cycles", "cycles - compute_cycles"},
             {"kernel.routes_per_core", "count", "most route entries a router holds (PLMR R)"},
             {"kernel.direct_routes", "count", "transfers on table routes"},
             {"kernel.relayed_paths", "count", "transfers relayed by software"},
             {"kernel.rejected_multicasts", "count", "multicasts that found no room"},
             {"kernel.steps", "count", "compute-shift steps or phases"},
             {"kernel.step_path_hops", "links", "the worst step's critical path (PLMR L)"},
             {"kernel.step_path_stages", "count", "its routing stages"},
             {"kernel.step_path_cycles", "cycles", "its zero-load estimate"},
             {"kernel.sram_bytes", "bytes",
              "most SRAM any core used at once (buffers + early arrivals)"},
             {"kernel.sram_buffer_bytes", "bytes", "most SRAM any core's buffers take"},
             {"kernel.relays", "count", "software relays"},
             {"kernel.relay_cycles", "cycles", "controller cycles relaying"},
             {"kernel.program_instructions", "count", "the largest program's instructions"},
             {"kernel.program_bytes", "bytes", "its program memory"},
             {"kernel.checked", "bool", "the result was compared"},
             {"kernel.correct", "bool", "it equals the reference"},
             {"kernel.max_abs_error", "value", "largest |result - reference|"},
             {"kernel.cores.[]", "count", "the cores that took part"},
         }});
    s.push_back({"GEMM scenarios",
                 "testbench/GemmTestbench",
                 "wsc run (gemm)",
                 {
                     {"gemm.m", "elements", "M"},
                     {"gemm.k", "elements", "K"},
                     {"gemm.n", "elements", "N"},
                     {"gemm.mesh", "cores", "cores per side"},
                     {"gemm.cycles", "cycles", "run length"},
                     {"gemm.utilization", "ratio", "MACs / (cores x peak x cycles)"},
                     {"gemm.functional", "bool", "values computed"},
                     {"gemm.checked", "bool", "compared with the reference"},
                     {"gemm.correct", "bool", "equal"},
                     {"gemm.max_abs_error", "value", "largest |C - reference|"},
                     {"gemm.memory_path", "text", "noc (memory ports on the NoC) or direct"},
                 }});
    s.push_back({"Firmware scenarios",
                 "testbench/FirmwareTestbench",
                 "wsc run (firmware)",
                 {
                     {"firmware.path", "text", "the program file or folder"},
                     {"firmware.cycles", "cycles", "until the last core retired"},
                     {"firmware.functional", "bool", "values computed"},
                     {"firmware.checks.[].core", "count", "core of an `expect` check"},
                     {"firmware.checks.[].buffer", "text", "its buffer"},
                     {"firmware.checks.[].compared", "elements", "elements compared"},
                     {"firmware.checks.[].mismatched", "elements", "elements that differed"},
                     {"firmware.checks.[].max_abs_error", "value", "largest difference"},
                     {"firmware.unmatched_messages", "count", "messages no receive took"},
                     {"firmware.correct", "bool", "every check passed"},
                 }});
    s.push_back(
        {"DMA streams",
         "testbench/DmaStreamTestbench",
         "wsc run (dma_stream)",
         {
             {"dma_stream.cycles", "cycles", "run length"},
             {"dma_stream.port_node", "count", "the first memory port's node"},
             {"dma_stream.port_nodes.[]", "count", "every memory port's node"},
             {"dma_stream.active_ports", "count", "ports that served requests"},
             {"dma_stream.busiest_port_cores", "count", "cores on the busiest port"},
             {"dma_stream.cores.[]", "count", "cores that streamed"},
             {"dma_stream.bytes", "bytes", "bytes moved"},
             {"dma_stream.bandwidth_gbytes_per_s", "GB/s", "bytes / run time"},
             {"dma_stream.avg_hops", "links", "mean request path"},
             {"dma_stream.avg_request_noc_ns", "ns", "request's NoC time"},
             {"dma_stream.avg_port_wait_ns", "ns", "queueing at the port"},
             {"dma_stream.avg_memory_ns", "ns", "memory service time"},
             {"dma_stream.avg_response_noc_ns", "ns", "response's NoC time"},
             {"dma_stream.avg_round_trip_ns", "ns", "request to response, mean"},
             {"dma_stream.max_round_trip_ns", "ns", "largest"},
             {"dma_stream.noc_link_gbytes_per_s", "GB/s", "one link's bandwidth"},
             {"dma_stream.noc_total_gbytes_per_s", "GB/s", "what the port's links can carry"},
             {"dma_stream.noc_bound_gbytes_per_s", "GB/s", "the NoC bound on the stream"},
             {"dma_stream.memory_peak_gbytes_per_s", "GB/s", "the memory's peak"},
             {"dma_stream.memory_side_gbytes_per_s", "GB/s",
              "what the memory side sustains at the measured latency"},
             {"dma_stream.functional", "bool", "values moved and checked"},
             {"dma_stream.correct", "bool", "they arrived intact"},
             {"dma_stream.hbm.bandwidth_gbytes_per_s", "GB/s", "HBM3 controller bandwidth"},
             {"dma_stream.hbm.row_hit_rate", "ratio", "row-buffer hits / accesses"},
             {"dma_stream.hbm.avg_read_latency_ns", "ns", "controller read latency"},
             {"dma_stream.hbm.bytes_read", "bytes", "bytes read"},
         }});
    s.push_back(
        {"Wafer hierarchy",
         "hw/HierarchyStats (hw/Wafer, hw/Die, hw/MemoryStack)",
         "wsc run on a wafer config (gemm with HBM)",
         {
             {"wafer.dies.x", "dies", "die array width"},
             {"wafer.dies.y", "dies", "height"},
             {"wafer.cores_per_die.x", "cores", "per die"},
             {"wafer.cores_per_die.y", "cores", "per die"},
             {"wafer.hbm_stacks_per_die", "count", "HBM stacks per die"},
             {"wafer.clocks_hz.*", "Hz", "clock of each domain (noc, d2d, hbm)"},
             {"wafer.*.index", "count", "die die_X_Y's index"},
             {"wafer.*.x", "dies", "its column"},
             {"wafer.*.y", "dies", "its row"},
             {"wafer.*.routers", "count", "routers on it"},
             {"wafer.*.router_traversals", "flits", "flits through its routers"},
             {"wafer.*.links.*.flits", "flits",
              "its links by kind (on_die, d2d_out, injection, ejection): flits"},
             {"wafer.*.links.*.bits", "bits", "bits"},
             {"wafer.*.links.*.busy_cycles", "cycles", "busy cycles"},
             {"wafer.*.hbm_attach.[].name", "text", "an HBM stack's instance name"},
             {"wafer.*.hbm_attach.[].edge", "text", "the die edge it sits on"},
             {"wafer.*.hbm_attach.[].at", "count", "position along the edge"},
             {"wafer.*.hbm_attach.[].router", "count", "router it attaches to"},
             {"wafer.*.hbm_attach.[].node", "count", "its NoC node"},
             {"wafer.*.*.target", "text",
              "hbm_N: memory model (hbm3 controller or bandwidth model)"},
             {"wafer.*.*.bridge.transactions", "count", "TLM transactions through the NoC bridge"},
             {"wafer.*.*.bridge.in_flight", "count", "outstanding at the end"},
             {"wafer.*.*.bridge.crossing", "text", "clock-domain crossing kind"},
             {"wafer.*.*.bridge.crossing_sync_cycles", "cycles", "synchroniser latency"},
             {"wafer.*.*.controller.transactions", "count", "requests the HBM controller served"},
             {"wafer.*.*.controller.requests_accepted", "count", "requests accepted"},
             {"wafer.*.*.controller.responses_sent", "count", "responses sent"},
             {"wafer.*.*.controller.bytes_read", "bytes", "bytes read"},
             {"wafer.*.*.controller.bytes_written", "bytes", "bytes written"},
             {"wafer.*.*.controller.bandwidth_gbytes_per_s", "GB/s", "bytes / active time"},
             {"wafer.*.*.controller.row_hit_rate", "ratio", "row hits / accesses"},
             {"wafer.*.*.controller.read_latency_mean_cycles", "cycles",
              "mean read latency (HBM clock)"},
             {"wafer.*.*.controller.write_latency_mean_cycles", "cycles", "mean write latency"},
             {"wafer.*.*.controller.energy_pj", "pJ", "HBM energy"},
             {"wafer.*.*.controller.tck_ps", "ps", "HBM clock period"},
             {"wafer.*.*.noc_port.node", "count", "the memory port's NoC node"},
             {"wafer.*.*.noc_port.requests", "count", "requests received"},
             {"wafer.*.*.noc_port.reads", "count", "reads"},
             {"wafer.*.*.noc_port.writes", "count", "writes"},
             {"wafer.*.*.noc_port.bytes_read", "bytes", "bytes read"},
             {"wafer.*.*.noc_port.bytes_written", "bytes", "bytes written"},
             {"wafer.*.*.noc_port.hops_sum", "links",
              "hops summed over requests (/ requests: the mean path)"},
             {"wafer.*.*.noc_port.request_msg_bytes", "bytes", "request message size"},
             {"wafer.*.*.noc_port.response_msg_bytes", "bytes", "response message size"},
             {"wafer.*.*.noc_port.round_trip_cycles_sum", "cycles",
              "round trips summed over requests (/ requests: the mean)"},
             {"wafer.*.*.noc_port.max_round_trip_cycles", "cycles", "longest round trip"},
         }});
    s.push_back({"LLM steps: inputs and what was resolved",
                 "testbench/LlmCli",
                 "wsc llm train|infer, wsc run (llm)",
                 {
                     {"inputs.model", "text", "--model"},
                     {"inputs.hw", "text", "--hw"},
                     {"inputs.placement", "text", "--placement"},
                     {"inputs.batch", "count", "sequences per step"},
                     {"inputs.seq", "tokens", "tokens per sequence (infer: the prompt)"},
                     {"inputs.generate", "tokens", "decoded tokens"},
                     {"inputs.memory", "text", "bandwidth or hbm"},
                     {"inputs.seed", "count", "network seed"},
                     {"inputs.full", "bool", "every layer simulated"},
                     {"inputs.dtype", "text", "fp16 or bf16"},
                     {"inputs.plans.[]", "text", "the plans run"},
                     {"inputs.recompute", "text", "none, uniform or gcmr"},
                     {"inputs.offload", "bool", "checkpoint offload"},
                     {"inputs.pp_links", "text", "routing or watos"},
                     {"inputs.memory_only", "bool", "ledger only"},
                     {"resolved.die.*", "value",
                      "the die the step builder saw: clock_hz, sram_bytes, hbm_bytes, "
                      "hbm_bytes_per_cycle, peak_macs_per_cycle, vector_lanes, dma_burst (bytes), "
                      "compute_share and comm_share (SRAM shares)"},
                     {"resolved.noc.*", "value",
                      "clock_hz, flit_bytes, router_pipeline (cycles), d2d_bytes_per_cycle, "
                      "d2d_latency_cycles, d2d_fec_latency_cycles"},
                     {"resolved.model.*", "value",
                      "name, architecture, layers, hidden, intermediate, heads, kv_heads, vocab"},
                 }});
    s.push_back(
        {"LLM steps: runs",
         "testbench/LlmTestbench::toJson",
         "wsc llm train|infer, wsc run (llm): one element per plan",
         {
             {"runs.[].model", "text", "model name"},
             {"runs.[].plan", "text", "the plan"},
             {"runs.[].placement", "text", "placement policy"},
             {"runs.[].rank_die.[]", "count", "die of each rank"},
             {"runs.[].mapping", "text",
              "the placement's report line (TCME, ER, WATOS Eq. 2, Fig. 13 links)"},
             {"runs.[].pair_routes.[].src", "count", "a pair route's source die"},
             {"runs.[].pair_routes.[].dst", "count", "its destination die"},
             {"runs.[].pair_routes.[].path.[]", "count", "the dies it visits"},
             {"runs.[].pair_route_flits", "flits", "flits the pair routes carried"},
             {"runs.[].routing", "text", "expert routing (infer)"},
             {"runs.[].batch", "count", "sequences"},
             {"runs.[].seq", "tokens", "tokens per sequence"},
             {"runs.[].generate", "tokens", "decoded tokens"},
             {"runs.[].composition", "text", "how the step was composed from simulated builds"},
             {"runs.[].phases.*.cycles", "cycles", "a phase's (train, prefill, decode) length"},
             {"runs.[].phases.*.seconds", "s", "cycles / NoC clock"},
             {"runs.[].phases.*.model_flops", "FLOP", "the model's FLOPs (closed form)"},
             {"runs.[].phases.*.mfu", "ratio", "model FLOPs / (dies x peak x cycles)"},
             {"runs.[].phases.*.compute_busy_cycles", "cycles", "critical die's PE + vector busy"},
             {"runs.[].phases.*.hbm_bytes_critical_die", "bytes", "critical die's HBM bytes"},
             {"runs.[].phases.*.hbm_bytes_by_op.*", "bytes",
              "its HBM bytes by operator and direction (attn_qkv_fwd, mlp_down_bwd, optimizer, "
              "...)"},
             {"runs.[].phases.*.exposed_cycles.*", "cycles",
              "cycles its compute waited, by communication kind (tp_all_reduce, pp_recv, "
              "ep_dispatch, checkpoint_reload, ...)"},
             {"runs.[].phases.*.comm_cycles.*", "cycles",
              "first to last instruction of each kind's instances, summed (recompute: the "
              "re-runs)"},
             {"runs.[].phases.*.energy_pj", "pJ", "the phase's energy"},
             {"runs.[].memory.*.peak_bytes", "bytes", "die_N's ledger peak"},
             {"runs.[].memory.*.*_bytes", "bytes",
              "what fills it at the peak: weights, gradients, optimizer_states, activations, "
              "checkpoints, kv_cache, buffers"},
             {"runs.[].memory.stage_peak_bytes.[]", "bytes",
              "per pipeline stage, its dies' highest peak"},
             {"runs.[].offload.note", "text", "how the offload was chosen"},
             {"runs.[].offload.layers.[]", "count", "layers each stage offloads"},
             {"runs.[].offload.pairs.[].sender_stage", "count", "a pair's Sender"},
             {"runs.[].offload.pairs.[].helper_stage", "count", "its Helper"},
             {"runs.[].offload.pairs.[].share", "ratio", "share of the Sender's offload"},
             {"runs.[].offload.pairs.[].held_bytes_per_die", "bytes",
              "what the Helper holds per die"},
             {"runs.[].offload.extent_before_bytes.[]", "bytes",
              "each stage's highest address in use before"},
             {"runs.[].offload.extent_after_bytes.[]", "bytes", "after"},
             {"runs.[].recompute.policy", "text", "none, uniform or gcmr"},
             {"runs.[].recompute.stages.[].dropped", "text", "operators a stage re-runs"},
             {"runs.[].recompute.stages.[].peak_bytes", "bytes", "its peak with that choice"},
             {"runs.[].recompute.stages.[].estimated_cycles", "cycles",
              "the pre-screen's estimate"},
             {"runs.[].runs.[].phase", "text", "a simulated build's phase"},
             {"runs.[].runs.[].layers_per_stage", "count", "layers in the build"},
             {"runs.[].runs.[].cycles", "cycles", "its length"},
             {"runs.[].runs.[].critical_die", "count", "the die that finished last"},
             {"runs.[].runs.[].wall_seconds", "s", "its wall time"},
             {"runs.[].runs.[].flits", "flits", "flits sent"},
             {"runs.[].runs.[].rx_refusals", "flits", "receive-buffer refusals"},
             {"runs.[].runs.[].rx_held_peak_bytes", "bytes", "most early-arrival bytes on a die"},
             {"runs.[].runs.[].hbm_bytes", "bytes", "all dies' HBM bytes"},
             {"runs.[].runs.[].hbm_bytes_critical_die", "bytes", "the critical die's"},
             {"runs.[].wall_seconds", "s", "the plan's wall time"},
             {"runs.[].peak_rss_kb", "KiB", "process peak RSS after it"},
         }});
    return s;
}

// Does pattern segment `p` match key `k`? `*` any key, `*_bytes` any key ending so.
bool segment(const std::string& p, const std::string& k) {
    if (p == "*") return true;
    if (p.size() > 1 && p[0] == '*')
        return k.size() >= p.size() - 1 &&
               k.compare(k.size() - (p.size() - 1), p.size() - 1, p, 1, std::string::npos) == 0;
    return p == k;
}

std::vector<std::string> split(const std::string& path) {
    // No registered key contains a dot: every '.' separates two keys.
    std::vector<std::string> out(1);
    for (char c : path)
        if (c == '.')
            out.emplace_back();
        else
            out.back() += c;
    return out;
}

void walk(const nlohmann::json& j, std::vector<std::string>& at, std::vector<std::string>& bad) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            at.push_back(it.key());
            walk(it.value(), at, bad);
            at.pop_back();
        }
        return;
    }
    if (j.is_array()) {
        at.push_back("[]");
        if (j.empty()) {
            // An empty list is documented when its elements' key is.
            bool hit = StatsSchema::find(at) != nullptr;
            if (!hit)
                for (const auto& sec : StatsSchema::sections())
                    for (const auto& k : sec.keys) {
                        const auto segs = split(k.path);
                        if (segs.size() > at.size()) {
                            bool pre = true;
                            for (size_t i = 0; i < at.size() && pre; ++i)
                                pre = segment(segs[i], at[i]);
                            hit = hit || pre;
                        }
                    }
            if (!hit) {
                std::string s;
                for (const auto& x : at) s += (s.empty() ? "" : ".") + x;
                bad.push_back(s);
            }
        }
        for (const auto& e : j) walk(e, at, bad);
        at.pop_back();
        return;
    }
    if (!StatsSchema::find(at)) {
        std::string s;
        for (const auto& x : at) s += (s.empty() ? "" : ".") + x;
        bad.push_back(s);
    }
}

}  // namespace

const std::vector<StatsSchema::Section>& StatsSchema::sections() {
    static const std::vector<Section> s = build();
    return s;
}

const StatsSchema::Key* StatsSchema::find(const std::vector<std::string>& path) {
    for (const auto& sec : sections())
        for (const auto& k : sec.keys) {
            const auto segs = split(k.path);
            if (segs.size() != path.size()) continue;
            bool ok = true;
            for (size_t i = 0; i < segs.size() && ok; ++i) ok = segment(segs[i], path[i]);
            if (ok) return &k;
        }
    return nullptr;
}

std::vector<std::string> StatsSchema::undocumented(const nlohmann::json& j) {
    std::vector<std::string> at, bad;
    walk(j, at, bad);
    std::sort(bad.begin(), bad.end());
    bad.erase(std::unique(bad.begin(), bad.end()), bad.end());
    return bad;
}

std::string StatsSchema::markdown() {
    std::ostringstream os;
    os << "<!-- Generated by `wsc stats keys` from testbench/StatsSchema.cpp; do not edit here. "
          "-->\n";
    for (const auto& sec : sections()) {
        os << "\n### " << sec.title << "\n\n"
           << "Written by `" << sec.writer << "`; in " << sec.where << ".\n\n"
           << "| key | unit | meaning |\n|---|---|---|\n";
        for (const auto& k : sec.keys)
            os << "| `" << k.path << "` | " << k.unit << " | " << k.meaning << " |\n";
    }
    return os.str();
}

}  // namespace wsc::tb
