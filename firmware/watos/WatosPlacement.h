#pragma once
// WATOS Eq. 2 placement (PipelinePlacement) behind the LLM steps' Placement interface, so a
// `dp=1, tp=T, pp=P` plan can be placed with its Mem_pairs in mind: the pairs and the pipeline
// weights are given at construction (they come from the memory balancer, after recomputation),
// the stage and TP degrees from the plan. Plans with dp, fsdp, sp or tatp above 1 are refused:
// Eq. 2 places stages of one pipeline.
#include <string>
#include <vector>

#include "firmware/placement/Placement.h"
#include "firmware/watos/PipelinePlacement.h"

namespace wsc::firmware::watos {

class WatosPlacement : public placement::Placement {
  public:
    // comm_pp: Comm_PP per stage boundary (pp - 1 values; empty: 1 each, i.e. every boundary
    // moves the same activations, as with identical layers per stage).
    explicit WatosPlacement(std::vector<MemPair> pairs, std::vector<double> comm_pp = {},
                            PipelinePlacement::Options options = {});
    std::string name() const override { return "watos"; }
    std::vector<uint32_t> place(const plan::RankGrid& g,
                                const placement::DieArray& a) const override;
    // place() with the search's report (cost breakdown, block shape, placements scored); its
    // rank_die is indexed by the grid's rank.
    PipelinePlacement::Result placeWithReport(const plan::RankGrid& g,
                                              const placement::DieArray& a) const;

  private:
    std::vector<MemPair> pairs_;
    std::vector<double> comm_pp_;
    PipelinePlacement::Options options_;
};

}  // namespace wsc::firmware::watos
