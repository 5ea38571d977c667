#pragma once
// MoEntwine Algorithm 1 (topology-aware balancing): repeatedly take the hottest die, its expert
// with the largest load / copies (src_e), and the dies whose heat stays below the hottest die's
// after hosting src_e at its current per-copy load (line 5: Heat_d < Heat_hot - Load/Num) and
// that have a free shadow slot and no copy of src_e; stop when there is none (line 6), else copy
// src_e from the hottest die to the nearest of them (Manhattan hops; ties: lower heat, lower id)
// and update copies and heats. Only peak heat matters, so it stops as soon as the peak cannot
// drop, usually long before the slots run out (docs/MOE.md "Balancers").
#include "firmware/moe/ExpertBalancer.h"

namespace wsc::firmware::moe {

class TopologyAwareBalancer : public ExpertBalancer {
  public:
    std::string name() const override { return "topology-aware"; }
    BalancePlan plan(const DieMesh& mesh, const ExpertPlacement& placement,
                     const std::vector<double>& expertLoad) const override;
};

}  // namespace wsc::firmware::moe
