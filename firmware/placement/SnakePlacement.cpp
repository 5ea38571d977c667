#include "firmware/placement/SnakePlacement.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::firmware::placement {

std::vector<uint32_t> SnakePlacement::place(const plan::RankGrid& g, const DieArray& a) const {
    if (g.ranks() != a.dies())
        throw std::invalid_argument(
            fmt::format("placement snake: the plan has {} ranks, the wafer {} dies ({} x {})",
                        g.ranks(), a.dies(), a.x, a.y));
    std::vector<uint32_t> out(g.ranks());
    for (uint32_t r = 0; r < g.ranks(); ++r) {
        const uint32_t y = r / a.x, i = r % a.x;
        out[r] = a.die(y % 2 == 0 ? i : a.x - 1 - i, y);
    }
    return out;
}

}  // namespace wsc::firmware::placement
