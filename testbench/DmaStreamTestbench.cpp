#include "testbench/DmaStreamTestbench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "core/CoreArray.h"
#include "firmware/Firmware.h"
#include "noc/Network.h"
#include "testbench/WorkloadError.h"

namespace wsc::tb {

namespace {

std::vector<uint32_t> portNodes(const noc::Network& net, const firmware::DmaStreamWorkload& w) {
    const auto& t = net.topology();
    if (!w.attach_routers.empty()) {
        std::vector<uint32_t> v;
        for (uint32_t r : w.attach_routers) {
            if (r >= t.routers())
                throw WorkloadError("port", fmt::format("dma_stream: attach router {} is outside "
                                                        "the {}x{} mesh",
                                                        r, t.kx(), t.ky()));
            v.push_back(t.node(r, 0));
        }
        return v;
    }
    if (w.port_x >= t.kx() || w.port_y >= t.ky())
        throw WorkloadError("port",
                            fmt::format("dma_stream: port router ({},{}) is outside the {}x{} mesh",
                                        w.port_x, w.port_y, t.kx(), t.ky()));
    return {t.node(t.router(w.port_x, w.port_y), 0)};
}

uint32_t distance(const noc::Network& net, uint32_t a, uint32_t b) {
    const auto& t = net.topology();
    const uint32_t ra = t.routerOfNode(a), rb = t.routerOfNode(b);
    return static_cast<uint32_t>(std::abs(int(t.x(ra)) - int(t.x(rb))) +
                                 std::abs(int(t.y(ra)) - int(t.y(rb))));
}

}  // namespace

float DmaStreamTestbench::value(uint64_t seed, uint32_t slot, uint64_t e) {
    // A cheap hash to a float in [-1, 1): distinct per seed, slot and element.
    uint64_t x = (seed * 0x9E3779B97F4A7C15ull) ^ (uint64_t(slot) << 40) ^ e;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return static_cast<float>(static_cast<int64_t>(x >> 40) - (int64_t{1} << 23)) / float(1 << 23);
}

hw::MemorySystem DmaStreamTestbench::makeMemory(const core::CoreParams& cp,
                                                const noc::NocParams& np,
                                                const firmware::DmaStreamWorkload& w) {
    core::CoreParams one = cp;
    one.memory.ports = 1;
    return hw::MemorySystem(
        one, np.clock_hz, w.memory == "simple" ? hw::MemoryTarget::Simple : hw::MemoryTarget::Hbm);
}

DmaStreamPlan DmaStreamTestbench::plan(const noc::Network& net,
                                       const firmware::DmaStreamWorkload& w) {
    if (w.bytes == 0 || w.bytes % 4)
        throw WorkloadError(
            "bytes",
            fmt::format("dma_stream: bytes ({}) must be a positive multiple of 4", w.bytes));
    DmaStreamPlan p;
    p.chunk = w.chunk ? w.chunk : w.bytes;
    if (p.chunk % 4)
        throw WorkloadError("chunk",
                            fmt::format("dma_stream: chunk ({}) must be a multiple of 4", p.chunk));
    if (p.chunk / 4 > UINT32_MAX)
        throw WorkloadError("chunk", "dma_stream: chunk too large for one buffer");
    p.port_nodes = portNodes(net, w);
    // Each node streams through its nearest attach node (ties to the earlier one in attach
    // order): the index of that node's NocMemoryPort.
    p.port_of.assign(net.nodes(), 0);
    std::vector<uint32_t> dist(net.nodes(), 0);
    for (uint32_t n = 0; n < net.nodes(); ++n) {
        dist[n] = UINT32_MAX;
        for (uint32_t i = 0; i < p.port_nodes.size(); ++i) {
            const uint32_t d = distance(net, n, p.port_nodes[i]);
            if (d < dist[n]) dist[n] = d, p.port_of[n] = i;
        }
    }
    // Streaming cores: farthest from their attach node first (ties by index), never an attach
    // node itself.
    std::vector<uint32_t> order;
    for (uint32_t n = 0; n < net.nodes(); ++n)
        if (std::find(p.port_nodes.begin(), p.port_nodes.end(), n) == p.port_nodes.end() &&
            net.nodeAlive(n))
            order.push_back(n);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return dist[a] > dist[b]; });
    if (w.cores == 0 || w.cores > order.size())
        throw WorkloadError(
            "cores",
            order.empty()
                ? fmt::format("dma_stream: no core can stream: the {}x{} mesh has no node besides "
                              "the memory port's (it needs at least 2 nodes)",
                              net.topology().kx(), net.topology().ky())
                : fmt::format("dma_stream: cores ({}) must be 1..{} (every node but the port's)",
                              w.cores, order.size()));
    p.cores.assign(order.begin(), order.begin() + w.cores);
    // Each dma.load fills its own buffer T<k> (the instruction has no buffer offset); together
    // they hold the tensor in order.
    p.firmware = firmware::Firmware(net.nodes());
    p.buffers.assign(w.cores, {});
    for (uint32_t s = 0; s < w.cores; ++s) {
        firmware::Program& prog = p.firmware.program(p.cores[s]);
        for (uint64_t off = 0, k = 0; off < w.bytes; off += p.chunk, ++k) {
            const uint64_t b = std::min(p.chunk, w.bytes - off);
            p.buffers[s].push_back(
                prog.addBuffer(fmt::format("T{}", k), static_cast<uint32_t>(b / 4)));
            firmware::Instruction ld;
            ld.op = firmware::Opcode::DmaLoad;
            ld.c = p.buffers[s].back();
            ld.addr = uint64_t(s) * w.bytes + off;
            ld.bytes = b;
            prog.add(ld);
        }
    }
    return p;
}

