#pragma once
// A placement given as a list: entry r is the die of rank r (from a scenario file's
// `placement:` list). Checked to be a permutation of the die array.
#include "firmware/placement/Placement.h"

namespace wsc::firmware::placement {

class ExplicitPlacement : public Placement {
  public:
    explicit ExplicitPlacement(std::vector<uint32_t> dies) : dies_(std::move(dies)) {}
    std::string name() const override { return "explicit"; }
    std::vector<uint32_t> place(const plan::RankGrid& g, const DieArray& a) const override;

  private:
    std::vector<uint32_t> dies_;
};

}  // namespace wsc::firmware::placement
