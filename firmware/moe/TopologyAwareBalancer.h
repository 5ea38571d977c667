#pragma once
// MoEntwine Algorithm 1 (topology-aware balancing): repeatedly take the hottest die, its expert
// with the largest load / copies (src_e), and the "cold" dies that have a free shadow slot, no
// copy of src_e and would stay below the hottest die's heat after hosting src_e; stop when there
// is none (line 6), else copy src_e from the hottest die to the nearest cold die (Manhattan hops;
// ties: lower heat, lower id) and update copies and heats. Only peak heat matters, so it stops as
// soon as the peak cannot drop, usually before the slots run out (docs/MOE.md "Balancers").
//
// "Would stay below" is ambiguous: the text says a die qualifies if its heat "would not exceed
// the current maximum after hosting this expert", line 5 reads Heat_d < Heat_hot - Load/Num
// (the copy carrying the expert's whole current per-copy load). Taken literally, line 5 never
// copies anything when a die hosts one expert (E/D = 1, the paper's EP = 256 case): then
// Heat_hot = Load/Num and no heat is below 0. SplitLoad (default) counts the copy at the load it
// will carry, Load / (Num + 1): Heat_d + Load / (Num + 1) < Heat_hot; Literal is line 5 as printed.
#include "firmware/moe/ExpertBalancer.h"

namespace wsc::firmware::moe {

class TopologyAwareBalancer : public ExpertBalancer {
  public:
    enum class ColdRule { SplitLoad, Literal };
    explicit TopologyAwareBalancer(ColdRule rule = ColdRule::SplitLoad) : rule_(rule) {}
    std::string name() const override { return "topology-aware"; }
    BalancePlan plan(const DieMesh& mesh, const ExpertPlacement& placement,
                     const std::vector<double>& expertLoad) const override;

  private:
    ColdRule rule_;
};

}  // namespace wsc::firmware::moe
