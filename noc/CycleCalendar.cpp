#include "noc/CycleCalendar.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::noc {

void CycleCalendar::push(uint64_t cycle, uint32_t id) {
    if (cycle < cursor_)
        throw std::logic_error(fmt::format(
            "cycle calendar: id {} scheduled at cycle {}, before cycle {} (already taken)", id,
            cycle, cursor_));
    if (cycle - cursor_ < kRing) {
        ring_[cycle & (kRing - 1)].push_back(id);
        ++near_;
    } else {
        far_.push({cycle, id});
    }
}

uint64_t CycleCalendar::earliest() const {
    if (near_)
        for (uint64_t c = cursor_;; ++c)
            if (!ring_[c & (kRing - 1)].empty()) return c;
    return far_.empty() ? UINT64_MAX : far_.top().first;
}

void CycleCalendar::refill() {
    while (!far_.empty() && far_.top().first - cursor_ < kRing) {
        ring_[far_.top().first & (kRing - 1)].push_back(far_.top().second);
        ++near_;
        far_.pop();
    }
}

void CycleCalendar::takeDue(uint64_t cycle, std::vector<uint32_t>& out) {
    out.clear();
    // The last cycle has no successor for the cursor: entries there (UINT64_MAX, "never")
    // are never due.
    cycle = std::min<uint64_t>(cycle, UINT64_MAX - 1);
    while (cursor_ <= cycle) {
        if (!near_) {  // an empty ring: jump to the heap's first cycle (or past `cycle`)
            const uint64_t f = far_.empty() ? UINT64_MAX : far_.top().first;
            cursor_ = std::min(f, cycle + 1);
            refill();
            if (cursor_ > cycle) break;
        }
        std::vector<uint32_t>& b = ring_[cursor_ & (kRing - 1)];
        if (!b.empty()) {
            // Entries of one cycle came in from earlier cycles' draws in any node order.
            std::sort(b.begin(), b.end());
            out.insert(out.end(), b.begin(), b.end());
            near_ -= b.size();
            b.clear();
            // A bucket keeps its storage for the next cycle that maps to it, up to kKeep
            // entries: a burst (every core of a wafer woken at once) must not stay allocated
            // in each of the kRing buckets.
            if (b.capacity() > kKeep) std::vector<uint32_t>().swap(b);
        }
        ++cursor_;
        refill();
    }
}

}  // namespace wsc::noc
