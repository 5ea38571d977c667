#pragma once
// A core's DMA engine towards its memory port: at most `queue` operations in flight, each cut
// into bursts of at most `burst_bytes` that go to the port's TLM bridge as MemoryRequests.
// (Remote SRAM puts and gets travel over the NoC as messages; see Controller.)
#include <cstdint>

#include "core/CoreEnvironment.h"
#include "core/CoreParams.h"

namespace wsc::core {

class DmaEngine {
  public:
    explicit DmaEngine(const DmaParams& p) : p_(p) {}
    bool full() const { return outstanding_ >= p_.queue; }
    uint32_t outstanding() const { return outstanding_; }
    // Issues the bursts of one transfer; `src` (functional store) holds the bytes to write.
    // Returns the number of bursts.
    uint32_t start(uint32_t core, uint32_t op, uint16_t buf, uint64_t addr, uint64_t bytes,
                   bool write, const float* src, CoreEnvironment& env);
    void finished() { --outstanding_; }

  private:
    DmaParams p_;
    uint32_t outstanding_ = 0;
};

}  // namespace wsc::core
