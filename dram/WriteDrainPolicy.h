#pragma once
// Read/write arbitration with hysteresis: reads are served until the write queue reaches the high
// watermark (or no reads wait), then writes drain until the low watermark (or no writes remain).
// Batching writes amortises the bus turnaround (tWTR, tRTW) over many bursts.
#include <cstddef>
#include <cstdint>

namespace wsc::dram {

class WriteDrainPolicy {
  public:
    WriteDrainPolicy(uint32_t high, uint32_t low) : high_(high), low_(low) {}

    // Updates the mode from the queue lengths; returns true while writes are being served.
    bool update(size_t reads, size_t writes) {
        if (draining_) {
            if (writes == 0 || (writes <= low_ && reads > 0)) draining_ = false;
        } else if (writes > 0 && (writes >= high_ || reads == 0)) {
            draining_ = true;
            ++drains_;
        }
        return draining_;
    }
    bool draining() const { return draining_; }
    uint64_t drains() const { return drains_; }

  private:
    uint32_t high_, low_;
    bool draining_ = false;
    uint64_t drains_ = 0;
};

}  // namespace wsc::dram
