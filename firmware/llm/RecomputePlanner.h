#pragma once
// Chooses the recomputation of every pipeline stage (docs/LLM.md, "Recomputation"):
// - none: every operator keeps its saved tensors;
// - uniform (WATOS Fig. 8a's naive policy): one option for every stage, the cheapest with which
//   every stage fits its dies' memory; 1F1B's first stage holds the most micro-batches, so it
//   sizes the whole pipeline;
// - gcmr (WATOS Algorithm 2): an option per stage from Gcmr's programme over the stages, so the
//   later stages, which hold fewer micro-batches, recompute less.
//
// Options come from the menu of the model's transformer block (RecomputeBlock): every
// combination of dropped items, each with the bytes a die keeps per micro-batch and layer and a
// pre-screen estimate of the re-run's cycles (roofline of each re-run operator on the die: its
// FLOPs at the PE array's peak, or its weights, inputs and outputs at the HBM bandwidth,
// whichever is longer; fused attention moves Q, K, V and its output, not the scores); options that
// keep more and re-run no less than another are dropped. The memory of a stage under an option is
// not estimated: it is the peak of the stage's dies in the accounting build (StepBuilder::build
// without instructions) of that option. The chosen plan is then simulated cycle by cycle: the
// re-runs' real cost is in the simulated step.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "firmware/Instruction.h"
#include "firmware/llm/DieSpec.h"
#include "firmware/model/LayerGraph.h"
#include "firmware/plan/ParallelPlan.h"

namespace wsc::firmware::llm {

struct RecomputeOption {
    uint64_t mask = 0;         // RecomputeBlock mask
    uint64_t kept_bytes = 0;   // per die, micro-batch and layer: saved tensors kept
    uint64_t rerun_flops = 0;  // per die, micro-batch and layer: FLOPs re-run
    double rerun_cycles = 0;   // per die, micro-batch and layer: pre-screen estimate
    std::string name;          // the dropped items
};

class RecomputePlanner {
  public:
    enum class Policy : uint8_t { None, Uniform, Gcmr };
    // "none", "uniform", "gcmr"; throws std::invalid_argument naming the choices.
    static Policy parse(const std::string& s);
    static const char* name(Policy p);

    // The Pareto menu of the graph's transformer block under the plan, cheapest first (the
    // first option drops nothing). Throws std::invalid_argument for a model with more than one
    // kind of transformer layer (the menu is per block kind; mixed models keep everything).
    static std::vector<RecomputeOption> menu(const model::LayerGraph& g,
                                             const plan::ParallelPlan& p, const DieSpec& die,
                                             DType dtype);

    // What an accounting build of the whole model gives per stage under one mask per stage:
    // the peak memory of the stage's dies, and the busiest die's FLOPs.
    struct StageFigures {
        std::vector<uint64_t> peak;
        std::vector<uint64_t> flops;
    };
    using Accounting = std::function<StageFigures(const std::vector<uint64_t>& masks)>;

    struct Plan {
        Policy policy = Policy::None;
        bool feasible = true;
        std::vector<uint64_t> masks;     // per stage
        std::vector<std::string> names;  // per stage: the dropped items
        std::vector<uint64_t> peak;      // per stage, under the plan
        std::vector<double> est_cycles;  // per stage: pre-screen step estimate
        std::string why;                 // infeasible: which stage needs how much
    };
    // `stage_layers`: transformer layers of every stage; `micro_batches`: per step. `pooled`
    // (gcmr only, with checkpoint offload): the stages' memory need only fit the sum of their
    // dies' (Gcmr's pooled programme), less `pooled_cut` bytes; a stage above its die becomes a
    // Sender.
    static Plan plan(Policy policy, const std::vector<RecomputeOption>& menu,
                     const Accounting& account, const std::vector<uint64_t>& stage_layers,
                     uint32_t micro_batches, const DieSpec& die, bool pooled = false,
                     uint64_t pooled_cut = 0);
};

}  // namespace wsc::firmware::llm
