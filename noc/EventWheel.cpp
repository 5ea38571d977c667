#include "noc/EventWheel.h"

#include <limits>
#include <stdexcept>

namespace wsc::noc {

EventWheel::EventWheel(uint32_t horizon) {
    uint64_t size = 16;
    while (size <= horizon) size <<= 1;
    buckets_.resize(size);
    mask_ = size - 1;
}

void EventWheel::schedule(uint64_t now, uint64_t when, const NetEvent& e) {
    if (when <= now) throw std::logic_error("event scheduled in the past or present cycle");
    ++pending_;
    if (when - now <= mask_) {
        buckets_[when & mask_].push_back(e);
    } else {
        far_.push(Far{when, far_order_++, e});  // rare: multi-retry D2D flits
    }
}

void EventWheel::collect(uint64_t cycle, std::vector<NetEvent>& out) {
    out.clear();
    auto& b = buckets_[cycle & mask_];
    out.swap(b);  // keeps both vectors' capacity in circulation
    while (!far_.empty() && far_.top().when == cycle) {
        out.push_back(far_.top().e);
        far_.pop();
    }
    pending_ -= out.size();
}

uint64_t EventWheel::nextAfter(uint64_t now) const {
    if (pending_ == 0) return std::numeric_limits<uint64_t>::max();
    uint64_t best = far_.empty() ? std::numeric_limits<uint64_t>::max() : far_.top().when;
    for (uint64_t d = 1; d <= mask_; ++d) {
        if (!buckets_[(now + d) & mask_].empty()) return std::min(best, now + d);
    }
    return best;
}

}  // namespace wsc::noc
