#include "noc/EventWheel.h"

#include <limits>
#include <stdexcept>

namespace wsc::noc {

EventWheel::EventWheel(uint64_t horizon) {
    uint64_t size = 16;
    while (size <= horizon && size < kMaxBuckets) size <<= 1;
    head_.assign(size, kNil);
    tail_.assign(size, kNil);
    mask_ = size - 1;
}

void EventWheel::schedule(uint64_t now, uint64_t when, const NetEvent& e) {
    if (when <= now) throw std::logic_error("event scheduled in the past or present cycle");
    ++pending_;
    if (when - now <= mask_) {
        ++near_;
        uint32_t n = free_;
        if (n != kNil) {
            free_ = pool_[n].next;
        } else {
            n = static_cast<uint32_t>(pool_.size());
            pool_.push_back({});
        }
        pool_[n].e = e;
        pool_[n].next = kNil;
        const uint64_t b = when & mask_;
        if (tail_[b] == kNil)
            head_[b] = n;
        else
            pool_[tail_[b]].next = n;
        tail_[b] = n;
    } else {
        far_.push(Far{when, far_order_++, e});  // rare: multi-retry D2D flits
    }
}

void EventWheel::collect(uint64_t cycle, std::vector<NetEvent>& out) {
    out.clear();
    const uint64_t b = cycle & mask_;
    for (uint32_t n = head_[b]; n != kNil;) {
        out.push_back(pool_[n].e);
        uint32_t next = pool_[n].next;
        pool_[n].next = free_;
        free_ = n;
        n = next;
    }
    head_[b] = tail_[b] = kNil;
    near_ -= out.size();
    while (!far_.empty() && far_.top().when == cycle) {
        out.push_back(far_.top().e);
        far_.pop();
    }
    pending_ -= out.size();
}

uint64_t EventWheel::nextAfter(uint64_t now) const {
    if (pending_ == 0) return std::numeric_limits<uint64_t>::max();
    uint64_t best = far_.empty() ? std::numeric_limits<uint64_t>::max() : far_.top().when;
    if (near_ == 0) return best;
    for (uint64_t d = 1; d <= mask_; ++d) {
        if (head_[(now + d) & mask_] != kNil) return std::min(best, now + d);
    }
    return best;
}

}  // namespace wsc::noc
