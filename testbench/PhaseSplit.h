#pragma once
// Splits a composed kernel's cycles by operation (KernelPlan::phases): it watches every core's
// work (a core::CoreTraceSink, passing each call on to whatever sink the core had, e.g. the
// Perfetto recorder) and keeps, per phase, the cycle the last of its work on any core ended.
// An operation's share is how far it moved that frontier: with end_k the phase's last end and
// f_k = max(f_{k-1}, end_k), phase k gets f_k - f_{k-1}, and the run's tail after the last
// frontier goes to the last phase, so the shares add up to the run's cycles exactly. Work of a
// phase that overlaps an earlier one's (a core that starts the next operation while others
// finish the last) counts only where it ends later.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/CoreArray.h"
#include "core/CoreTraceSink.h"
#include "firmware/KernelPlan.h"

namespace wsc::tb {

class PhaseSplit : public core::CoreTraceSink {
  public:
    // Installs itself on the plan's cores.
    PhaseSplit(core::CoreArray& cores, const firmware::KernelPlan& plan);
    ~PhaseSplit() override;
    PhaseSplit(const PhaseSplit&) = delete;
    PhaseSplit& operator=(const PhaseSplit&) = delete;
    void onSpan(const core::TraceSpan& s) override;
    void onCharge(uint32_t core, core::CoreState state, core::StallCause cause, uint64_t begin,
                  uint64_t end) override;
    // Cycles per operation name (first appearance order; a name that repeats per layer sums).
    std::vector<std::pair<std::string, uint64_t>> split(uint64_t cycles) const;

  private:
    core::CoreArray& cores_;
    const std::vector<std::string> names_;
    std::vector<uint32_t> row_;     // core id -> its row in starts_ (kNone: not a plan core)
    std::vector<uint32_t> starts_;  // per plan core, the first pc of each phase
    std::vector<core::CoreTraceSink*> next_;  // per plan core, the sink it had
    std::vector<uint64_t> end_;               // per phase
    std::vector<uint32_t> ids_;               // plan cores
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
};

}  // namespace wsc::tb
