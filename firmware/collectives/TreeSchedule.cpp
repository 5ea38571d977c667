#include "firmware/collectives/TreeSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::coll {

uint32_t Tree::depth() const {
    uint32_t d = 0;
    for (uint32_t v = 0; v < parent.size(); ++v) {
        uint32_t k = 0;
        for (uint32_t u = v; parent[u] != kNone; u = parent[u]) ++k;
        d = std::max(d, k);
    }
    return d;
}

namespace {

// Binomial tree over the members of `line` (rank indices), rooted at line[root].
void binomialInto(Tree& t, const std::vector<uint32_t>& line, uint32_t root) {
    const uint32_t n = static_cast<uint32_t>(line.size());
    for (uint32_t v = 0; v < n; ++v) {
        const uint32_t low = v == 0 ? 0 : (v & (~v + 1));  // lowest set bit of v
        uint32_t top = 1;                                  // children: v + m, m < low (all for 0)
        while (top < n) top <<= 1;
        const uint32_t bound = v == 0 ? top : low;
        const uint32_t me = line[(v + root) % n];
        for (uint32_t m = bound >> 1; m >= 1; m >>= 1) {
            if (v + m < n) {
                const uint32_t child = line[(v + m + root) % n];
                t.children[me].push_back(child);
                t.parent[child] = me;
            }
            if (m == 1) break;
        }
    }
}

}  // namespace

Tree TreeSchedule::binomial(uint32_t n, uint32_t root) {
    Tree t;
    t.root = root;
    t.parent.assign(n, Tree::kNone);
    t.children.assign(n, {});
    std::vector<uint32_t> line(n);
    for (uint32_t i = 0; i < n; ++i) line[i] = i;
    binomialInto(t, line, root);
    return t;
}

Tree TreeSchedule::grid(uint32_t rows, uint32_t cols, uint32_t root) {
    Tree t;
    const uint32_t n = rows * cols;
    t.root = root;
    t.parent.assign(n, Tree::kNone);
    t.children.assign(n, {});
    const uint32_t ri = root / cols, rj = root % cols;
    std::vector<uint32_t> row(cols);
    for (uint32_t j = 0; j < cols; ++j) row[j] = ri * cols + j;
    binomialInto(t, row, rj);  // row children come first: they carry whole columns
    for (uint32_t j = 0; j < cols; ++j) {
        std::vector<uint32_t> col(rows);
        for (uint32_t i = 0; i < rows; ++i) col[i] = i * cols + j;
        binomialInto(t, col, ri);
    }
    return t;
}

void TreeSchedule::broadcast(CollectiveEmitter& e, const Tree& t, const std::vector<Slot>& slots) {
    for (uint32_t r = 0; r < e.ranks(); ++r) {
        std::vector<uint16_t> buf(slots.size(), kNoBuf);
        for (size_t x = 0; x < slots.size(); ++x)
            if (slots[x].elems) buf[x] = e.buffer(r, slots[x].buffer, slots[x].elems);
        if (e.dry()) continue;
        for (size_t x = 0; x < slots.size(); ++x) {
            if (!slots[x].elems) continue;
            if (t.parent[r] != Tree::kNone) e.recv(r, buf[x], t.parent[r], slots[x].elems);
            for (uint32_t c : t.children[r]) e.send(r, buf[x], c, slots[x].elems);
        }
    }
}

void TreeSchedule::reduce(CollectiveEmitter& e, const Tree& t, const std::vector<Slot>& slots,
                          const std::string& rx) {
    for (uint32_t r = 0; r < e.ranks(); ++r) {
        std::vector<uint16_t> buf(slots.size(), kNoBuf), rxb(slots.size(), kNoBuf);
        for (size_t x = 0; x < slots.size(); ++x)
            if (slots[x].elems) buf[x] = e.buffer(r, slots[x].buffer, slots[x].elems);
        if (!t.children[r].empty())
            for (size_t x = 0; x < slots.size(); ++x)
                if (slots[x].elems)
                    rxb[x] = e.buffer(r, fmt::format("{}.{}", rx, x), slots[x].elems);
        if (e.dry()) continue;
        for (size_t x = 0; x < slots.size(); ++x) {
            if (!slots[x].elems) continue;
            for (auto c = t.children[r].rbegin(); c != t.children[r].rend(); ++c) {
                e.recv(r, rxb[x], *c, slots[x].elems);
                e.add(r, buf[x], rxb[x], slots[x].elems);
            }
            if (t.parent[r] != Tree::kNone) e.send(r, buf[x], t.parent[r], slots[x].elems);
        }
    }
}

}  // namespace wsc::firmware::coll
