#pragma once
// Runs one WaferLLM kernel (GEMM: meshgemm, cannon, summa, allgather; GEMV: meshgemv, pipeline,
// ring) on a P x P core mesh: builds the NoC and cores, lets the schedule lay its routes, places
// the operand blocks straight into SRAM (the kernel is measured with its data resident, as
// WaferLLM's Figs. 9-10 are), steps cores and NoC to the end and reports the PLMR metrics,
// cycles, compute efficiency and the compute / exposed-communication split; in functional mode
// it checks the result against a plain reference. Energy is counted on every run (the cores'
// MACs, vector elements and SRAM bytes, every link's bits) and priced by hw::EnergyModel, as for
// `wsc run`; observers (heatmap, Perfetto, RunOutputs) watch the run only when given.
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/CoreParams.h"
#include "firmware/KernelPlan.h"
#include "firmware/waferllm/DecodeLayerSchedule.h"
#include "hw/EnergyEvents.h"
#include "hw/EnergyParams.h"
#include "hw/EnergyReport.h"
#include "noc/NocParams.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

struct KernelSpec {
    // gemm | gemv | attention (decode, one KV head: algo shift|concat) | decode (one token through
    // `layers` dense layers of `layer`'s shape: algo shift|concat) | prefill (a `prompt` through
    // them on P x P: algo meshgemm) | kv-replace (the prompt's KV cache from the prefill's layout
    // to the decode's on P x Q: algo shift|concat, the decode's cache policy) | weight-replace
    // (the weights likewise: algo shift)
    std::string op = "gemm";
    std::string algo = "meshgemm";
    uint32_t p = 4;
    uint32_t q = 0;                   // mesh columns: a P x Q mesh (not meshgemm-t); 0: P x P
    uint32_t m = 64, k = 64, n = 64;  // gemv: m = 1
    uint32_t tree_k = 2;              // meshgemv levels
    bool broadcast = false;           // gemv: multicast the result back to the column
    bool shift_align = false;         // meshgemm/cannon: align by messages instead of placement
    bool unroll = false;  // run the straight-line form of the firmware (firmware::LoopUnroller)
    bool functional = true;
    uint64_t seed = 1;
    bool progress = false;  // progress line on stderr (after 2 s of wall time)
    // attention: k = head dim, m = query heads per KV head; the cache after `prompt` prompt
    // tokens and `generated` decoded ones (the step decodes the next); each core's SRAM.
    uint64_t prompt = 0, generated = 0;
    uint64_t sram_bytes = 0;
    firmware::waferllm::LayerShape layer;  // decode, prefill, kv-replace, weight-replace
    bool product_attention = false;        // prefill: attention as one product over E
    uint32_t layers = 1;
    uint32_t model_layers = 0;  // decode: the model's layers (the report's token rate), 0: none
    // decode, functional: the weights, cache and input to use (null: drawn for this step alone);
    // a caller that keeps it across steps (DecodeModelData::advance) decodes a sequence.
    const firmware::waferllm::DecodeModelData* decode_data = nullptr;
};

struct KernelRunOptions {
    hw::EnergyParams energy;  // the config's energy: section (NoC energies come with the NocParams)
    // Watch the run (RunOutputs::observers()); none: the plain CoreArray::run loop.
    std::vector<RunObserver*> observers;
    // Filled with every counter: "kernel" (the report's numbers), "cores" (per-core CoreStats),
    // "noc" (every router, link and NI).
    nlohmann::json* stats = nullptr;
    // Writes the firmware the run loads in the text form (firmware::ProgramText) to this file.
    std::string firmware_text;
};

struct KernelResult {
    KernelSpec spec;
    std::string notes;
    uint64_t cycles = 0;
    bool checked = false, correct = false;
    double max_abs_error = 0;
    uint64_t macs = 0, useful_macs = 0, peak_macs_per_cycle = 0;
    double efficiency = 0;        // useful MACs / (P^2 * peak * cycles)
    uint64_t compute_cycles = 0;  // PE + vector busy cycles of the busiest core
    uint64_t exposed_comm = 0;    // cycles - compute_cycles
    uint32_t routes_per_core = 0, direct_routes = 0, relayed_paths = 0, rejected_multicasts = 0;
    uint32_t steps = 0;
    firmware::CriticalPath step_path, total_path;
    uint64_t step_path_cycles = 0;  // zero-load estimate of the worst step's critical path
    uint64_t sram_bytes = 0;  // most SRAM any core uses at once: buffers + early arrivals held
    uint64_t sram_buffer_bytes = 0;  // most SRAM any core's buffers take
    uint64_t relays = 0, relay_cycles = 0;
    // Program memory of the largest program among the kernel's cores (Program::codeBytes).
    uint64_t program_instructions = 0, program_bytes = 0;
    uint64_t evaluations = 0;
    hw::EnergyEvents events;  // counted over every core and link of the mesh
    hw::EnergyReport energy;  // events x the configured energies (hw::EnergyModel)
    double wall_seconds = 0;
    double clock_hz = 0;  // the NoC's (and cores') clock
    // A composed kernel (decode): cycles per operation, adding up to `cycles` (PhaseSplit).
    std::vector<std::pair<std::string, uint64_t>> phase_cycles;
};

class KernelTestbench {
  public:
    // The algorithms --compare runs (all compute C = A x B, or y = x W).
    static const std::vector<std::string>& algorithms(const std::string& op);
    // Those plus the transposed GEMM "meshgemm-t" (C = A x B^T, B stored [n x k]), which
    // --compare leaves out because it computes a different product.
    static bool known(const std::string& op, const std::string& algo);
    static bool transB(const KernelSpec& s);
    static uint32_t cols(const KernelSpec& s) { return s.q ? s.q : s.p; }
    static std::string meshName(const KernelSpec& s);  // "P" or "PxQ"
    // Throws std::invalid_argument on an unknown op/algorithm or a shape the mesh cannot take.
    static KernelResult run(const noc::NocParams& np, const core::CoreParams& cp,
                            const KernelSpec& s, const KernelRunOptions& opt = {});
    // The NoC a kernel runs on: the config's routers and links on a P x Q mesh (no faults, no
    // RTL routers); on a config of several dies the whole dies the block covers, from the top
    // left, with their D2D links (refused if the block is larger than the wafer).
    static noc::NocParams meshNoc(const noc::NocParams& np, const KernelSpec& s);
    // The schedule alone, with its routes laid on a fresh P x P network (route geometry checks).
    static firmware::KernelPlan plan(const noc::NocParams& np, const KernelSpec& s);
    // Zero-load cycles of a critical path on `net`: every stage a whole message of `bytes` on
    // the actual links (D2D and FEC included; noc::ZeroLoadModel), every stage after the first
    // a software forward (relay cost).
    static uint64_t pathCycles(const noc::Network& net, const core::CoreParams& cp,
                               const firmware::CriticalPath& p);
    static void printReport(std::ostream& os, const KernelResult& r);
    static void printTableHeader(std::ostream& os);
    static void printTableRow(std::ostream& os, const KernelResult& r);
    // Peak resident set of this process (kB), from /proc/self/status; 0 where unavailable.
    static uint64_t peakRssKb();
};

}  // namespace wsc::tb
