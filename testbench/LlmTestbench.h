#pragma once
// Runs one LLM step (a training step, or inference: prefill and decode) of a model under a
// parallel plan and a placement on a die-level wafer, cycle by cycle: firmware::llm::StepBuilder
// makes every die's instruction streams, hw::Wafer runs them on the NoC (D2D links) with each
// die's DMA interleaved over its HBM stacks (the cycle-level HBM3 controllers, or the
// latency/bandwidth model of the same stacks), and the step is composed from builds of 1 and 2
// layers per pipeline stage (or simulated whole with `full`): docs/LLM.md, "Composition".
// Reports step time, throughput, model FLOPs utilisation, compute against exposed
// communication per collective kind, memory per die, energy.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "firmware/llm/MemoryLedger.h"
#include "firmware/llm/RecomputePlanner.h"
#include "firmware/llm/RoutingSource.h"
#include "firmware/llm/StepBuilder.h"
#include "firmware/model/ModelConfig.h"
#include "firmware/placement/TcmePlacement.h"
#include "firmware/plan/ParallelPlan.h"
#include "firmware/temp/TrafficMap.h"
#include "firmware/watos/OffloadPlanner.h"
#include "hw/EnergyEvents.h"
#include "hw/EnergyReport.h"
#include "hw/HardwareConfig.h"
#include "hw/Wafer.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

struct LlmSpec {
    bool train = true;  // false: inference (prefill of `seq` tokens, then `generate` decodes)
    firmware::model::ModelConfig model;
    firmware::plan::ParallelPlan plan;
    std::string placement = "ring";        // a Placement::byName policy, or "list"
    std::vector<uint32_t> placement_list;  // placement "list": the die of every rank
    uint64_t batch = 1, seq = 1;
    uint64_t generate = 0;  // inference: tokens decoded after the prefill
    firmware::DType dtype = firmware::DType::FP16;
    bool full = false;         // simulate every layer instead of composing from 1 and 2 per stage
    bool memory_only = false;  // the whole step's ledger (and recomputation) only: no simulation
    uint64_t seed = 1;
    firmware::llm::RoutingOptions routing;  // inference with ep > 1: skewed or traced routing
    // Training: activation recomputation per stage (docs/LLM.md, "Recomputation").
    firmware::llm::RecomputePlanner::Policy recompute =
        firmware::llm::RecomputePlanner::Policy::None;
    // Training: checkpoint offload from stages over their dies' memory to stages with room
    // (WATOS's memory scheduler; docs/LLM.md, "Checkpoint offload"). With recompute gcmr the
    // programme pools the stages' memory. Simulates every layer (no composition).
    bool offload = false;
    // Inference: overlapped micro-batches (StepSpec::overlap, MoEntwine Fig. 11e).
    bool overlap = false;
    // Placement tcme: reroute (source, destination) pairs onto Y-first paths where that lowers
    // the busiest link (installed as the network's pair routes; docs/TEMP.md, "TCME").
    bool tcme_reroute = true;
    // Placement tcme: judge TATP beside TP or SP by bytes per link (TcmePlacement::bytesPerFlow)
    // instead of flows per (round, link).
    bool tcme_bytes = false;
    // Training with pp > 1: WATOS's PP-engine link allocation (Fig. 13) for the inter-stage
    // transfers (pipeline and offload pairs), installed as the network's pair routes
    // (firmware/watos/LinkAllocator; docs/LLM.md, "Inter-stage links"). False: the routing's paths.
    bool pp_links = false;
};

// One simulated build (a number of layers per stage, one phase).
struct LlmRun {
    std::string phase;    // "train", "prefill", "decode@4096"
    uint64_t layers = 0;  // per stage
    uint64_t cycles = 0;
    uint32_t critical_die = 0;  // the die that finished last
    // Cycles the critical die's compute stream waited for each kind of communication.
    std::map<std::string, uint64_t> exposed;
    // Cycles from first to last instruction of every collective of a kind, summed over its
    // instances on the critical die (how long that communication ran, hidden or not).
    std::map<std::string, uint64_t> comm;
    uint64_t compute_busy = 0;        // critical die: PE array + vector unit busy cycles
    uint64_t hbm_bytes = 0;           // all dies
    uint64_t hbm_bytes_critical = 0;  // the critical die's DMA bytes (HBM reads and writes)
    std::map<std::string, uint64_t> hbm_by_op;  // the critical die's compute lowering, by op
    // Every collective and transfer instance of the run: die, kind, label, first and last cycle
    // of its instructions (the Perfetto trace's per-collective tracks).
    struct CommSpan {
        uint32_t die;
        std::string kind, label;
        uint64_t begin, end;
    };
    std::vector<CommSpan> comm_spans;
    hw::EnergyEvents events;
    uint64_t model_flops = 0;
    double wall_seconds = 0;
    uint64_t flits = 0;
    // Receive-buffer pressure over all dies: flits an ejection port refused because a message
    // arrived before its receive and the die's core.rx_buffer was full, and the largest
    // number of bytes any die held there.
    uint64_t rx_refusals = 0, rx_held_peak = 0;
    uint64_t pair_route_flits = 0;  // flits the network sent on TCME's pair routes
};

