#pragma once
// A run-time load trace of one balancing policy over many iterations (MoEntwine Fig. 15): per
// iteration and MoE layer, the dies' loads under the copies in place, Eq. 2 deciding whether to
// rebalance, and the migrations a rebalance costs. Plain C++: the selections come from a
// GatingModel or an ExpertTrace; what a migration costs in time is the simulator's question
// (wsc llm infer --balancer; docs/LLM.md "Expert migration").
//
// Iteration i runs with the copies in place (none at first). After it (but the last), the trigger
// sees every layer's die loads of iteration i; when it fires, each layer's copies are planned
// afresh from the native placement and iteration i's load, and they are in place from iteration i
// + 1. The migrations are the copies the new plan adds to the old one (a copy already on its die
// stays); an invasive balancer (greedy, topo) moves them between iterations, interrupting
// inference, the non-invasive one (ni) during iteration i + 1 on the phases' cold links.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "firmware/moe/BalanceTrigger.h"
#include "firmware/moe/DieMesh.h"
#include "firmware/moe/ExpertBalancer.h"
#include "firmware/moe/MoeMapping.h"

namespace wsc::firmware::moe {

struct BalanceRunConfig {
    std::string balancer = "none";  // none, greedy, topo, ni
    uint32_t experts = 0, topK = 0, layers = 0, iterations = 0;
    uint32_t slots = 1;  // shadow slots per die
    TriggerConfig trigger;
};

struct BalanceIteration {
    std::vector<double> peak;  // per layer: max die load / mean die load
    double worstPeak = 0, meanPeak = 0;
    bool rebalanced = false;  // the trigger fired after this iteration
    uint32_t migrations = 0;  // copies moved for the next iteration
    uint32_t linkHops = 0;    // their route lengths summed
};

class BalanceRun {
  public:
    // selections(iter, layer): every token's experts. Throws std::invalid_argument for a
    // balancer name it does not know, ni without tp >= 2, or experts that do not divide over
    // the mapping's dies.
    using Selections = std::function<std::vector<std::vector<uint32_t>>(uint32_t, uint32_t)>;
    BalanceRun(const MoeMapping& mapping, const BalanceRunConfig& c, Selections sel);
    const std::vector<BalanceIteration>& run();

  private:
    MoeMapping m_;
    BalanceRunConfig c_;
    Selections sel_;
    std::unique_ptr<ExpertBalancer> bal_;
    std::vector<BalanceIteration> out_;
};

}  // namespace wsc::firmware::moe
