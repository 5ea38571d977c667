#include "firmware/temp/GroupLayout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "firmware/placement/RingPlacement.h"

namespace wsc::firmware::temp {

using placement::DieArray;

std::vector<GroupLayout::Group> GroupLayout::make(const std::string& policy, uint32_t n,
                                                  const DieArray& a) {
    if (policy == "ring") return ring(n, a);
    if (policy == "tetris") return tetris(n, a);
    if (policy == "line") return line(n, a);
    if (policy.find_first_of(",;") != std::string::npos || std::isdigit(policy[0])) {
        auto g = parse(policy, a);
        for (const Group& x : g)
            if (x.size() != n)
                throw std::invalid_argument(fmt::format(
                    "groups '{}': every group must have {} dies, one has {}", policy, n, x.size()));
        return g;
    }
    throw std::invalid_argument(
        fmt::format("group layout '{}' is unknown (expected ring, line, tetris, or groups like "
                    "0,1,5,4;2,3,7,6)",
                    policy));
}

std::vector<GroupLayout::Group> GroupLayout::ring(uint32_t n, const DieArray& a) {
    if (n == 0 || a.dies() % n)
        throw std::invalid_argument(
            fmt::format("ring groups: {} dies ({} x {}) do not split into groups of {}", a.dies(),
                        a.x, a.y, n));
    auto out = placement::RingPlacement::groups(n, a);
    if (out.empty())
        throw std::invalid_argument(fmt::format(
            "ring groups: no block of {} dies with a physical ring tiles the {} x {} array (a "
            "block needs both sides at least 2 and one even); use line, tetris or an explicit "
            "list",
            n, a.x, a.y));
    return out;
}

std::vector<GroupLayout::Group> GroupLayout::tetris(uint32_t n, const DieArray& a) {
    if (n == 0 || a.dies() % n)
        throw std::invalid_argument(
            fmt::format("tetris groups: {} dies ({} x {}) do not split into groups of {}", a.dies(),
                        a.x, a.y, n));
    std::vector<Group> out;
    // Runs of the wafer's snake order (row 0 left to right, row 1 right to left, ...): every
    // run is connected, and the snake order is already a one-hop chain.
    std::vector<uint32_t> snake;
    for (uint32_t y = 0; y < a.y; ++y)
        for (uint32_t i = 0; i < a.x; ++i) snake.push_back(a.die(y % 2 ? a.x - 1 - i : i, y));
    for (uint32_t g = 0; g < a.dies() / n; ++g) {
        Group dies(snake.begin() + g * n, snake.begin() + (g + 1) * n);
        out.push_back(chainOrder(dies, a));
    }
    return out;
}

std::vector<GroupLayout::Group> GroupLayout::line(uint32_t n, const DieArray& a) {
    std::vector<Group> out;
    if (n && a.x % n == 0) {
        for (uint32_t y = 0; y < a.y; ++y)
            for (uint32_t x0 = 0; x0 < a.x; x0 += n) {
                Group g;
                for (uint32_t i = 0; i < n; ++i) g.push_back(a.die(x0 + i, y));
                out.push_back(std::move(g));
            }
        return out;
    }
    if (n && a.y % n == 0) {
        for (uint32_t x = 0; x < a.x; ++x)
            for (uint32_t y0 = 0; y0 < a.y; y0 += n) {
                Group g;
                for (uint32_t i = 0; i < n; ++i) g.push_back(a.die(x, y0 + i));
                out.push_back(std::move(g));
            }
        return out;
    }
    throw std::invalid_argument(
        fmt::format("line groups: {} divides neither the {} dies of a row nor the {} of a column",
                    n, a.x, a.y));
}

std::vector<GroupLayout::Group> GroupLayout::parse(const std::string& list, const DieArray& a) {
    std::vector<Group> out;
    std::vector<uint8_t> used(a.dies(), 0);
    std::stringstream groups(list);
    std::string part;
    while (std::getline(groups, part, ';')) {
        Group g;
        std::stringstream dies(part);
        std::string d;
        while (std::getline(dies, d, ',')) {
            // Decimal digits only (no sign, no spaces), and short enough not to overflow.
            if (d.empty() || d.size() > 9 || d.find_first_not_of("0123456789") != std::string::npos)
                throw std::invalid_argument(
                    fmt::format("groups '{}': '{}' is not a die number", list, d));
            const unsigned long v = std::stoul(d);
            if (v >= a.dies())
                throw std::invalid_argument(
                    fmt::format("groups '{}': die {} is off the {} x {} array", list, v, a.x, a.y));
            if (used[v]++)
                throw std::invalid_argument(
                    fmt::format("groups '{}': die {} is in two groups", list, v));
            g.push_back(uint32_t(v));
        }
        if (g.empty())
            throw std::invalid_argument(fmt::format("groups '{}': an empty group", list));
        out.push_back(std::move(g));
    }
    return out;
}

namespace {
// Depth-first extension of `path` to a Hamiltonian path of `dies`; with `closed`, only a path
// whose ends are neighbours counts. `budget` bounds the search.
bool extend(GroupLayout::Group& path, std::vector<uint8_t>& on, const GroupLayout::Group& dies,
            const DieArray& a, uint64_t& budget, bool closed) {
    if (path.size() == dies.size()) return !closed || a.hops(path.back(), path.front()) == 1;
    if (budget == 0) return false;
    --budget;
    for (size_t i = 0; i < dies.size(); ++i)
        if (!on[i] && a.hops(path.back(), dies[i]) == 1) {
            on[i] = 1, path.push_back(dies[i]);
            if (extend(path, on, dies, a, budget, closed)) return true;
            on[i] = 0, path.pop_back();
        }
    return false;
}
}  // namespace

GroupLayout::Group GroupLayout::chainOrder(const Group& dies, const DieArray& a) {
    // Small groups on a grid: a bounded depth-first search finds a cycle or a path fast when
    // one exists (a block, a line, an L, an S); the bound keeps a pathological shape from
    // hanging. A cycle only needs one start; a path may need any.
    if (dies.size() < 2) return dies;
    for (bool closed : {true, false}) {
        uint64_t budget = 200000;
        for (size_t s = 0; s < (closed ? 1 : dies.size()); ++s) {
            Group path{dies[s]};
            std::vector<uint8_t> on(dies.size(), 0);
            on[s] = 1;
            if (extend(path, on, dies, a, budget, closed)) return path;
        }
    }
    return dies;
}

std::vector<uint32_t> GroupLayout::chainHops(const Group& g, const DieArray& a) {
    std::vector<uint32_t> h;
    for (size_t i = 0; i + 1 < g.size(); ++i) h.push_back(a.hops(g[i], g[i + 1]));
    return h;
}

uint32_t GroupLayout::wrapHops(const Group& g, const DieArray& a) {
    return g.size() < 2 ? 0 : a.hops(g.back(), g.front());
}

}  // namespace wsc::firmware::temp
