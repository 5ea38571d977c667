#pragma once
// Rank r on die r: rows of the die array filled left to right, top to bottom (TEMP's
// "sequential mapping", SMap). Consecutive ranks are neighbours inside a row, but a group that
// wraps a row end pays a long hop back.
#include "firmware/placement/Placement.h"

namespace wsc::firmware::placement {

class RowMajorPlacement : public Placement {
  public:
    std::string name() const override { return "row-major"; }
    std::vector<uint32_t> place(const plan::RankGrid& g, const DieArray& a) const override;
};

}  // namespace wsc::firmware::placement
