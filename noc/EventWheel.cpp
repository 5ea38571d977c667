#include "noc/EventWheel.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace wsc::noc {

EventWheel::EventWheel(uint64_t horizon) {
    uint64_t size = kMinBuckets;
    while (size <= horizon && size < kMaxBuckets) size <<= 1;
    bucket_.resize(size);
    mask_ = size - 1;
}

void EventWheel::throwPast() {
    throw std::logic_error("event scheduled in the past or present cycle");
}

void EventWheel::scheduleSlow(uint64_t now, uint64_t when, const NetEvent& e) {
    if (when <= now) throwPast();
    ++pending_;
    if (when - now <= mask_) {
        ++near_;
        std::vector<NetEvent>& b = bucket_[when & mask_];
        if (b.size() == b.capacity()) grow(b, 1);
        b.push_back(e);
    } else {
        far_.push(Far{when, far_order_++, e});  // rare: multi-retry D2D flits
    }
}

void EventWheel::scheduleAll(uint64_t now, uint64_t when, const std::vector<NetEvent>& es) {
    if (es.empty()) return;
    if (when - now > mask_ || when <= now) {
        for (const NetEvent& e : es) schedule(now, when, e);
        return;
    }
    pending_ += es.size();
    near_ += es.size();
    std::vector<NetEvent>& b = bucket_[when & mask_];
    if (b.size() + es.size() > b.capacity()) grow(b, es.size());
    b.insert(b.end(), es.begin(), es.end());
}

void EventWheel::grow(std::vector<NetEvent>& b, size_t more) {
    size_t best = spares_.size();
    for (size_t i = 0; i < spares_.size(); ++i)
        if (spares_[i].capacity() >= b.size() + more &&
            (best == spares_.size() || spares_[i].capacity() > spares_[best].capacity()))
            best = i;
    if (best == spares_.size()) return;  // push_back grows it
    std::vector<NetEvent> s;
    s.swap(spares_[best]);
    spares_.erase(spares_.begin() + long(best));
    s.assign(b.begin(), b.end());
    b.swap(s);
    spare(s, std::max<size_t>(kKeepEvents, 2 * (near_ + more)));
}

void EventWheel::spare(std::vector<NetEvent>& v, size_t limit) {
    const size_t cap = v.capacity();
    if (cap == 0 || cap > limit) {
        std::vector<NetEvent>().swap(v);
        return;
    }
    v.clear();
    spares_.emplace_back().swap(v);
    if (spares_.size() <= kSpares) return;
    size_t smallest = 0;
    for (size_t i = 1; i < spares_.size(); ++i)
        if (spares_[i].capacity() < spares_[smallest].capacity()) smallest = i;
    spares_.erase(spares_.begin() + long(smallest));
}

void EventWheel::collect(uint64_t cycle, std::vector<NetEvent>& out) {
    out.clear();
    std::vector<NetEvent>& b = bucket_[cycle & mask_];
    out.swap(b);  // the bucket takes out's (empty) storage for its next cycle
    near_ -= out.size();
    const size_t keep = std::max<size_t>(kKeepEvents, 2 * near_ / bucket_.size());
    // Spares larger than twice the events in flight this cycle are given back (a burst's
    // storage once the burst has passed).
    const size_t limit = std::max<size_t>(kKeepEvents, 2 * (near_ + out.size()));
    for (size_t i = spares_.size(); i-- > 0;)
        if (spares_[i].capacity() > limit) spares_.erase(spares_.begin() + long(i));
    if (b.capacity() > keep) spare(b, limit);
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
