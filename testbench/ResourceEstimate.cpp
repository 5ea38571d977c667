#include "testbench/ResourceEstimate.h"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/CoreArray.h"
#include "firmware/Firmware.h"
#include "firmware/ShiftGemmSchedule.h"
#include "noc/CheckedMath.h"
#include "noc/Network.h"
#include "noc/RouteTable.h"
#include "noc/Topology.h"
#include "testbench/LinkRecorder.h"

#if defined(__SANITIZE_ADDRESS__)
#define WSC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WSC_ASAN 1
#endif
#endif
#ifdef WSC_ASAN
// The sanitizer runtime's allocator count (sanitizer/allocator_interface.h, which gcc does not
// install): glibc's mallinfo2 does not see ASan's heap.
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace wsc::tb {

namespace {

// Sums and products of input quantities saturate: an estimate past 2^64 bytes is refused as such,
// never wrapped into a small one (noc/CheckedMath).
using checked::addSat;
using checked::mulSat;

// The network's parameters on a side x side single-die mesh without faults, tables or RTL
// positions: what every router, link and NI costs, whatever the extent.
noc::NocParams probeParams(const noc::NocParams& np, uint32_t side) {
    noc::NocParams q = np;
    q.topology.x = q.topology.y = side;
    q.topology.die_x = q.topology.die_y = 0;
    q.faults = {};
    q.routing = noc::RoutingAlgo::XY;
    q.rtl_routers.clear();
    return q;
}

struct Probe {
    uint64_t network = 0, records = 0, cores = 0;
};

uint64_t grown(uint64_t before, uint64_t after) {
    return after > before ? after - before : 0;
}

// The run's per-link records as RunOutputs keeps them: one phase per traffic phase.
std::vector<LinkRecorder::PhaseStart> phasesOf(const hw::ScenarioConfig& sc) {
    if (sc.workload_type == "traffic") return {{"warm-up", 0}, {"measure", 1}, {"drain", 2}};
    return {{"run", 0}};
}

Probe probe(const hw::ScenarioConfig& sc, uint32_t side, bool cores, uint64_t* per_packet) {
    Probe p;
    const uint64_t h0 = ResourceEstimate::heapBytes();
    auto net = std::make_unique<noc::Network>(probeParams(sc.noc, side), 1);
    const uint64_t h1 = ResourceEstimate::heapBytes();
    p.network = grown(h0, h1);
    std::unique_ptr<core::CoreArray> c;
    if (cores) {
        c = std::make_unique<core::CoreArray>(*net, sc.core);
        p.cores = grown(h1, ResourceEstimate::heapBytes());
    }
    {
        const uint64_t h2 = ResourceEstimate::heapBytes();
        LinkRecorder rec(phasesOf(sc));
        rec.attach(*net, nullptr);
        for (uint64_t cycle = 0; cycle < 3; ++cycle) rec.beforeStep(cycle);
        rec.finish(3);
        p.records = grown(h2, ResourceEstimate::heapBytes());
    }
    if (per_packet) {
        const uint64_t h3 = ResourceEstimate::heapBytes();
        constexpr uint32_t kPackets = 4096;
        for (uint32_t i = 0; i < kPackets; ++i)
            net->enqueuePacket(0, 1, noc::kNoRoute, sc.traffic.packet_flits, 0, false);
        *per_packet = (grown(h3, ResourceEstimate::heapBytes()) + kPackets - 1) / kPackets;
    }
    return p;
}

// Per extra router between the probes; a measurement below the small probe's (allocator reuse)
// counts as 0.
uint64_t perUnit(uint64_t small, uint64_t big, uint64_t extra) {
    return big > small ? (big - small + extra - 1) / extra : 0;
}

}  // namespace

uint64_t ResourceEstimate::heapBytes() {
#ifdef WSC_ASAN
    return __sanitizer_get_current_allocated_bytes();
#else
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;  // allocated from the arenas and mmapped chunks
#endif
}

uint64_t ResourceEstimate::heapSince(uint64_t before) {
    const uint64_t now = heapBytes();
    return now > before ? now - before : 0;
}

uint64_t ResourceEstimate::residentBytes() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0) {
            std::istringstream ss(line.substr(6));
            uint64_t kb = 0;
            if (ss >> kb) return kb * 1024;
        }
    return 0;
}

