#include "firmware/ReduceTree.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace wsc::firmware {

namespace {
uint32_t dist(uint32_t a, uint32_t b) {
    return a > b ? a - b : b - a;
}
}  // namespace

uint32_t ReduceTree::groupsFor(uint32_t n) {
    uint32_t g = 1;
    while (uint64_t(2 * g) * (2 * g) <= n) g *= 2;
    return g;
}

ReduceTree ReduceTree::kTree(uint32_t n, uint32_t k, uint32_t root) {
    if (n == 0) throw std::invalid_argument("reduce tree over zero cores");
    if (k == 0) throw std::invalid_argument("the reduce tree needs K >= 1 levels");
    if (root != kMiddle && root >= n)
        throw std::invalid_argument(
            fmt::format("reduce tree root {} is outside the line of {} cores", root, n));
    ReduceTree t;
    std::vector<uint32_t> rows(n);
    for (uint32_t i = 0; i < n; ++i) rows[i] = i;
    for (uint32_t lvl = 0; lvl < k && rows.size() > 1; ++lvl) {
        const uint32_t left = k - lvl;  // levels still to go, this one included
        uint32_t groups = 1;
        if (left > 1)
            groups =
                k == 2
                    ? groupsFor(uint32_t(rows.size()))
                    : uint32_t(std::lround(std::pow(double(rows.size()), double(left - 1) / left)));
        groups = std::clamp<uint32_t>(groups, 1, uint32_t(rows.size()));
        Level lv;
        std::vector<uint32_t> roots;
        for (uint32_t g = 0; g < groups; ++g) {
            const size_t b = rows.size() * g / groups, e = rows.size() * (g + 1) / groups;
            Group gr{std::vector<uint32_t>(rows.begin() + b, rows.begin() + e), 0};
            gr.root = uint32_t(gr.members.size() - 1) / 2;
            // The last level ends at the member nearest `root`; one more message takes the
            // sum on to `root` (below), so the groups below keep fixed roots and routes.
            if (root != kMiddle && groups == 1)
                for (uint32_t x = 0; x < gr.members.size(); ++x)
                    if (dist(gr.members[x], root) < dist(gr.rootIndex(), root)) gr.root = x;
            roots.push_back(gr.rootIndex());
            lv.push_back(std::move(gr));
        }
        t.levels_.push_back(std::move(lv));
        rows = roots;
    }
    t.root_ = rows.front();  // the last level has one group (or the line had one core)
    if (root != kMiddle && t.root_ != root) {
        Group last{{std::min(t.root_, root), std::max(t.root_, root)}, t.root_ < root ? 1u : 0u};
        t.levels_.push_back({std::move(last)});
        t.root_ = root;
    }
    return t;
}

ReduceTree ReduceTree::chain(uint32_t n, uint32_t root) {
    if (n == 0) throw std::invalid_argument("reduce chain over zero cores");
    if (root >= n)
        throw std::invalid_argument(
            fmt::format("reduce chain root {} is outside the line of {} cores", root, n));
    ReduceTree t;
    Group g;
    for (uint32_t i = 0; i < n; ++i) g.members.push_back(i);
    g.root = root;
    t.levels_.push_back({std::move(g)});
    t.root_ = root;
    return t;
}

uint32_t ReduceTree::hops() const {
    uint32_t total = 0;
    for (const Level& lv : levels_) {
        uint32_t h = 0;
        for (const Group& g : lv)
            h = std::max({h, g.rootIndex() - g.members.front(), g.members.back() - g.rootIndex()});
        total += h;
    }
    return total;
}

uint32_t ReduceTree::stages() const {
    uint32_t total = 0;
    for (const Level& lv : levels_) {
        uint32_t s = 0;
        for (const Group& g : lv)
            s = std::max({s, g.root, uint32_t(g.members.size()) - 1 - g.root});
        total += s;
    }
    return total;
}

std::string ReduceTree::describe() const {
    std::string shape;
    for (const Level& lv : levels_)
        shape += fmt::format("{}{} groups", shape.empty() ? "" : ", then ", lv.size());
    return shape;
}

}  // namespace wsc::firmware
