#include "firmware/placement/RowMajorPlacement.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::firmware::placement {

std::vector<uint32_t> RowMajorPlacement::place(const plan::RankGrid& g, const DieArray& a) const {
    if (g.ranks() != a.dies())
        throw std::invalid_argument(
            fmt::format("placement row-major: the plan has {} ranks, the "
                        "wafer {} dies ({} x {})",
                        g.ranks(), a.dies(), a.x, a.y));
    std::vector<uint32_t> out(g.ranks());
    for (uint32_t r = 0; r < g.ranks(); ++r) out[r] = r;
    return out;
}

}  // namespace wsc::firmware::placement
