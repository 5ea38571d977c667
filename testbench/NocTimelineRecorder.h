#pragma once
// NoC tracks of a Perfetto trace: a "phases" track (warm-up / measure / drain spans, or the whole
// run) and counters sampled every `every` cycles: flits in the network and flits ejected per cycle
// (accepted throughput of the whole network). Cheap: O(1) per step; the interval doubles every
// 4000 samples, so a run far longer than `every` expects stays a few tens of thousands of samples.
#include <string>
#include <vector>

#include "hw/PerfettoTrace.h"
#include "testbench/LinkRecorder.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

class NocTimelineRecorder : public RunObserver {
  public:
    NocTimelineRecorder(hw::PerfettoTrace& trace, std::vector<LinkRecorder::PhaseStart> phases,
                        uint64_t every);
    void attach(const noc::Network& net, core::CoreArray* cores) override;
    void afterStep(uint64_t cycle) override;
    void finish(uint64_t last_cycle) override;

  private:
    hw::PerfettoTrace& trace_;
    std::vector<LinkRecorder::PhaseStart> phases_;
    uint64_t first_every_, every_;
    const noc::Network* net_ = nullptr;
    uint32_t pid_ = 0, phase_tid_ = 0;
    uint64_t next_ = 0, last_at_ = 0, last_ejected_ = 0, samples_ = 0;
    static constexpr uint64_t kSamplesPerDoubling = 4000;
};

}  // namespace wsc::tb
