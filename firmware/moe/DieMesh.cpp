#include "firmware/moe/DieMesh.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::firmware::moe {

DieMesh::DieMesh(uint32_t cols, uint32_t rows) : cols_(cols), rows_(rows) {
    if (cols == 0 || rows == 0)
        throw std::invalid_argument(
            fmt::format("die mesh {} x {}: needs at least one die", cols, rows));
}

uint32_t DieMesh::hops(uint32_t a, uint32_t b) const {
    const int dx = int(x(a)) - int(x(b)), dy = int(y(a)) - int(y(b));
    return uint32_t((dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy));
}

std::vector<Link> DieMesh::xyRoute(uint32_t a, uint32_t b) const {
    std::vector<Link> out;
    uint32_t cx = x(a), cy = y(a);
    const uint32_t tx = x(b), ty = y(b);
    while (cx != tx) {
        const uint32_t nx = cx < tx ? cx + 1 : cx - 1;
        out.push_back({id(cx, cy), id(nx, cy)});
        cx = nx;
    }
    while (cy != ty) {
        const uint32_t ny = cy < ty ? cy + 1 : cy - 1;
        out.push_back({id(cx, cy), id(cx, ny)});
        cy = ny;
    }
    return out;
}

uint32_t DieMesh::linkIndex(const Link& l) const {
    const uint32_t fx = x(l.from), fy = y(l.from), tx = x(l.to), ty = y(l.to);
    if (l.from < dies() && l.to < dies() && hops(l.from, l.to) == 1) {
        if (tx == fx + 1) return l.from * 4 + 0;
        if (tx + 1 == fx) return l.from * 4 + 1;
        if (ty == fy + 1) return l.from * 4 + 2;
        return l.from * 4 + 3;
    }
    throw std::invalid_argument(fmt::format("die mesh {} x {}: dies {} and {} are not neighbours",
                                            cols_, rows_, l.from, l.to));
}

bool DieMesh::hasLink(uint32_t index) const {
    if (index >= linkSlots()) return false;
    const uint32_t d = index / 4, px = x(d), py = y(d);
    switch (index % 4) {
        case 0:
            return px + 1 < cols_;
        case 1:
            return px > 0;
        case 2:
            return py + 1 < rows_;
        default:
            return py > 0;
    }
}

Link DieMesh::link(uint32_t index) const {
    if (!hasLink(index))
        throw std::invalid_argument(
            fmt::format("die mesh {} x {}: no link at slot {}", cols_, rows_, index));
    const uint32_t d = index / 4, px = x(d), py = y(d);
    switch (index % 4) {
        case 0:
            return {d, id(px + 1, py)};
        case 1:
            return {d, id(px - 1, py)};
        case 2:
            return {d, id(px, py + 1)};
        default:
            return {d, id(px, py - 1)};
    }
}

std::vector<uint32_t> DieMesh::links() const {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < linkSlots(); ++i)
        if (hasLink(i)) out.push_back(i);
    return out;
}

std::string DieMesh::linkName(uint32_t index) const {
    const Link l = link(index);
    return fmt::format("({},{})->({},{})", x(l.from), y(l.from), x(l.to), y(l.to));
}

}  // namespace wsc::firmware::moe
