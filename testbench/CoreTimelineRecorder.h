#pragma once
// Builds one Perfetto track per core from the cores' own counters. A core charges the cycles
// since its last evaluation to the state it was in (busy, a stall cause or idle), so after every
// step the newly charged cycles [old total, new total) are exactly one state each: they become
// spans. Busy spans are named by the work the counters show started in them (compute: MACs or
// vector elements; send: bytes out; receive: bytes in; dma; relay) and keep that name while the
// core stays busy without new work (its units still running); stalls are "stall: <cause>"; idle
// cycles are gaps. Adjacent spans of the same name merge. Costs O(cores) per step, so it is only
// attached when a trace is asked for.
#include <string>
#include <vector>

#include "core/CoreStats.h"
#include "hw/PerfettoTrace.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

class CoreTimelineRecorder : public RunObserver {
  public:
    explicit CoreTimelineRecorder(hw::PerfettoTrace& trace);
    void attach(const noc::Network& net, const core::CoreArray* cores) override;
    void afterStep(uint64_t cycle) override;
    void finish(uint64_t last_cycle) override;
    uint32_t tracks() const { return static_cast<uint32_t>(tid_.size()); }

  private:
    struct Open {
        std::string name;
        uint64_t begin = 0, end = 0;
        uint64_t macs = 0, bytes_in = 0, bytes_out = 0, dma_bytes = 0;
    };
    void sample(uint32_t c);
    void extend(uint32_t c, const std::string& name, uint64_t begin, uint64_t end,
                const core::CoreStats& delta);
    void flush(uint32_t c);

    hw::PerfettoTrace& trace_;
    const core::CoreArray* cores_ = nullptr;
    uint32_t pid_ = 0;
    std::vector<uint32_t> tid_;
    std::vector<core::CoreStats> last_;
    std::vector<core::CoreStats> pending_;  // counter growth not yet placed on a span
    std::vector<Open> open_;
    std::vector<std::string> busy_name_;  // what the core is busy with, carried over
};

}  // namespace wsc::tb
