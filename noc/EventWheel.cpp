#include "noc/EventWheel.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace wsc::noc {

EventWheel::EventWheel(uint64_t horizon) {
    uint64_t size = 16;
    while (size <= horizon && size < kMaxBuckets) size <<= 1;
    bucket_.resize(size);
    mask_ = size - 1;
}

void EventWheel::schedule(uint64_t now, uint64_t when, const NetEvent& e) {
    if (when <= now) throw std::logic_error("event scheduled in the past or present cycle");
    ++pending_;
    if (when - now <= mask_) {
        ++near_;
        bucket_[when & mask_].push_back(e);
    } else {
        far_.push(Far{when, far_order_++, e});  // rare: multi-retry D2D flits
    }
}

void EventWheel::collect(uint64_t cycle, std::vector<NetEvent>& out) {
    out.clear();
    std::vector<NetEvent>& b = bucket_[cycle & mask_];
    out.swap(b);  // the bucket takes out's (empty) storage for its next cycle
    near_ -= out.size();
    const size_t keep = std::max<size_t>(kKeepEvents, 2 * near_ / bucket_.size());
    if (b.capacity() > keep) std::vector<NetEvent>().swap(b);
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
        if (!bucket_[(now + d) & mask_].empty()) return std::min(best, now + d);
    }
    return best;
}

}  // namespace wsc::noc
