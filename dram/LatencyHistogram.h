#pragma once
// Latency distribution with fixed storage: exact 1-cycle bins below kLinear cycles, then
// power-of-two bins. Recording never allocates, so it can sit on the completion path.
#include <array>
#include <cstdint>

namespace wsc::dram {

class LatencyHistogram {
  public:
    static constexpr uint64_t kLinear = 4096;

    void record(uint64_t cycles);
    void add(const LatencyHistogram& o);
    uint64_t count() const { return count_; }
    double mean() const { return count_ ? double(sum_) / double(count_) : 0.0; }
    uint64_t max() const { return max_; }
    uint64_t min() const { return count_ ? min_ : 0; }
    // Smallest latency L such that at least q of the samples are <= L (upper edge of the bin
    // in the logarithmic range).
    uint64_t quantile(double q) const;
    // Whether a quantile() result is a bin's upper edge (an upper bound) rather than exact: it
    // lies in the power-of-two range and is not the maximum (which is kept exactly).
    static bool isBinBound(uint64_t quantile, uint64_t max) {
        return quantile >= kLinear && quantile != max;
    }

  private:
    std::array<uint64_t, kLinear> linear_{};
    std::array<uint64_t, 64> log_{};  // bin i: [2^i, 2^(i+1)) for values >= kLinear
    uint64_t count_ = 0, sum_ = 0, max_ = 0, min_ = UINT64_MAX;
};

}  // namespace wsc::dram