DmaStreamResult DmaStreamTestbench::run(const noc::NocParams& np, const core::CoreParams& cp0,
                                        const firmware::DmaStreamWorkload& w, noc::NocShell& shell,
                                        hw::MemorySystem& mem, nlohmann::json* stats) {
    const auto wall0 = std::chrono::steady_clock::now();
    if (mem.ports() != 1)
        throw std::invalid_argument("dma_stream: exactly one memory port is supported");
    core::CoreParams cp = cp0;
    cp.functional = w.functional;

    noc::Network net(np);
    DmaStreamPlan plan = DmaStreamTestbench::plan(net, w);
    DmaStreamResult r;
    r.clock_hz = np.clock_hz;
    r.port_nodes = plan.port_nodes;
    r.port_node = r.port_nodes.front();
    const std::vector<uint32_t>& port_of = plan.port_of;
    r.cores = plan.cores;
    {
        std::vector<uint32_t> served(r.port_nodes.size(), 0);
        for (uint32_t c : r.cores) ++served[port_of[c]];
        for (uint32_t n : served) {
            r.active_ports += n > 0;
            r.busiest_port_cores = std::max(r.busiest_port_cores, n);
        }
    }
    const uint64_t elems = w.bytes / 4;
    const uint64_t chunk = plan.chunk;
    const std::vector<std::vector<uint16_t>>& buf = plan.buffers;
    firmware::Firmware fw = std::move(plan.firmware);
    core::CoreArray cores(net, cp);
    cores.load(std::move(fw));
    mem.attachOverNoc(cores, shell, net, w.functional, {r.port_nodes}, w.header_bytes,
                      w.port_window);
    cores.setPortOfCore(port_of);
    if (w.functional) {
        std::vector<float> t(elems);
        for (uint32_t s = 0; s < w.cores; ++s) {
            for (uint64_t e = 0; e < elems; ++e) t[e] = value(w.seed, s, e);
            mem.hostWrite(0, uint64_t(s) * w.bytes, t.data(), w.bytes);
        }
    }

    const uint64_t last = shell.run(net, cores);
    cores.finish(last);
    r.cycles = last + 1;

    if (w.functional) {
        r.checked = true;
        const uint64_t chunk_elems = chunk / 4;
        for (uint32_t s = 0; s < w.cores; ++s)
            for (uint64_t e = 0; e < elems; ++e) {
                const float* d = cores.core(r.cores[s]).sram().data(buf[s][e / chunk_elems]);
                const float want = value(w.seed, s, e);
                if (std::memcmp(&d[e % chunk_elems], &want, 4) != 0) ++r.mismatches;
            }
        r.correct = r.mismatches == 0;
    }

    // The attach nodes' counters, summed (first push and last answer over all of them).
    core::NocMemoryPort::Stats ps;
    for (const core::NocMemoryPort* port : mem.nocPorts()) {
        const auto& s = port->stats();
        ps.requests += s.requests, ps.reads += s.reads, ps.writes += s.writes;
        ps.bytes_read += s.bytes_read, ps.bytes_written += s.bytes_written;
        ps.request_msg_bytes += s.request_msg_bytes;
        ps.response_msg_bytes += s.response_msg_bytes;
        ps.hop_sum += s.hop_sum, ps.req_noc_cycles += s.req_noc_cycles;
        ps.port_wait_cycles += s.port_wait_cycles, ps.mem_cycles += s.mem_cycles;
        ps.resp_noc_cycles += s.resp_noc_cycles, ps.round_trip_cycles += s.round_trip_cycles;
        ps.max_round_trip = std::max(ps.max_round_trip, s.max_round_trip);
        ps.first_push = std::min(ps.first_push, s.first_push);
        ps.last_done = std::max(ps.last_done, s.last_done);
    }
    const double ns_per_cycle = 1e9 / np.clock_hz;
    r.bytes = ps.bytes_read + ps.bytes_written;
    r.first_push = ps.first_push;
    r.last_done = ps.last_done;
    const double secs = double(ps.last_done - ps.first_push) / np.clock_hz;
    r.bandwidth_gbps = secs > 0 ? double(r.bytes) / secs / 1e9 : 0;
    const double n = ps.requests ? double(ps.requests) : 1.0;
    r.avg_hops = ps.hop_sum / n;
    r.avg_req_noc_ns = ps.req_noc_cycles / n * ns_per_cycle;
    r.avg_port_wait_ns = ps.port_wait_cycles / n * ns_per_cycle;
    r.avg_mem_ns = ps.mem_cycles / n * ns_per_cycle;
    r.avg_resp_noc_ns = ps.resp_noc_cycles / n * ns_per_cycle;
    r.avg_round_trip_ns = ps.round_trip_cycles / n * ns_per_cycle;
    r.max_round_trip_ns = ps.max_round_trip * ns_per_cycle;
    r.request_msg_bytes = ps.request_msg_bytes;
    r.response_msg_bytes = ps.response_msg_bytes;

    // Bounds. The data of an attach node leaves it through its one NI link and enters each core
    // through its own: one flit per serialization time of the narrower of the local and the mesh
    // link, per attach node that serves a streaming core.
    auto ser = [&](uint32_t width) { return (np.flit_bytes + width - 1) / width; };
    const uint32_t cyc_per_flit =
        std::max(ser(np.link.width_bytes), ser(np.local_link.width_bytes));
    r.noc_link_gbps = double(np.flit_bytes) / cyc_per_flit * np.clock_hz / 1e9;
    const uint64_t burst = std::min<uint64_t>(cp.dma.burst_bytes, chunk);
    const uint64_t resp_flits = (burst + w.header_bytes + np.flit_bytes - 1) / np.flit_bytes;
    r.noc_bound_gbps = r.noc_link_gbps * double(burst) / double(resp_flits * np.flit_bytes);
    r.noc_total_gbps = r.noc_bound_gbps * double(r.cores.size()) / r.busiest_port_cores;
    if (mem.target() == hw::MemoryTarget::Hbm) {
        dram::HbmTarget& h = mem.hbm(0);
        const auto& hp = h.controller().params();
        const dram::HbmStats hs = h.controller().stats(h.cycle());
        r.hbm = true;
        r.memory_peak_gbps = hp.stackPeakBandwidthBytesPerSec() / 1e9;
        r.hbm_bandwidth_gbps = hs.bandwidthBytesPerSec(hp) / 1e9;
        r.hbm_row_hit_rate = hs.rowHitRate();
        r.hbm_avg_read_latency_ns = hs.read_latency.mean() * hp.tCK_ps / 1000.0;
        r.hbm_bytes_read = hs.bytes_read;
    } else {
        r.memory_peak_gbps = cp.memory.bytes_per_ns;
    }
    // Little's law on the memory side: at most min(bridge slots, port window) bursts per attach
    // node are in the target at once, each for the target's own time (HBM: its mean read
    // latency).
    {
        const double in_target = double(r.port_nodes.size()) *
                                 std::min<double>(cp.memory.max_outstanding, w.port_window);
        const double t_ns =
            r.hbm ? r.hbm_avg_read_latency_ns
                  : cp.memory.latency_ps / 1000.0 + double(burst) / cp.memory.bytes_per_ns;
        if (t_ns > 0) r.memory_side_gbps = in_target * double(burst) / t_ns;
    }
    r.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    if (stats) {
        nlohmann::json j = {{"cycles", r.cycles},
                            {"port_node", r.port_node},
                            {"port_nodes", r.port_nodes},
                            {"active_ports", r.active_ports},
                            {"busiest_port_cores", r.busiest_port_cores},
                            {"noc_total_gbytes_per_s", r.noc_total_gbps},
                            {"cores", r.cores},
                            {"bytes", r.bytes},
                            {"bandwidth_gbytes_per_s", r.bandwidth_gbps},
                            {"avg_hops", r.avg_hops},
                            {"avg_request_noc_ns", r.avg_req_noc_ns},
                            {"avg_port_wait_ns", r.avg_port_wait_ns},
                            {"avg_memory_ns", r.avg_mem_ns},
                            {"avg_response_noc_ns", r.avg_resp_noc_ns},
                            {"avg_round_trip_ns", r.avg_round_trip_ns},
                            {"max_round_trip_ns", r.max_round_trip_ns},
                            {"noc_link_gbytes_per_s", r.noc_link_gbps},
                            {"noc_bound_gbytes_per_s", r.noc_bound_gbps},
                            {"memory_peak_gbytes_per_s", r.memory_peak_gbps},
                            {"memory_side_gbytes_per_s", r.memory_side_gbps},
                            {"functional", w.functional},
                            {"correct", r.correct}};
        if (r.hbm)
            j["hbm"] = {{"bandwidth_gbytes_per_s", r.hbm_bandwidth_gbps},
                        {"row_hit_rate", r.hbm_row_hit_rate},
                        {"avg_read_latency_ns", r.hbm_avg_read_latency_ns},
                        {"bytes_read", r.hbm_bytes_read}};
        nlohmann::json noc;
        net.dumpStats(noc);
        (*stats)["dma_stream"] = j;
        (*stats)["noc"] = noc;
    }
    return r;
}

