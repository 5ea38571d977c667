#include "firmware/placement/ExplicitPlacement.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::firmware::placement {

std::vector<uint32_t> ExplicitPlacement::place(const plan::RankGrid& g, const DieArray& a) const {
    if (dies_.size() != g.ranks())
        throw std::invalid_argument(
            fmt::format("placement list: expected one die per rank ({} ranks), got {} entries",
                        g.ranks(), dies_.size()));
    std::vector<int> owner(a.dies(), -1);
    for (uint32_t r = 0; r < dies_.size(); ++r) {
        if (dies_[r] >= a.dies())
            throw std::invalid_argument(
                fmt::format("placement list: rank {} is on die {}, but the wafer has {} dies "
                            "({} x {})",
                            r, dies_[r], a.dies(), a.x, a.y));
        if (owner[dies_[r]] >= 0)
            throw std::invalid_argument(
                fmt::format("placement list: die {} is given to rank {} and rank {}", dies_[r],
                            owner[dies_[r]], r));
        owner[dies_[r]] = int(r);
    }
    return dies_;
}

}  // namespace wsc::firmware::placement