// A phase of the step composed to the whole model from its runs.
struct LlmPhase {
    std::string name;
    double cycles = 0;
    std::map<std::string, double> exposed, comm;
    double compute_busy = 0;
    double model_flops = 0;
    double hbm_bytes = 0;                     // the critical die's HBM traffic
    std::map<std::string, double> hbm_by_op;  // of it, the compute lowering's by operator
    hw::EnergyEvents events;                  // composed counts
    hw::EnergyReport energy;
};

struct LlmResult {
    LlmSpec spec;
    std::string placement;
    std::vector<uint32_t> rank_die;
    std::vector<LlmRun> runs;
    std::vector<LlmPhase> phases;  // train; or prefill and decode
    double clock_hz = 0;
    uint64_t dies = 0, peak_flops_per_cycle = 0;  // per die
    double hbm_bytes_per_cycle = 0;               // per die, what the step builder assumes
    uint64_t step_tokens = 0;
    // Memory of the whole model (ledger of a full build; every die).
    uint64_t hbm_capacity = 0;
    std::vector<uint64_t> peak;
    std::vector<firmware::llm::MemoryLedger::Breakdown> at_peak;
    uint64_t sram_max = 0, sram_capacity = 0;
    std::string composition;  // the rule used, for the report
    // Recomputation chosen per stage (empty without): the dropped items, the stage's peak.
    firmware::llm::RecomputePlanner::Plan recompute;
    // Checkpoint offload (empty spec without), and how the plan was reached.
    firmware::watos::OffloadPlanner::Plan offload;
    std::string offload_note;
    std::string mapping;  // placement tcme: TATP link loads before and after TCME
    // Placement tcme: the pairs rerouted (dies; every unicast from src to dst follows `path`).
    std::vector<firmware::temp::TrafficMap::PairRoute> pair_routes;
    std::string routing;  // expert routing: the source, balancer and rows per die
    double wall_seconds = 0;
    uint64_t peak_rss_kb = 0;

    double seconds(const LlmPhase& p) const { return p.cycles / clock_hz; }
    double stepSeconds() const;
    double tokensPerSecond() const;  // train / prefill tokens; decode: generated tokens
    double mfu() const;              // model FLOPs / (dies x peak x time), train and prefill
};

struct LlmRunOptions {
    hw::EnergyParams energy;
    nlohmann::json* stats = nullptr;
    std::vector<RunObserver*> observers;  // attached to the last (largest) run of each phase
    bool progress = false;
};

class LlmTestbench {
  public:
    // The wafer must be built from the same hardware config (its memory target decides the
    // memory fidelity). Throws std::invalid_argument for bad plans/placements (exit 2),
    // firmware::llm::OutOfMemoryError when the plan does not fit (exit 2).
    static LlmResult run(hw::Wafer& wafer, const LlmSpec& spec, const LlmRunOptions& opt = {});
    // Every check a run makes before simulating (die-level hardware, the plan against the wafer,
    // the batch, the model, the whole step's memory): std::invalid_argument or
    // firmware::llm::OutOfMemoryError. `wsc validate` and `wsc run` call it first.
    static void check(const hw::HardwareConfig& hw, const LlmSpec& spec);
    // The numbers a step builder needs, from the hardware config.
    static firmware::llm::DieSpec dieSpec(const hw::HardwareConfig& hw);
    static void printReport(std::ostream& os, const LlmResult& r);
    static void printCompareHeader(std::ostream& os);
    static void printCompareRow(std::ostream& os, const LlmResult& r);
    static void toJson(const LlmResult& r, nlohmann::json& out);

    // The placement a run of `spec` uses (and, for tcme, TCME's report and pair routes).
    struct Placed {
        firmware::placement::DieArray dies;
        std::vector<uint32_t> rank_die;
        // Placement tcme: what TCME saw and did (its pair routes too), and whether reroutes
        // were allowed (XY routing on an intact network).
        firmware::placement::TcmePlacement::Report tcme;
        bool tcme_xy = false;
    };
    static Placed place(const hw::HardwareConfig& hw, const LlmSpec& spec);
};

}  // namespace wsc::tb
