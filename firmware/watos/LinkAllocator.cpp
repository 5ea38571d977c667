#include "firmware/watos/LinkAllocator.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

namespace wsc::firmware::watos {

uint32_t LinkAllocator::Result::movedCount() const {
    return uint32_t(std::count(moved.begin(), moved.end(), uint8_t{1}));
}

LinkAllocator::LinkAllocator(const placement::DieArray& a, Options o) : a_(a), o_(o) {
    if (a_.x == 0 || a_.y == 0) throw std::invalid_argument("link allocation: empty die array");
}

std::vector<uint32_t> LinkAllocator::xyPath(const placement::DieArray& a, uint32_t src,
                                            uint32_t dst) {
    std::vector<uint32_t> p{src};
    uint32_t x = a.dx(src), y = a.dy(src);
    const uint32_t tx = a.dx(dst), ty = a.dy(dst);
    while (x != tx) p.push_back(a.die(x = tx > x ? x + 1 : x - 1, y));
    while (y != ty) p.push_back(a.die(x, y = ty > y ? y + 1 : y - 1));
    return p;
}

uint32_t LinkAllocator::linkOf(const placement::DieArray& a, uint32_t from, uint32_t to) {
    const uint32_t fx = a.dx(from), fy = a.dy(from), tx = a.dx(to), ty = a.dy(to);
    uint32_t dir;
    if (fy == ty && tx == fx + 1)
        dir = 0;
    else if (fy == ty && tx + 1 == fx)
        dir = 1;
    else if (fx == tx && ty == fy + 1)
        dir = 2;
    else if (fx == tx && ty + 1 == fy)
        dir = 3;
    else
        throw std::invalid_argument(
            fmt::format("link allocation: dies {} and {} are not neighbours", from, to));
    return from * 4 + dir;
}

std::vector<uint32_t> LinkAllocator::choose(const Transfer& t,
                                            const std::vector<double>& load) const {
    // Over the pair's minimal paths (the dies of its bounding box, moving towards dst):
    // first the least bottleneck, max over the path's links of load + bytes (exact by a
    // min-max recursion); then, on links that stay within it, the fewest occupied links and
    // the least load summed (lexicographic and additive, so the recursion is exact too).
    const int32_t sx = int32_t(a_.dx(t.src)), sy = int32_t(a_.dy(t.src));
    const int32_t tx = int32_t(a_.dx(t.dst)), ty = int32_t(a_.dy(t.dst));
    const int32_t ix = tx >= sx ? 1 : -1, iy = ty >= sy ? 1 : -1;
    const uint32_t w = uint32_t(std::abs(tx - sx)) + 1, h = uint32_t(std::abs(ty - sy)) + 1;
    auto die = [&](uint32_t i, uint32_t j) {
        return a_.die(uint32_t(sx + ix * int32_t(i)), uint32_t(sy + iy * int32_t(j)));
    };
    // The link out of (i, j) along x (dir 0) or y (dir 1), kNoLink off the box.
    constexpr uint32_t kNoLink = ~0u;
    auto out = [&](uint32_t i, uint32_t j, int dir) {
        if (dir == 0) return i + 1 < w ? linkOf(a_, die(i, j), die(i + 1, j)) : kNoLink;
        return j + 1 < h ? linkOf(a_, die(i, j), die(i, j + 1)) : kNoLink;
    };
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> neck(size_t(w) * h, inf);
    auto at = [&](std::vector<double>& v, uint32_t i, uint32_t j) -> double& {
        return v[size_t(j) * w + i];
    };
    at(neck, w - 1, h - 1) = 0;
    for (uint32_t j = h; j-- > 0;)
        for (uint32_t i = w; i-- > 0;)
            for (int dir = 0; dir < 2; ++dir) {
                const uint32_t l = out(i, j, dir);
                if (l == kNoLink) continue;
                const double next = dir == 0 ? at(neck, i + 1, j) : at(neck, i, j + 1);
                at(neck, i, j) = std::min(at(neck, i, j), std::max(load[l] + t.bytes, next));
            }
    const double bound = at(neck, 0, 0);
    using Cost = std::pair<uint32_t, double>;  // occupied links, load summed
    const Cost none{~0u, inf};
    std::vector<Cost> go(size_t(w) * h, none);
    go[size_t(h - 1) * w + (w - 1)] = Cost{0, 0.0};
    auto step = [&](uint32_t i, uint32_t j, int dir) {
        const uint32_t l = out(i, j, dir);
        if (l == kNoLink || load[l] + t.bytes > bound) return none;
        const Cost& next = go[size_t(dir == 0 ? j : j + 1) * w + (dir == 0 ? i + 1 : i)];
        if (next == none) return none;
        return Cost{next.first + (load[l] > 0), next.second + load[l]};
    };
    for (uint32_t j = h; j-- > 0;)
        for (uint32_t i = w; i-- > 0;)
            if (i + 1 < w || j + 1 < h)
                go[size_t(j) * w + i] = std::min(step(i, j, 0), step(i, j, 1));
    std::vector<uint32_t> path{t.src};
    for (uint32_t i = 0, j = 0; i + 1 < w || j + 1 < h;) {
        // Ties take the x move: with nothing in the way the path is XY's.
        const Cost cx = step(i, j, 0), cy = step(i, j, 1);
        if (cx != none && !(cy < cx))
            ++i;
        else
            ++j;
        path.push_back(die(i, j));
    }
    return path;
}

LinkAllocator::Result LinkAllocator::allocate(const std::vector<Transfer>& transfers) const {
    // Merge by pair; keep the first appearance's order for equal sizes (a stable sort below).
    std::map<std::pair<uint32_t, uint32_t>, size_t> index;
    Result r;
    for (const Transfer& t : transfers) {
        if (t.src >= a_.dies() || t.dst >= a_.dies())
            throw std::invalid_argument(
                fmt::format("link allocation: transfer {} -> {} names a die off the {} x {} array",
                            t.src, t.dst, a_.x, a_.y));
        if (!(t.bytes >= 0))
            throw std::invalid_argument(fmt::format(
                "link allocation: transfer {} -> {} has {} bytes", t.src, t.dst, t.bytes));
        if (t.src == t.dst) continue;
        auto [it, fresh] = index.emplace(std::make_pair(t.src, t.dst), r.pairs.size());
        if (fresh)
            r.pairs.push_back(t);
        else
            r.pairs[it->second].bytes += t.bytes;
    }
    // Largest first; among equal sizes the pairs with fewer paths (straight ones have one) first,
    // so the ones that can step aside come after the ones that cannot.
    auto bends = [&](const Transfer& t) {
        return std::min(
            a_.dx(t.src) > a_.dx(t.dst) ? a_.dx(t.src) - a_.dx(t.dst) : a_.dx(t.dst) - a_.dx(t.src),
            a_.dy(t.src) > a_.dy(t.dst) ? a_.dy(t.src) - a_.dy(t.dst)
                                        : a_.dy(t.dst) - a_.dy(t.src));
    };
    std::stable_sort(r.pairs.begin(), r.pairs.end(), [&](const Transfer& a, const Transfer& b) {
        if (a.bytes != b.bytes) return a.bytes > b.bytes;
        return bends(a) < bends(b);
    });

    const size_t links = size_t(a_.dies()) * 4;
    auto charge = [&](const std::vector<uint32_t>& path, double bytes, std::vector<double>& l) {
        for (size_t i = 0; i + 1 < path.size(); ++i) l[linkOf(a_, path[i], path[i + 1])] += bytes;
    };
    auto summarise = [&](const std::vector<std::vector<uint32_t>>& paths, double& max,
                         uint32_t& shared) {
        std::vector<double> l(links, 0.0);
        std::vector<uint32_t> u(links, 0);
        for (size_t i = 0; i < paths.size(); ++i)
            for (size_t k = 0; k + 1 < paths[i].size(); ++k) {
                const uint32_t j = linkOf(a_, paths[i][k], paths[i][k + 1]);
                l[j] += r.pairs[i].bytes;
                ++u[j];
            }
        max = l.empty() ? 0 : *std::max_element(l.begin(), l.end());
        shared = uint32_t(std::count_if(u.begin(), u.end(), [](uint32_t n) { return n > 1; }));
    };
    std::vector<std::vector<uint32_t>> xy;
    for (const Transfer& t : r.pairs) xy.push_back(xyPath(a_, t.src, t.dst));

    std::vector<double> load(links, 0.0);
    std::vector<uint32_t> entries(a_.dies(), 0);
    r.paths.assign(r.pairs.size(), {});
    r.moved.assign(r.pairs.size(), 0);
    std::vector<uint8_t> limited(r.pairs.size(), 0);
    // Places pair i on its best path under `load` (the route limit permitting).
    auto place = [&](size_t i) {
        std::vector<uint32_t> path = choose(r.pairs[i], load);
        bool moved = path != xy[i];
        if (moved && o_.route_limit) {
            bool fits = true;
            for (uint32_t d : path) fits = fits && entries[d] + 1 <= o_.route_limit;
            if (!fits) path = xy[i], moved = false;
        }
        limited[i] = path == xy[i] && !moved && o_.route_limit && choose(r.pairs[i], load) != xy[i];
        if (moved)
            for (uint32_t d : path) ++entries[d];
        charge(path, r.pairs[i].bytes, load);
        r.paths[i] = std::move(path);
        r.moved[i] = moved;
    };
    for (size_t i = 0; i < r.pairs.size(); ++i) place(i);
    // Rip up and reroute: each pair in turn is taken off and placed again under everyone else's
    // load, until a pass changes nothing (greedy order alone cannot foresee the later pairs).
    for (r.passes = 1; r.passes <= Options::kMaxPasses; ++r.passes) {
        bool changed = false;
        for (size_t i = 0; i < r.pairs.size(); ++i) {
            const std::vector<uint32_t> old = r.paths[i];
            charge(old, -r.pairs[i].bytes, load);
            if (r.moved[i])
                for (uint32_t d : old) --entries[d];
            place(i);
            changed = changed || r.paths[i] != old;
        }
        if (!changed) break;
    }
    summarise(xy, r.max_link_xy, r.shared_xy);
    summarise(r.paths, r.max_link, r.shared);
    // Never hand back something worse than the routing's own paths.
    // Pair routes only for a gain: a lower busiest link, or as low with fewer shared links.
    if (!(r.max_link < r.max_link_xy || (r.max_link == r.max_link_xy && r.shared < r.shared_xy))) {
        r.paths = xy;
        r.moved.assign(r.pairs.size(), 0);
        r.kept_xy = true;
        summarise(r.paths, r.max_link, r.shared);
    }
    if (!r.kept_xy) r.kept_by_limit = uint32_t(std::count(limited.begin(), limited.end(), 1));
    return r;
}

}  // namespace wsc::firmware::watos
