#include "testbench/InjectionCalendar.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::tb {

void InjectionCalendar::push(uint64_t cycle, uint32_t node) {
    if (cycle < cursor_)
        throw std::logic_error(fmt::format(
            "injection calendar: node {} scheduled at cycle {}, before cycle {} (already taken)",
            node, cycle, cursor_));
    if (cycle - cursor_ < kRing) {
        ring_[cycle & (kRing - 1)].push_back(node);
        ++near_;
    } else {
        far_.push({cycle, node});
    }
}

uint64_t InjectionCalendar::earliest() const {
    if (near_)
        for (uint64_t c = cursor_;; ++c)
            if (!ring_[c & (kRing - 1)].empty()) return c;
    return far_.empty() ? UINT64_MAX : far_.top().first;
}

void InjectionCalendar::refill() {
    while (!far_.empty() && far_.top().first - cursor_ < kRing) {
        ring_[far_.top().first & (kRing - 1)].push_back(far_.top().second);
        ++near_;
        far_.pop();
    }
}

void InjectionCalendar::takeDue(uint64_t cycle, std::vector<uint32_t>& out) {
    out.clear();
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
        }
        ++cursor_;
        refill();
    }
}

}  // namespace wsc::tb
