#pragma once
// Contiguous physical rings for the innermost communicating group (the first of tp, tatp, sp,
// fsdp, dp whose degree is above 1): each group gets an a x b block of dies (a | diesX, b | diesY,
// a * b = group size) with a Hamiltonian cycle, and its ranks are laid along that cycle, so
// every logical ring hop is one physical hop. Blocks are tiled in snake order, so the next
// group (the next replica or stage) is a neighbouring block. A mesh block has such a cycle only
// when one side is even (a grid graph is bipartite); odd groups above 2 are refused.
// `ring-<dim>` (e.g. ring-tatp) lays the rings along a named dimension instead (placeAlong):
// the candidates TCME compares when TATP splits beside TP or SP, each runnable on its own.
#include <optional>

#include "firmware/placement/Placement.h"

namespace wsc::firmware::placement {

class RingPlacement : public Placement {
  public:
    RingPlacement() = default;
    explicit RingPlacement(plan::Dim along) : along_(along) {}
    std::string name() const override {
        return along_ ? std::string("ring-") + plan::dimName(*along_) : "ring";
    }
    std::vector<uint32_t> place(const plan::RankGrid& g, const DieArray& a) const override;
    // The groups of dimension d (not PP) on the rings instead of the innermost one: rank r is
    // cycle position (its d coordinate) of ring block (r with d removed, in rank order), so the
    // other dimensions stride across neighbouring blocks. TEMP keeps TATP groups contiguous
    // this way when TP or SP also split (`--mapping tcme`).
    static std::vector<uint32_t> placeAlong(const plan::RankGrid& g, const DieArray& a,
                                            plan::Dim d);
    // The cells of a w x h block in cycle order ((x, y) pairs as x + w * y); for w * h <= 2 the
    // trivial order. Needs w or h even when w * h > 2.
    static std::vector<uint32_t> cycle(uint32_t w, uint32_t h);
    // The dies of every group of n in cycle order: the squarest w x h block (n = w h, w | a.x,
    // h | a.y, wider on a tie) with a physical cycle, tiled in snake order over the blocks.
    // Empty when no such block tiles the array. TEMP's ring groups use it too.
    static std::vector<std::vector<uint32_t>> groups(uint32_t n, const DieArray& a);

  private:
    std::optional<plan::Dim> along_;
};

}  // namespace wsc::firmware::placement
