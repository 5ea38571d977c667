#pragma once
// A calendar of (cycle, id) entries taken out in (cycle, id) order: the order a min-heap of pairs
// gives, which is what its users' results depend on (a traffic generator draws its random
// numbers in it, a core array evaluates the cores it wakes in it). An id may be in it more than
// once. A ring of per-cycle buckets covers the next kRing cycles and a heap holds the rest; a
// bucket is sorted when its cycle is taken. Pushing and taking cost a few instructions an entry,
// where a heap of one entry per node or core sifted log(n) levels each (on a large mesh, a
// cache miss per level).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace wsc::noc {

class CycleCalendar {
  public:
    static constexpr uint64_t kRing = 1024;  // cycles the buckets cover (a power of two)
    static constexpr size_t kKeep = 1024;    // entries a bucket's storage may keep (4 KB)

    // `cycle` at or after the first cycle not yet taken (takeDue's argument + 1); an earlier
    // one is a caller's bug (std::logic_error).
    void push(uint64_t cycle, uint32_t id);
    bool empty() const { return near_ == 0 && far_.empty(); }
    // The first cycle with an entry, or UINT64_MAX.
    uint64_t earliest() const;
    // Every entry due at or before `cycle`, by cycle then id, into `out` (cleared first).
    // Entries at UINT64_MAX ("never") are never due.
    void takeDue(uint64_t cycle, std::vector<uint32_t>& out);
    // Entries the buckets' storage holds room for (tests: a burst's storage is given back).
    size_t bucketCapacity() const {
        size_t n = 0;
        for (const auto& b : ring_) n += b.capacity();
        return n;
    }

  private:
    // Moves the heap's entries that the ring now covers into their buckets.
    void refill();
    std::vector<std::vector<uint32_t>> ring_ = std::vector<std::vector<uint32_t>>(kRing);
    uint64_t cursor_ = 0;  // first cycle not yet taken: the ring covers [cursor_, cursor_ + kRing)
    uint64_t near_ = 0;    // entries in the ring
    using Far = std::pair<uint64_t, uint32_t>;
    std::priority_queue<Far, std::vector<Far>, std::greater<Far>> far_;
};

}  // namespace wsc::noc
