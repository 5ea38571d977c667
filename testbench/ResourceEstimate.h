#pragma once
// Memory a run will take, estimated from the config before anything of
// its size is built, so that a config that would exhaust the machine (a 65535 x 64 mesh, R^2
// fault-routing tables, a memory port per core each holding the operands) is refused at once
// with the estimate instead of failing in std::bad_alloc minutes later (issue 13).
//
// The per-router and per-core costs are measured, not guessed: the same router, VC, buffer, link
// and core parameters are built on an 8x8 and a 16x16 probe mesh and the heap difference divided
// by the 192 extra routers (and the same for the run's per-link records and a queued packet).
// Memory ports are SystemC modules the probe cannot build (a process elaborates once), so their
// cost is a constant measured by test_resource_estimate. docs/RELIABILITY.md gives the formula
// and compares estimates with measured peak RSS.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "hw/ScenarioConfig.h"

namespace wsc::firmware {
class Firmware;
}

namespace wsc::tb {

// A run that would pass its memory budget while running (traffic source queues beyond
// saturation): exit 2 like the estimate's refusal.
class ResourceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct ResourceEstimate {
    // Bytes, by what holds them.
    uint64_t process = 0;   // resident before building: binary, libraries, SystemC, the config
    uint64_t network = 0;   // routers, VC buffers, links, NIs (probe)
    uint64_t records = 0;   // the run's per-link records (LinkRecorder phases, probe)
    uint64_t routing = 0;   // fault-routing and route tables (closed form)
    uint64_t cores = 0;     // core models (probe) and their functional SRAM
    uint64_t firmware = 0;  // the planned programs (measured while planning)
    uint64_t memory = 0;    // memory port modules and the functional memory they hold
    // Unit costs the terms were formed from.
    uint64_t per_router = 0, per_core = 0, per_port = 0;
    uint64_t per_packet = 0;  // a queued packet: traffic source queues grow beyond saturation
    uint64_t routers = 0, nodes = 0, ports = 0;

    uint64_t total() const;  // saturating: never wraps below a term
    // "1.2 GB (network 1.1 GB: 65536 routers x 17.0 KB; ...)"
    std::string describe() const;
    // The config key the largest term comes from, relative to the hardware section (or
    // "workload" for the firmware): where a refusal points.
    std::string dominantKey(const hw::ScenarioConfig& sc) const;

    // Every term but the firmware's, before any network of the config's size is built.
    static ResourceEstimate of(const hw::ScenarioConfig& sc);
    // Adds a gemm or dma_stream workload: `fw_heap` bytes its planned firmware took (heapBytes()
    // around the planning) and, functional, 4 B per buffer element in SRAM.
    void addWorkload(const hw::ScenarioConfig& sc, const firmware::Firmware& fw, uint64_t fw_heap);

    // The default budget: a fraction of MemAvailable (0 when unknown = no limit); the rest is
    // left for what the estimate does not see (queues and statistics that grow while running)
    // and for the other processes of the machine.
    static constexpr double kAvailableFraction = 0.8;
    static uint64_t available();  // MemAvailable in /proc/meminfo (0 when unknown)
    // Throws the config's hw::ConfigError (exit 2) at dominantKey() when `e` exceeds `limit`
    // bytes (0 = no limit); `limit_source` says where the limit came from.
    static void enforce(const ResourceEstimate& e, const hw::ScenarioConfig& sc, uint64_t limit,
                        const std::string& limit_source);
    // The refusal's text when `e` exceeds `limit` (0 = no limit), else "".
    static std::string exceeds(const ResourceEstimate& e, uint64_t limit,
                               const std::string& limit_source);

    // Bytes the allocator has handed out now (glibc mallinfo2, or the sanitizer allocator's
    // count in an ASan build, where glibc's arena is not used).
    static uint64_t heapBytes();
    static uint64_t heapSince(uint64_t before);  // heapBytes() - before, 0 when it shrank
    // Resident bytes of this process now (VmRSS; 0 when unknown).
    static uint64_t residentBytes();
    static std::string bytes(uint64_t b);  // "12.3 MB"
    // Queued packets a traffic run may hold within `limit` bytes beside this estimate (0 = no
    // cap, when the limit or the per-packet cost is unknown).
    uint64_t packetBudget(uint64_t limit) const;

    // A memory port (hw::MemoryStack: bridge and simple memory, three SystemC modules) and an HBM
    // stack (bridge and controller: a fixed part and a part per pseudo-channel), as measured by
    // test_resource_estimate.
    static constexpr uint64_t kSimplePortBytes = 20 * 1024;
    static constexpr uint64_t kHbmStackBytes = 436 * 1024;
    static constexpr uint64_t kHbmBytesPerPseudoChannel = 10600;
    static uint64_t hbmStackBytes(const dram::HbmParams& h) {
        return kHbmStackBytes + kHbmBytesPerPseudoChannel * h.pseudoChannelCount();
    }
};

}  // namespace wsc::tb
