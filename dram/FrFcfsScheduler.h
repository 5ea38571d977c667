#pragma once
// First-ready, first-come-first-served (Rixner et al.): among commands legal this cycle, a column
// command to an open row (a row hit) beats everything, then the oldest request's ACT or PRE.
// A row with pending hits is not closed for a younger conflicting request. Closed-page policy
// additionally precharges a bank as soon as no queued request wants its open row. A request older
// than HbmParams::starvation_limit cycles is served before anything else.
#include <vector>

#include "dram/Scheduler.h"

namespace wsc::dram {

class FrFcfsScheduler : public Scheduler {
  public:
    explicit FrFcfsScheduler(const HbmParams& p);
    Decision decide(const SchedulerView& v, uint64_t now) override;
    void onIssued(const Decision& d, const SchedulerView& v) override;
    // Decisions in which the starvation guard held everything else back.
    uint64_t starvedWaits() const { return starved_waits_; }

  private:
    PagePolicy policy_;
    uint32_t starvation_limit_;
    uint64_t starved_waits_ = 0;
    // Per-bank scratch reused every decision (sized once: no allocation per cycle).
    std::vector<uint8_t> has_hit_;
    std::vector<uint8_t> seen_hit_, seen_other_;
    std::vector<int> pre_candidate_;      // oldest request per bank needing a PRE, or -1
    std::vector<uint8_t> close_pending_;  // closed-page: precharge this bank when legal
};

}  // namespace wsc::dram
