#pragma once
// Runs the distributed GEMM workload (firmware::ShiftGemmSchedule) on cores + NoC + memory
// ports under the NocShell, checks the result against a plain reference GEMM in functional mode
// and reports per-core utilization and the stall breakdown.
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/CoreParams.h"
#include "core/CoreStats.h"
#include "firmware/GemmWorkload.h"
#include "firmware/ShiftGemmSchedule.h"
#include "hw/MemoryPorts.h"
#include "hw/MemorySystem.h"
#include "hw/Wafer.h"
#include "noc/NocParams.h"
#include "noc/NocShell.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

struct GemmRunOptions {
    nlohmann::json* stats = nullptr;      // if set, every counter is written here
    std::string firmware_dump;            // if set, the firmware text is written to this file
    std::vector<RunObserver*> observers;  // watch the run (heatmaps, core timelines, energy)
};

struct GemmResult {
    uint64_t cycles = 0;  // last cycle + 1
    uint32_t p = 0, tile_m = 0, tile_k = 0, tile_n = 0;
    bool checked = false, correct = false;
    double max_abs_error = 0;
    std::vector<float> c;         // functional mode: the computed C, row-major
    std::vector<uint32_t> cores;  // the P x P block
    std::vector<std::string> names;
    std::vector<core::CoreStats> stats;
    uint64_t peak_macs_per_cycle = 0;
    uint64_t macs = 0;
    uint64_t sram_bytes_per_core = 0;
    uint64_t evaluations = 0, memory_transactions = 0;
    double wall_seconds = 0;
    double utilization() const;  // all MACs over the block's peak for the whole run
};

class GemmTestbench {
  public:
    static GemmResult run(const noc::NocParams& np, const core::CoreParams& cp,
                          const firmware::GemmWorkload& w, noc::NocShell& shell,
                          hw::MemorySystem& mem, const GemmRunOptions& opt = {});
    // The same on a hw::Wafer: every core's DMA goes to the nearest HBM stack of its own die
    // (w.memory_over_noc: through that stack's edge router), every stack holds the operands, and
    // each C tile is read back from the stack its core wrote. Stats gain "wafer" (dies, stacks).
    static GemmResult run(hw::Wafer& wafer, const firmware::GemmWorkload& w,
                          const GemmRunOptions& opt = {});
    // The plain reference: C = A * B with the operands the run uses.
    // The firmware a run of `w` on `hw` loads, after the checks the run makes before building
    // anything (the core block fits the mesh, a tile fits a buffer, the operands fit the memory
    // port: core.memory.capacity, or one HBM stack with an hbm: section). Throws
    // std::invalid_argument. Used by the runs and by Preflight (`wsc validate`).
    static firmware::Firmware plan(const hw::HardwareConfig& hw, const firmware::GemmWorkload& w);
    static std::vector<float> reference(const firmware::GemmWorkload& w);
    static void operands(const firmware::GemmWorkload& w, std::vector<float>& a,
                         std::vector<float>& b);
    static void printReport(std::ostream& os, const firmware::GemmWorkload& w, const GemmResult& r);

  private:
    // Places the operands, runs, checks C and fills the stats: shared by both run()s.
    static GemmResult execute(const firmware::GemmWorkload& w,
                              const firmware::ShiftGemmSchedule& sched, noc::Network& net,
                              core::CoreArray& cores, noc::NocShell& shell, hw::MemoryPorts& mem,
                              const GemmRunOptions& opt);
};

}  // namespace wsc::tb
