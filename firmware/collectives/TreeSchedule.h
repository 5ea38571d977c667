#pragma once
// Broadcast and reduce over a tree of ranks, pipelined by slots. Broadcast: a rank receives slot
// x from its parent and forwards it to its children (largest subtree first) before it receives
// slot x + 1. Reduce: per slot a rank receives from its children (smallest subtree first, the
// order they finish in), adds each into its own buffer, and sends the sum to its parent.
//
// Trees: binomial over a list of ranks (rank v's children are v + 2^t for every 2^t below v's
// lowest set bit, relative to the root: log2(N) rounds of doubling), or the mesh-aware grid tree
// (binomial along the root's row, then binomial down every column from the row), whose edges
// run along rows and columns, so every message of a round uses its own links.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/collectives/CollectiveEmitter.h"

namespace wsc::firmware::coll {

struct Tree {
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    uint32_t root = 0;
    std::vector<uint32_t> parent;                 // per rank index; kNone for the root
    std::vector<std::vector<uint32_t>> children;  // per rank index, in send order
    uint32_t depth() const;                       // edges on the longest root-to-leaf path
};

class TreeSchedule {
  public:
    struct Slot {
        std::string buffer;
        uint64_t elems = 0;
    };
    static Tree binomial(uint32_t n, uint32_t root);
    // Ranks row-major on a rows x cols grid; root = its rank index.
    static Tree grid(uint32_t rows, uint32_t cols, uint32_t root);

    static void broadcast(CollectiveEmitter& e, const Tree& t, const std::vector<Slot>& slots);
    // Receive buffers "<rx>.<slot>".
    static void reduce(CollectiveEmitter& e, const Tree& t, const std::vector<Slot>& slots,
                       const std::string& rx);
};

}  // namespace wsc::firmware::coll
