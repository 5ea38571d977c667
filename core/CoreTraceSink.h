#pragma once
// Watches cores' exact timelines (testbench/CoreTimelineRecorder builds the Perfetto trace from
// it). A controller calls its sink only when one is set, so an untraced run pays one predictable
// branch per evaluation and per operation; the calls never change what the model does.
#include <cstdint>

#include "core/CoreStats.h"
#include "core/TraceSpan.h"

namespace wsc::core {

class CoreTraceSink {
  public:
    virtual ~CoreTraceSink() = default;
    // A unit of core `s.core` ran one operation over [s.begin, s.end). Told when the end is
    // known (at issue for fixed-latency work, at completion otherwise), so not in begin order.
    virtual void onSpan(const TraceSpan& s) = 0;
    // Cycles [begin, end) of `core` were charged to `state` (`cause` if it is Stall). Per core the
    // calls come in order and tile [0, cycles) exactly as CoreStats counts them.
    virtual void onCharge(uint32_t core, CoreState state, StallCause cause, uint64_t begin,
                          uint64_t end) = 0;
};

}  // namespace wsc::core
