#pragma once
// The topology-blind greedy balancer of prior work (EPLB, FlexMoE; MoEntwine Sec. V-C): copy the
// globally hottest expert (largest load / copies) to the coldest die (least heat) that has a free
// shadow slot and does not host it, from the expert's native die, until every slot is used.
// Ties: the lower expert id, the lower die id.
#include "firmware/moe/ExpertBalancer.h"

namespace wsc::firmware::moe {

class GreedyBalancer : public ExpertBalancer {
  public:
    std::string name() const override { return "greedy"; }
    BalancePlan plan(const DieMesh& mesh, const ExpertPlacement& placement,
                     const std::vector<double>& expertLoad) const override;
};

}  // namespace wsc::firmware::moe
