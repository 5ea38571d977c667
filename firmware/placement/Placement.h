#pragma once
// Where the ranks of a parallel plan sit on the die array: a policy family behind one
// interface (docs/LLM.md, "Placement"). Dies are numbered y * diesX + x, which at die level is
// the router (and core) index. Later policies (TATP's tetris groups, TCME, ER-Mapping, WATOS
// Eq. 2) implement the same interface.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "firmware/plan/RankGrid.h"

namespace wsc::firmware::placement {

struct DieArray {
    uint32_t x = 1, y = 1;
    uint32_t dies() const { return x * y; }
    uint32_t die(uint32_t dx, uint32_t dy) const { return dy * x + dx; }
    uint32_t dx(uint32_t die) const { return die % x; }
    uint32_t dy(uint32_t die) const { return die / x; }
    // Mesh hops between two dies (XY routing takes this many).
    uint32_t hops(uint32_t a, uint32_t b) const;
};

class Placement {
  public:
    virtual ~Placement() = default;
    virtual std::string name() const = 0;
    // The die of every rank (a permutation of [0, dies)). Throws std::invalid_argument when the
    // policy cannot place this plan on this array, saying why.
    virtual std::vector<uint32_t> place(const plan::RankGrid& g, const DieArray& a) const = 0;

    // Policies by name: row-major, snake, ring; explicit lists come from ExplicitPlacement.
    static std::unique_ptr<Placement> byName(const std::string& name);
    static const std::vector<std::string>& names();
};

// Mesh hops along a ring visiting `dies` in order and back to the first: the physical length
// of every logical hop (1 everywhere = a physical ring).
std::vector<uint32_t> ringHops(const DieArray& a, const std::vector<uint32_t>& dies);

}  // namespace wsc::firmware::placement
