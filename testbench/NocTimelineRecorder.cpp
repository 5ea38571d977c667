#include "testbench/NocTimelineRecorder.h"

#include <algorithm>

namespace wsc::tb {

NocTimelineRecorder::NocTimelineRecorder(hw::PerfettoTrace& trace,
                                         std::vector<LinkRecorder::PhaseStart> phases,
                                         uint64_t every)
    : trace_(trace),
      phases_(std::move(phases)),
      first_every_(std::max<uint64_t>(1, every)),
      every_(first_every_) {}

void NocTimelineRecorder::attach(const noc::Network& net, core::CoreArray*) {
    net_ = &net;
    pid_ = trace_.process("noc");
    phase_tid_ = trace_.track(pid_, "phases", 0);
    next_ = 0, last_at_ = 0, last_ejected_ = net.flitsEjected();
    every_ = first_every_, samples_ = 0;
}

void NocTimelineRecorder::afterStep(uint64_t cycle) {
    if (cycle < next_) return;
    trace_.counter(pid_, "flits in network", cycle, double(net_->flitsInNetwork()));
    const uint64_t span = cycle + 1 - last_at_;
    trace_.counter(pid_, "flits ejected per cycle", last_at_,
                   double(net_->flitsEjected() - last_ejected_) / double(span));
    last_at_ = cycle + 1;
    last_ejected_ = net_->flitsEjected();
    // A run far longer than expected would otherwise grow the trace without bound: after every
    // kSamplesPerDoubling samples the interval doubles, so samples grow with log(run length).
    if (++samples_ % kSamplesPerDoubling == 0) every_ *= 2;
    next_ = cycle + every_;
}

void NocTimelineRecorder::finish(uint64_t last) {
    const uint64_t end = last + 1;
    for (size_t p = 0; p < phases_.size(); ++p) {
        const uint64_t b = phases_[p].begin;
        const uint64_t e = std::min(end, p + 1 < phases_.size() ? phases_[p + 1].begin : end);
        if (e > b) trace_.span(pid_, phase_tid_, phases_[p].name, b, e);
    }
    trace_.counter(pid_, "flits in network", end, double(net_->flitsInNetwork()));
}

}  // namespace wsc::tb
