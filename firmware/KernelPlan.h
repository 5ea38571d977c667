#pragma once
// What a kernel schedule generator hands the testbench: the firmware, where every operand block
// must sit in SRAM before the run and where the result blocks are afterwards, and the PLMR
// numbers that follow from the route geometry (WaferLLM Sec. 5.1 / 6.1 metrics).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "firmware/Firmware.h"

namespace wsc::firmware {

// Block [row0, row0 + rows) x [col0, col0 + cols) of a matrix, row-major in `buffer` of `core`
// with `stride` elements per row (0: rows are `cols` long; wider when the block is zero-padded).
struct TilePlacement {
    uint32_t core = 0;
    std::string buffer;
    uint32_t row0 = 0, col0 = 0, rows = 0, cols = 0;
    uint32_t stride = 0;
    uint32_t rowStride() const { return stride ? stride : cols; }
};

// The longest transfer of a step (or of a whole allreduce): physical hops, routing stages (1 for
// a direct route; every software forward or reduce-and-forward adds one) and its size.
struct CriticalPath {
    uint32_t hops = 0, stages = 0;
    uint64_t bytes = 0;
    // The stages as (source core, destination core), in order: a zero-load estimate sums the
    // network's latency over them, so die-to-die and FEC hops count as what they cost
    // (RoutePlanner::zeroLoadCycles). Empty when a schedule does not say.
    std::vector<std::pair<uint32_t, uint32_t>> legs;
};

struct KernelPlan {
    std::string algo;
    Firmware fw;
    // a: left operand (GEMM A[m x k], GEMV x[1 x k]); b: right operand [k x n]; c: result
    // [m x n]. A result block may be listed on several cores (a broadcast GEMV): all must match.
    std::vector<TilePlacement> a, b, c;
    uint32_t steps = 0;            // compute-shift / broadcast steps, or allreduce phases
    CriticalPath step_path;        // the worst step's critical path
    CriticalPath total_path;       // summed over the run's communication phases
    uint64_t useful_macs = 0;      // m * k * n
    uint32_t routes_per_core = 0;  // most route entries any router holds after installation
    uint32_t direct_routes = 0, relayed_paths = 0, rejected_multicasts = 0;
    std::vector<uint32_t> cores;  // the cores that take part
    std::string notes;            // how the schedule met (or missed) its constraints
    // Kernels that make their own operands (decode attention): values written into buffers
    // before the run, and values expected in buffers afterwards, within `tolerance` (absolute).
    // Empty for GEMM and GEMV, whose A and B the testbench draws and whose C it checks exactly.
    struct Values {
        uint32_t core = 0;
        std::string buffer;
        std::vector<float> v;
    };
    std::vector<Values> preset, expect;
    double tolerance = 0;
    // A composed program's operations in program order ("norm1", "qkv", ...; names repeat per
    // layer) and, for operation k and core c of `cores` (same order), the pc where it starts:
    // phase_starts[k * cores.size() + c]. Empty for a single kernel.
    std::vector<std::string> phases;
    std::vector<uint32_t> phase_starts;
    // Operation `name` starts where every core's program (one stream) is now.
    void beginPhase(const std::string& name) {
        phases.push_back(name);
        for (uint32_t c : cores) phase_starts.push_back(fw.program(c).streamSize(0));
    }
};

}  // namespace wsc::firmware
