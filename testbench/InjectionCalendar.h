#pragma once
// When each node of a traffic generator injects next: (cycle, node) entries taken out in
// (cycle, node) order, the order a min-heap of pairs gives and the order the generator draws
// its random numbers in. A ring of per-cycle buckets covers the next kRing cycles and a heap
// holds the rest. A bucket is sorted by node when its cycle is taken. Pushing and taking cost
// a few instructions an entry, where a heap of one entry per node cost a log-deep sift per
// packet (on a 1024x1024 mesh, a cache miss per level).
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace wsc::tb {

class InjectionCalendar {
  public:
    static constexpr uint64_t kRing = 1024;  // cycles the buckets cover (a power of two)

    // `cycle` at or after the first cycle not yet taken (takeDue's argument + 1); an earlier
    // one is a caller's bug (std::logic_error).
    void push(uint64_t cycle, uint32_t node);
    bool empty() const { return near_ == 0 && far_.empty(); }
    // The first cycle with an entry, or UINT64_MAX.
    uint64_t earliest() const;
    // Every entry due at or before `cycle`, by cycle then node, into `out` (cleared first).
    void takeDue(uint64_t cycle, std::vector<uint32_t>& out);

  private:
    // Moves the heap's entries that the ring now covers into their buckets.
    void refill();
    std::vector<std::vector<uint32_t>> ring_ = std::vector<std::vector<uint32_t>>(kRing);
    uint64_t cursor_ = 0;  // first cycle not yet taken: the ring covers [cursor_, cursor_ + kRing)
    uint64_t near_ = 0;    // entries in the ring
    using Far = std::pair<uint64_t, uint32_t>;
    std::priority_queue<Far, std::vector<Far>, std::greater<Far>> far_;
};

}  // namespace wsc::tb
