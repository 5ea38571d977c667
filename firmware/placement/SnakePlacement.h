#pragma once
// Boustrophedon order: row 0 left to right, row 1 right to left, ... so consecutive ranks are
// always physical neighbours (a pipeline's stages chain without long hops); a group's ring
// still closes with a multi-hop segment unless it folds back on itself.
#include "firmware/placement/Placement.h"

namespace wsc::firmware::placement {

class SnakePlacement : public Placement {
  public:
    std::string name() const override { return "snake"; }
    std::vector<uint32_t> place(const plan::RankGrid& g, const DieArray& a) const override;
};

}  // namespace wsc::firmware::placement
