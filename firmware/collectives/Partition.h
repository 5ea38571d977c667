#pragma once
// The remainder rule every collective uses to cut a tensor: `total` elements into `parts`
// contiguous parts, the first total % parts of them one element longer (10 over 4: 3, 3, 2, 2).
// Part sizes never differ by more than one and never increase, so cutting every part of a
// partition into S sub-blocks the same way and taking sub-block s of each gives again such a
// partition (what memory staging relies on, docs/COLLECTIVES.md).
#include <cstdint>
#include <vector>

namespace wsc::firmware::coll {

class Partition {
  public:
    static uint64_t size(uint64_t total, uint64_t parts, uint64_t i);
    static uint64_t begin(uint64_t total, uint64_t parts, uint64_t i);
    // All part sizes.
    static std::vector<uint64_t> sizes(uint64_t total, uint64_t parts);
};

}  // namespace wsc::firmware::coll
