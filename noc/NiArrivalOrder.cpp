#include "noc/NiArrivalOrder.h"

#include <algorithm>
#include <stdexcept>

namespace wsc::noc {

void NiArrivalOrder::sort(std::vector<NetEvent>& d, size_t nis) {
    auto by_target = [](const NetEvent& a, const NetEvent& b) { return a.target < b.target; };
    // Chained meshes visit routers in index order, so their arrivals mostly come sorted.
    if (std::is_sorted(d.begin(), d.end(), by_target)) return;
    sorted_.resize(d.size());
    if (nis <= 4 * d.size() + 256) {  // a counting sort: linear where NIs are few
        keys_.assign(nis + 1, 0);
        for (const NetEvent& e : d) {
            if (e.target >= nis) throw std::logic_error("NiArrivalOrder: event for no NI");
            ++keys_[e.target + 1];
        }
        for (size_t n = 0; n < nis; ++n) keys_[n + 1] += keys_[n];
        for (const NetEvent& e : d) sorted_[keys_[e.target]++] = e;
    } else {  // unique (target, position) keys: an unstable sort keeps ties in order
        keys_.clear();
        for (size_t k = 0; k < d.size(); ++k) keys_.push_back(uint64_t(d[k].target) << 32 | k);
        std::sort(keys_.begin(), keys_.end());
        for (size_t k = 0; k < d.size(); ++k) sorted_[k] = d[uint32_t(keys_[k])];
    }
    d.swap(sorted_);
}

}  // namespace wsc::noc