void DmaStreamTestbench::printReport(std::ostream& os, const firmware::DmaStreamWorkload& w,
                                     const DmaStreamResult& r) {
    std::string at = fmt::format("node {}", r.port_node);
    if (r.port_nodes.size() > 1) {
        at = fmt::format("{} nodes (", r.port_nodes.size());
        for (size_t i = 0; i < r.port_nodes.size(); ++i)
            at += fmt::format("{}{}", i ? " " : "", r.port_nodes[i]);
        at += ")";
    }
    os << fmt::format("dma_stream: {} core(s) each load {} B from {} at {} through the NoC\n",
                      r.cores.size(), w.bytes, r.hbm ? "an HBM3 stack" : "a simple memory", at);
    os << fmt::format("  cycles                {}\n", r.cycles);
    os << fmt::format("  bandwidth reached     {:.2f} GB/s ({} B in {} cycles)\n", r.bandwidth_gbps,
                      r.bytes, r.last_done - r.first_push);
    os << fmt::format("  NoC hops (avg)        {:.2f}\n", r.avg_hops);
    os << fmt::format(
        "  latency per burst     {:.1f} ns round trip (max {:.1f}) = request NoC {:.1f} + wait at "
        "port "
        "{:.1f} + memory {:.1f} + response NoC {:.1f}\n",
        r.avg_round_trip_ns, r.max_round_trip_ns, r.avg_req_noc_ns, r.avg_port_wait_ns,
        r.avg_mem_ns, r.avg_resp_noc_ns);
    if (r.hbm)
        os << fmt::format(
            "  HBM controller        {:.2f} GB/s over its busy span, row-hit rate {:.1f}%, "
            "read latency {:.1f} ns\n",
            r.hbm_bandwidth_gbps, 100 * r.hbm_row_hit_rate, r.hbm_avg_read_latency_ns);
    os << fmt::format(
        "  bounds                memory peak {:.1f} GB/s; NoC link {:.1f} GB/s = {:.1f} GB/s of "
        "data "
        "after headers; memory side (bursts in flight / latency) {:.1f} GB/s\n",
        r.memory_peak_gbps, r.noc_link_gbps, r.noc_bound_gbps, r.memory_side_gbps);
    if (r.port_nodes.size() > 1)
        os << fmt::format(
            "  attach nodes          {} of {} serve streaming cores, the busiest {}: NoC bound "
            "{:.2f} x {} cores / {} = {:.1f} GB/s\n",
            r.active_ports, r.port_nodes.size(), r.busiest_port_cores, r.noc_bound_gbps,
            r.cores.size(), r.busiest_port_cores, r.noc_total_gbps);
    double bound = std::min(r.memory_peak_gbps, r.noc_total_gbps);
    const char* what =
        bound == r.noc_total_gbps
            ? (r.port_nodes.size() > 1 ? "NoC links of the attach nodes" : "NoC link")
            : "memory peak";
    if (r.memory_side_gbps > 0 && r.memory_side_gbps < bound)
        bound = r.memory_side_gbps, what = "memory side";
    os << fmt::format("  reached / tightest    {:.1f}% of {:.1f} GB/s ({})\n",
                      100 * r.bandwidth_gbps / bound, bound, what);
    if (r.checked)
        os << (r.correct ? "  SRAM equals the tensor in memory: yes\n"
                         : fmt::format("  SRAM equals the tensor in memory: NO ({} mismatches)\n",
                                       r.mismatches));
}

}  // namespace wsc::tb
