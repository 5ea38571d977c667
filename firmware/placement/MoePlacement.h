#pragma once
// MoEntwine's mappings of the attention layer's TP groups as an LLM placement (docs/MOE.md,
// "Mappings"; the layout itself is moe::MoeMapping): `moe-baseline` gives every TP group its own
// contiguous block, `er` (ER-Mapping) entwines the groups so that each full token domain (the
// ranks sharing a tp index, one die of every group) is a compact block. A plan of dp TP groups of
// tp ranks (dp x tp = the die count, no other dimension) is placed rank g * tp + k on the die of
// rank k of group g, so the TP all-reduce rings run in the mapping's ring order and the MoE
// all-to-all of the step builder (its FTD dispatch) stays inside the mapping's FTDs. `her`
// (hierarchical ER) lays each wafer of a multi-wafer system out with ER for its share of the
// groups; the step builder then runs StepSpec::her_wafers' collectives.
#include "firmware/moe/MoeMapping.h"
#include "firmware/placement/Placement.h"

namespace wsc::firmware::placement {

class MoePlacement : public Placement {
  public:
    // wafers: hierarchical ER's wafers side by side along x (the die array's x splits evenly).
    explicit MoePlacement(moe::MappingKind kind, uint32_t wafers = 1)
        : kind_(kind), wafers_(wafers) {}
    std::string name() const override;
    std::vector<uint32_t> place(const plan::RankGrid& g, const DieArray& a) const override;
    // The mapping this placement uses for the plan and array (for FTD reports).
    moe::MoeMapping mapping(const plan::RankGrid& g, const DieArray& a) const;

  private:
    moe::MappingKind kind_;
    uint32_t wafers_ = 1;
};

}  // namespace wsc::firmware::placement
