#include "dram/LatencyHistogram.h"

#include <algorithm>
#include <cmath>

namespace wsc::dram {

void LatencyHistogram::record(uint64_t v) {
    if (v < kLinear) {
        ++linear_[v];
    } else {
        unsigned b = 63;
        while (!(v >> b)) --b;
        ++log_[b];
    }
    ++count_;
    sum_ += v;
    max_ = std::max(max_, v);
    min_ = std::min(min_, v);
}

void LatencyHistogram::add(const LatencyHistogram& o) {
    for (size_t i = 0; i < linear_.size(); ++i) linear_[i] += o.linear_[i];
    for (size_t i = 0; i < log_.size(); ++i) log_[i] += o.log_[i];
    count_ += o.count_;
    sum_ += o.sum_;
    max_ = std::max(max_, o.max_);
    min_ = std::min(min_, o.min_);
}

uint64_t LatencyHistogram::quantile(double q) const {
    if (count_ == 0) return 0;
    const uint64_t need = std::max<uint64_t>(1, uint64_t(std::ceil(q * double(count_))));
    uint64_t seen = 0;
    for (size_t i = 0; i < linear_.size(); ++i) {
        seen += linear_[i];
        if (seen >= need) return i;
    }
    for (size_t b = 0; b < log_.size(); ++b) {
        seen += log_[b];
        if (seen >= need) return std::min(max_, (uint64_t(2) << b) - 1);
    }
    return max_;
}

}  // namespace wsc::dram