std::string ResourceEstimate::bytes(uint64_t b) {
    static constexpr const char* kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
    double v = double(b);
    int u = 0;
    while (v >= 1024 && u < 6) v /= 1024, ++u;
    return u == 0 ? fmt::format("{} B", b) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

ResourceEstimate ResourceEstimate::of(const hw::ScenarioConfig& sc) {
    ResourceEstimate e;
    // The process as it started building: later calls (validate of several files) would see
    // the heap an earlier file's network left resident, which the next build reuses.
    // Rounded up to 4 MiB: the resident size at start-up moves by a few pages from run to run,
    // and an estimate that printed differently each time would not be reproducible.
    static const uint64_t baseline = (residentBytes() + (4u << 20) - 1) / (4u << 20) * (4u << 20);
    e.process = baseline;
    const auto& t = sc.noc.topology;
    e.routers = uint64_t{t.x} * t.y;
    e.nodes = e.routers * t.local_ports;
    const bool cores = sc.workload_type != "traffic";  // gemm, dma_stream, kernel
    // Probes of kSmall^2 and kBig^2 routers: the difference is what each further router costs.
    constexpr uint32_t kSmall = 8, kBig = 16, kExtra = kBig * kBig - kSmall * kSmall;
    const Probe small = probe(sc, kSmall, cores, &e.per_packet);
    const Probe big = probe(sc, kBig, cores, nullptr);
    const uint64_t beyond = e.routers > kSmall * kSmall ? e.routers - kSmall * kSmall : 0;
    e.per_router = perUnit(small.network, big.network, kExtra);
    e.network = addSat(small.network, mulSat(e.per_router, beyond));
    e.records = addSat(small.records, mulSat(perUnit(small.records, big.records, kExtra), beyond));
    if (cores) {
        e.per_core = perUnit(small.cores, big.cores, kExtra * t.local_ports);
        const uint64_t small_nodes = uint64_t{kSmall} * kSmall * t.local_ports;
        e.cores = addSat(small.cores,
                         mulSat(e.per_core, e.nodes > small_nodes ? e.nodes - small_nodes : 0));
    }
    // Up*/down* keeps a next-hop byte per (router, destination, phase), escape routing one per
    // (router, destination): quadratic in the routers, the term that dominates a faulty wafer.
    if (sc.noc.faults.any()) e.routing = mulSat<uint64_t>(3, mulSat(e.routers, e.routers));
    if (sc.noc.routing == noc::RoutingAlgo::Table)
        e.routing =
            addSat(e.routing, mulSat<uint64_t>(mulSat<uint64_t>(e.routers, sc.noc.route_limit),
                                               sizeof(noc::RouteTable::Entry)));
    // Memory ports: simple memory ports of a gemm without HBM, an HBM stack per die and stack
    // with HBM, one port for dma_stream.
    if (sc.workload_type == "gemm") {
        if (sc.hbm) {
            const noc::Topology topo(t);
            e.ports = uint64_t{topo.diesX()} * topo.diesY() * sc.hbm->stacks;
            e.per_port = hbmStackBytes(*sc.hbm);
        } else {
            e.ports = sc.core.memory.ports;
            e.per_port = kSimplePortBytes;
        }
    } else if (sc.workload_type == "firmware") {
        e.ports = sc.core.memory.ports;
        e.per_port = kSimplePortBytes;
    } else if (sc.workload_type == "dma_stream") {
        e.ports = 1;
        e.per_port = sc.dma_stream.memory == "simple"
                         ? kSimplePortBytes
                         : hbmStackBytes(sc.hbm ? *sc.hbm : dram::HbmParams::hbm3Default());
    }
    e.memory = mulSat(e.ports, e.per_port);
    // Functional simple memories hold what is written: every port the GEMM's operands (and C),
    // the DMA stream's one port every core's tensor.
    if (sc.workload_type == "gemm" && sc.gemm.functional && !sc.hbm) {
        try {
            const firmware::ShiftGemmSchedule s(t.x, t.y, sc.gemm);
            e.memory = addSat(e.memory, mulSat(e.ports, s.memoryBytes()));
        } catch (const std::invalid_argument&) {
            // A shape the planner refuses: Preflight reports it at the workload's key.
        }
    } else if (sc.workload_type == "dma_stream" && sc.dma_stream.functional &&
               sc.dma_stream.memory == "simple") {
        e.memory = addSat(e.memory, mulSat<uint64_t>(sc.dma_stream.cores, sc.dma_stream.bytes));
    }
    return e;
}

void ResourceEstimate::addWorkload(const hw::ScenarioConfig& sc, const firmware::Firmware& fw,
                                   uint64_t fw_heap) {
    firmware = addSat(firmware, fw_heap);
    // Functional cores keep a float per element of every buffer (core::Sram's store).
    const bool functional =
        sc.workload_type == "gemm" ? sc.gemm.functional : sc.dma_stream.functional;
    if (functional)
        for (uint32_t c = 0; c < fw.cores(); ++c)
            for (const auto& b : fw.program(c).buffers())
                if (!b.isView()) cores = addSat(cores, mulSat<uint64_t>(b.elems, 4));
}

uint64_t ResourceEstimate::total() const {
    uint64_t t = 0;
    for (uint64_t term : {process, network, records, routing, cores, firmware, memory})
        t = addSat(t, term);
    return t;
}

std::string ResourceEstimate::describe() const {
    std::string s = fmt::format("{} (network {}: {} routers x {}", bytes(total()), bytes(network),
                                routers, bytes(per_router));
    if (records) s += fmt::format("; link records {}", bytes(records));
    if (routing) s += fmt::format("; routing tables {}", bytes(routing));
    if (cores) s += fmt::format("; cores {}: {} x {}", bytes(cores), nodes, bytes(per_core));
    if (firmware) s += fmt::format("; firmware {}", bytes(firmware));
    if (memory)
        s += fmt::format("; memory ports {}: {} x {}{}", bytes(memory), ports, bytes(per_port),
                         memory > ports * per_port ? " and the data they hold" : "");
    return s + fmt::format("; process {})", bytes(process));
}

std::string ResourceEstimate::dominantKey(const hw::ScenarioConfig& sc) const {
    const uint64_t size = network + records + cores;  // all proportional to the mesh
    const std::string mesh = sc.wafer.present ? "wafer" : "noc.topology";
    if (firmware > size && firmware >= routing && firmware >= memory) return "workload";
    if (routing > size && routing >= memory)
        return sc.noc.faults.any() ? "noc.faults" : "noc.route_limit";
    if (memory > size) {
        if (sc.workload_type != "gemm") return "workload";  // dma_stream: its cores' tensors
        return sc.hbm ? "hbm" : "core.memory.ports";
    }
    return mesh;
}

uint64_t ResourceEstimate::packetBudget(uint64_t limit) const {
    if (limit == 0 || per_packet == 0) return 0;
    return limit > total() ? std::max<uint64_t>(1, (limit - total()) / per_packet) : 1;
}

uint64_t ResourceEstimate::available() {
    std::ifstream f("/proc/meminfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("MemAvailable:", 0) == 0) {
            std::istringstream ss(line.substr(13));
            uint64_t kb = 0;
            if (ss >> kb) return kb * 1024;
        }
    return 0;
}

std::string ResourceEstimate::exceeds(const ResourceEstimate& e, uint64_t limit,
                                      const std::string& limit_source) {
    if (limit == 0 || e.total() <= limit) return "";
    return fmt::format(
        "the run needs an estimated {}, more than the {} {} (a smaller mesh or workload, or "
        "--max-memory, changes this)",
        e.describe(), bytes(limit), limit_source);
}

void ResourceEstimate::enforce(const ResourceEstimate& e, const hw::ScenarioConfig& sc,
                               uint64_t limit, const std::string& limit_source) {
    const std::string m = exceeds(e, limit, limit_source);
    if (m.empty()) return;
    const std::string key = e.dominantKey(sc);
    if (key == "workload") throw sc.workload_source.error("", m);
    throw sc.source.error(key, m);
}

}  // namespace wsc::tb
