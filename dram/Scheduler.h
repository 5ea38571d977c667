#pragma once
// Picks the next command for one pseudo-channel from its queues, the bank state/timing and the
// refresh policy. Plain C++: unit-testable without SystemC.
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "dram/BurstRequest.h"
#include "dram/DramCommand.h"
#include "dram/HbmParams.h"

namespace wsc::dram {

class TimingTracker;
class RefreshPolicy;

struct SchedulerView {
    const std::vector<BurstRequest>& reads;   // oldest first
    const std::vector<BurstRequest>& writes;  // oldest first
    bool serve_writes;                        // from WriteDrainPolicy
    const TimingTracker& tracker;
    const RefreshPolicy& refresh;
    uint16_t pseudo_channel;
};

struct Decision {
    static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
    bool issue = false;  // cmd may issue this cycle
    DramCommand cmd;
    int request = -1;  // index in the served queue the command works for; -1: refresh/page
    bool from_writes = false;
    uint64_t next = kNever;  // if nothing issues: earliest cycle a candidate becomes legal
};

class Scheduler {
  public:
    virtual ~Scheduler() = default;
    virtual Decision decide(const SchedulerView& v, uint64_t now) = 0;
    // Called after the decision's command issued, before its request leaves the queue.
    virtual void onIssued(const Decision& d, const SchedulerView& v) = 0;

    static std::unique_ptr<Scheduler> create(const HbmParams& p);
};

}  // namespace wsc::dram
