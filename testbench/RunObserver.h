#pragma once
// Something that watches a run from outside the model (link phases for heatmaps, core timelines
// for Perfetto, energy counts) without the testbench knowing about it. Attached to the network
// (and cores, when the run has them) before the first step; called around every step the shell
// takes (idle cycles are skipped, as in the model); told the last cycle when the run is over,
// while the network still exists, so it copies out what it needs. Observers only read; the cores
// are passed non-const so one may register a core::CoreTraceSink, which the model calls but
// never waits on.
#include <cstdint>

#include "core/CoreArray.h"
#include "noc/Network.h"

namespace wsc::tb {

class RunObserver {
  public:
    virtual ~RunObserver() = default;
    virtual void attach(const noc::Network& net, core::CoreArray* cores) = 0;
    virtual void beforeStep(uint64_t) {}
    virtual void afterStep(uint64_t) {}
    virtual void finish(uint64_t last_cycle) = 0;
};

}  // namespace wsc::tb
