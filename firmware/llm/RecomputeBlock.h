#pragma once
// Activation recomputation inside one transformer block (WATOS Sec. IV-B, Fig. 10a's operator
// units): which operators keep the tensors their backward needs and which regenerate them by
// re-running forward operators just before the backward reaches them. docs/LLM.md,
// "Recomputation".
//
// The block's operators are cut into items (the fused attention, score + softmax + context, is
// one item; every other operator is one) and into segments, each starting at a Norm: a
// segment's input is the residual stream, which its norm saves and which is always kept (the
// checkpoint). An item's saved tensors are produced by the item before it (QKV's output is the
// attention's Q, K and V; the attention's output is the output projection's input; ...), so
// dropping item j means re-running item j - 1, and, if j - 1 is dropped too, the item before
// it, back to the nearest kept item. A choice is a bit mask over the droppable items (those
// that save anything and are not a segment's first).
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/model/LayerGraph.h"

namespace wsc::firmware::llm {

class RecomputeBlock {
  public:
    struct Item {
        size_t first = 0, last = 0;  // operator indices [first, last) in forward order
        size_t segment = 0;
        bool droppable = false;
        std::string name;  // "attn.qkv", "attention", ...
    };
    // A forward range to re-run before the backward of `segment`.
    struct Rerun {
        size_t first = 0, last = 0;  // operator indices [first, last)
        size_t segment = 0;
    };

    explicit RecomputeBlock(const model::Block& b);

    const std::vector<Item>& items() const { return items_; }
    size_t segments() const { return segments_; }
    // The droppable items, in forward order: bit i of a mask is droppable()[i].
    const std::vector<size_t>& droppable() const { return droppable_; }
    uint64_t fullMask() const;
    // Does `mask` drop the saved tensors of operator `op`?
    bool drops(uint64_t mask, size_t op) const;
    // The forward ranges `mask` re-runs, in forward order (each within one segment).
    std::vector<Rerun> reruns(uint64_t mask) const;
    // Segment of an operator.
    size_t segmentOf(size_t op) const;
    // "attn.qkv+attention, mlp.act" (the dropped items), or "none".
    std::string describe(uint64_t mask) const;

  private:
    std::vector<Item> items_;
    std::vector<size_t> droppable_;  // item indices
    std::vector<size_t> op_item_;    // operator -> item
    size_t segments_ = 0;
};

}  // namespace wsc::firmware::llm
