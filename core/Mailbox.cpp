#include "core/Mailbox.h"

namespace wsc::core {

uint32_t Mailbox::bump(std::vector<Counter>& v, uint64_t key) {
    for (Counter& c : v)
        if (c.key == key) return c.next++;
    v.push_back({key, 1});
    return 0;
}

bool Mailbox::take(uint64_t key, uint32_t seq, Arrival& out) {
    for (size_t i = 0; i < arrivals_.size(); ++i) {
        if (arrivals_[i].key == key && arrivals_[i].seq == seq) {
            out = std::move(arrivals_[i]);
            arrivals_[i] = std::move(arrivals_.back());
            arrivals_.pop_back();
            return true;
        }
    }
    return false;
}

void Mailbox::holdPart(uint64_t msg, uint64_t bytes) {
    for (auto& [m, b] : parts_)
        if (m == msg) {
            b += bytes;
            return;
        }
    parts_.push_back({msg, bytes});
}

uint64_t Mailbox::takePart(uint64_t msg) {
    for (size_t i = 0; i < parts_.size(); ++i)
        if (parts_[i].first == msg) {
            const uint64_t b = parts_[i].second;
            parts_[i] = parts_.back();
            parts_.pop_back();
            return b;
        }
    return 0;
}

uint32_t Mailbox::arrive(Arrival& a) {
    for (size_t i = 0; i < posted_.size(); ++i) {
        if (posted_[i].key == a.key && posted_[i].seq == a.seq) {
            uint32_t op = posted_[i].op;
            hit_key_ = ~uint64_t{0};
            posted_[i] = posted_.back();
            posted_.pop_back();
            return op;
        }
    }
    arrivals_.push_back(std::move(a));
    return kNone;
}

}  // namespace wsc::core
