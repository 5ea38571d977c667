#include "firmware/placement/RingPlacement.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "firmware/placement/SnakePlacement.h"

namespace wsc::firmware::placement {

std::vector<uint32_t> RingPlacement::cycle(uint32_t w, uint32_t h) {
    std::vector<uint32_t> out;
    if (w * h <= 2 || w == 1 || h == 1) {
        // A line: 1 or 2 cells form a ring; a longer line does not (checked by the caller).
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x) out.push_back(x + w * y);
        return out;
    }
    const bool transpose = h % 2 != 0;  // build on an even number of rows
    const uint32_t W = transpose ? h : w, H = transpose ? w : h;
    auto cell = [&](uint32_t x, uint32_t y) { return transpose ? y + w * x : x + w * y; };
    // Down column 0, then snake back up through columns 1..W-1; H even ends next to (0, 0).
    for (uint32_t y = 0; y < H; ++y) out.push_back(cell(0, y));
    for (uint32_t k = 0; k < H; ++k) {
        const uint32_t y = H - 1 - k;
        if (k % 2 == 0)
            for (uint32_t x = 1; x < W; ++x) out.push_back(cell(x, y));
        else
            for (uint32_t x = W - 1; x >= 1; --x) out.push_back(cell(x, y));
    }
    return out;
}

std::vector<std::vector<uint32_t>> RingPlacement::groups(uint32_t n, const DieArray& a) {
    uint32_t bw = 0, bh = 0, best = std::numeric_limits<uint32_t>::max();
    for (uint32_t w = 1; n && w <= n; ++w) {
        if (n % w) continue;
        const uint32_t h = n / w;
        if (a.x % w || a.y % h) continue;
        if (n > 2 && (w == 1 || h == 1 || (w % 2 && h % 2))) continue;
        const uint32_t perim = w + h;
        if (perim < best || (perim == best && w > bw)) best = perim, bw = w, bh = h;
    }
    std::vector<std::vector<uint32_t>> out;
    if (!bw) return out;
    const std::vector<uint32_t> cyc = cycle(bw, bh);
    const uint32_t blocks_x = a.x / bw;
    for (uint32_t group = 0; group < a.dies() / n; ++group) {
        const uint32_t by = group / blocks_x, i = group % blocks_x;
        const uint32_t bx = by % 2 == 0 ? i : blocks_x - 1 - i;  // snake over blocks
        std::vector<uint32_t> g;
        for (uint32_t c : cyc) g.push_back(a.die(bx * bw + c % bw, by * bh + c / bw));
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<uint32_t> RingPlacement::place(const plan::RankGrid& g, const DieArray& a) const {
    using plan::Dim;
    if (along_) {
        // Asked for by name: a dimension the plan does not split has no rings to lay.
        if (g.size(*along_) < 2)
            throw std::invalid_argument(
                fmt::format("placement {}: the plan has {} = 1, so there are no {} rings to lay",
                            name(), plan::dimName(*along_), plan::dimName(*along_)));
        return placeAlong(g, a, *along_);
    }
    for (Dim d : {Dim::TP, Dim::TATP, Dim::SP, Dim::FSDP, Dim::DP})
        if (g.size(d) > 1) return placeAlong(g, a, d);
    return SnakePlacement().place(g, a);
}

std::vector<uint32_t> RingPlacement::placeAlong(const plan::RankGrid& g, const DieArray& a,
                                                plan::Dim d) {
    if (g.ranks() != a.dies())
        throw std::invalid_argument(
            fmt::format("placement ring: the plan has {} ranks, the wafer {} dies ({} x {})",
                        g.ranks(), a.dies(), a.x, a.y));
    if (d == plan::Dim::PP)
        throw std::invalid_argument(
            "placement ring: rings are laid along tp, tatp, sp, fsdp or dp");
    const uint32_t n = g.size(d);
    if (n == 1) return SnakePlacement().place(g, a);
    const auto groups = RingPlacement::groups(n, a);
    if (groups.empty())
        throw std::invalid_argument(fmt::format(
            "placement ring: no block of {} dies ({} groups of {}) tiles the {} x {} die array "
            "with a physical ring (a block needs one even side and must divide the array); try "
            "--placement snake or row-major",
            n, plan::dimName(d), n, a.x, a.y));
    // Group index: the rank with its d coordinate removed, the other coordinates keeping their
    // rank order, so the next group (a neighbouring block) differs in the next dimension out.
    uint32_t stride = 1;  // ranks between consecutive d coordinates
    for (plan::Dim e : {plan::Dim::TP, plan::Dim::TATP, plan::Dim::SP, plan::Dim::FSDP}) {
        if (e == d) break;
        stride *= g.size(e);
    }
    std::vector<uint32_t> out(g.ranks());
    for (uint32_t r = 0; r < g.ranks(); ++r) {
        const uint32_t k = (r / stride) % n;
        out[r] = groups[r % stride + (r / (stride * n)) * stride][k];
    }
    return out;
}

}  // namespace wsc::firmware::placement
