#pragma once
// Where a simulated MoE step's expert selections come from (docs/LLM.md, "Expert routing"): a
// seeded gating model or a trace file (firmware/moe), one iteration of it, and optionally a
// balancer's copies of hot experts placed from the previous iteration's load. Produces the
// StepSpec::routing of every phase.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "firmware/llm/ExpertRouter.h"
#include "firmware/model/ModelConfig.h"
#include "firmware/moe/ExpertTrace.h"
#include "firmware/moe/GatingModel.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/ParallelPlan.h"

namespace wsc::firmware::llm {

struct RoutingOptions {
    enum class Source { None, Gating, Trace };
    Source source = Source::None;
    // Gating: kind, seed and the popularity knobs (experts, top-k, layers and tokens are the
    // model's and the step's).
    moe::GatingConfig gating;
    std::string trace;       // a JSON Lines trace (docs/MOE.md "Trace format")
    uint32_t iteration = 0;  // the iteration simulated
    // none, greedy, topo, ni: copies placed from iteration - 1's load; their migrations are
    // traffic of the step (ExpertRouting::migrations).
    std::string balancer = "none";
    uint32_t slots = 1;   // shadow slots per die for the balancer
    std::string mapping;  // the placement's name: ni needs er or moe-baseline
    bool migrate = true;  // false: the copies are placed, their migrations not simulated
};

class RoutingSource {
  public:
    // Throws std::invalid_argument (trace errors as moe::TraceError) when the source does not
    // fit the model or the plan: experts or top-k differ, the iteration is missing, a balancer
    // without a previous iteration, or a plan the balancer cannot place on (pp > 1, or ep not
    // over the whole stage). `tokens`: the step's (prefill) tokens, at which the gating model
    // draws the previous iteration whose load the balancer places copies for.
    RoutingSource(const RoutingOptions& o, const model::ModelConfig& m, const plan::ParallelPlan& p,
                  const std::vector<uint32_t>& rank_die, const placement::DieArray& dies,
                  uint64_t tokens);

    bool enabled() const { return o_.source != RoutingOptions::Source::None; }
    uint32_t moeLayers() const { return moe_layers_; }
    // The routing of a phase of T tokens (prefill: batch x seq; decode: batch). A trace fixes
    // T: any other count is refused, naming both.
    // The balancer's migrations ride on the iteration's prefill (`prefill`); a decode token of
    // the same iteration finds the copies in place and carries none.
    std::shared_ptr<const ExpertRouting> forTokens(uint64_t T, bool prefill = true) const;
    // One line for the report: the source, and the balancer's effect when there is one.
    const std::string& describe() const { return text_; }

  private:
    std::vector<std::vector<std::vector<uint32_t>>> selections(uint32_t iter, uint64_t T) const;
    RoutingOptions o_;
    model::ModelConfig m_;
    plan::ParallelPlan p_;
    std::vector<uint32_t> rank_die_;
    placement::DieArray dies_;
    uint32_t moe_layers_ = 0;
    std::unique_ptr<moe::ExpertTrace> trace_;
    std::vector<std::vector<std::vector<uint32_t>>> hosts_;  // per MoE layer, per expert
    std::string text_;
    std::vector<MigrationTransfer> migrations_;
};

}  // namespace wsc::firmware::llm
