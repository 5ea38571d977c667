#pragma once
// A die-level 2D mesh for the MoE policy layer: die ids, Manhattan distance, XY routes and a dense
// index of directed links. Die (x, y) has id x + cols * y, as placement::DieArray numbers dies, so
// the mappings here can be handed to `--placement` as they are. Plain C++, no NoC objects: the
// policies only need geometry.
#include <cstdint>
#include <string>
#include <vector>

namespace wsc::firmware::moe {

// A directed link between two neighbouring dies.
struct Link {
    uint32_t from = 0;
    uint32_t to = 0;
    bool operator==(const Link& o) const { return from == o.from && to == o.to; }
};

class DieMesh {
  public:
    // Throws std::invalid_argument for an empty mesh.
    DieMesh(uint32_t cols, uint32_t rows);

    uint32_t cols() const { return cols_; }
    uint32_t rows() const { return rows_; }
    uint32_t dies() const { return cols_ * rows_; }
    uint32_t id(uint32_t x, uint32_t y) const { return x + cols_ * y; }
    uint32_t x(uint32_t die) const { return die % cols_; }
    uint32_t y(uint32_t die) const { return die / cols_; }
    uint32_t hops(uint32_t a, uint32_t b) const;

    // Dimension-order route (x first, then y), the links in travel order; empty when a == b.
    std::vector<Link> xyRoute(uint32_t a, uint32_t b) const;

    // Directed links have dense indices die * 4 + port (0 east, 1 west, 2 south (y + 1), 3 north),
    // so per-link arrays are linkSlots() long; slots on the mesh edge have no link.
    uint32_t linkSlots() const { return dies() * 4; }
    uint32_t linkIndex(const Link& l) const;  // throws std::invalid_argument if not neighbours
    bool hasLink(uint32_t index) const;
    Link link(uint32_t index) const;             // requires hasLink(index)
    std::vector<uint32_t> links() const;         // every existing directed link index, ascending
    std::string linkName(uint32_t index) const;  // "(1,0)->(2,0)"

  private:
    uint32_t cols_;
    uint32_t rows_;
};

}  // namespace wsc::firmware::moe
