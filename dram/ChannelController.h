#pragma once
// The controller of one pseudo-channel: read and write queues, the scheduler and its timing
// tracker, write draining, refresh, the command bus (one command per cycle) and the data bus.
// Plain C++, driven by tick(cycle) only at cycles nextWake() asks for: an idle channel costs
// nothing between refreshes.
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "dram/BurstRequest.h"
#include "dram/ChannelStats.h"
#include "dram/CommandObserver.h"
#include "dram/HbmParams.h"
#include "dram/RefreshPolicy.h"
#include "dram/RingBuffer.h"
#include "dram/Scheduler.h"
#include "dram/TimingTracker.h"
#include "dram/WriteDrainPolicy.h"

namespace wsc::dram {

// Receives each burst when its last data beat has crossed the bus.
class BurstSink {
  public:
    virtual ~BurstSink() = default;
    virtual void burstDone(uint32_t tag, bool write, uint64_t cycle) = 0;
};

class ChannelController {
  public:
    static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

    ChannelController(const HbmParams& p, uint16_t pseudoChannel, BurstSink& sink);

    void addObserver(CommandObserver* o) { observers_.push_back(o); }
    bool canAccept(bool write) const {
        return write ? writes_.size() < write_depth_ : reads_.size() < read_depth_;
    }
    // r.arrival is set to `now`. The caller must check canAccept first.
    void enqueue(BurstRequest r, uint64_t now);
    // Advances to cycle `now` (>= the previous call): retires finished bursts and issues at most
    // one command. Calling it twice for the same cycle issues no second command.
    void tick(uint64_t now);
    // Next cycle tick() has something to do; kNever when idle with refresh off.
    uint64_t nextWake() const { return wake_; }
    bool idle() const { return reads_.empty() && writes_.empty() && inflight_.empty(); }
    size_t readQueueLength() const { return reads_.size(); }
    size_t writeQueueLength() const { return writes_.size(); }
    // Stats with queue occupancy integrated up to `now`.
    ChannelStats stats(uint64_t now) const;
    const TimingTracker& tracker() const { return tracker_; }

  private:
    struct InFlight {
        uint64_t done;
        uint64_t arrival;
        uint32_t tag;
        bool write;
    };

    void integrate(uint64_t now);
    void issue(const Decision& d, uint64_t now);

    HbmParams p_;
    uint16_t pch_;
    BurstSink& sink_;
    uint32_t read_depth_, write_depth_;
    uint32_t burst_;
    std::vector<BurstRequest> reads_, writes_;  // capacity reserved; oldest first
    RingBuffer<InFlight> inflight_;             // bursts issued, data not yet finished
    TimingTracker tracker_;
    std::unique_ptr<Scheduler> scheduler_;
    std::unique_ptr<RefreshPolicy> refresh_;
    WriteDrainPolicy drain_;
    std::vector<CommandObserver*> observers_;
    ChannelStats stats_;
    uint64_t last_integrated_ = 0;
    uint64_t last_tick_ = kNever;
    uint64_t last_issue_ = kNever;
    uint64_t wake_ = 0;
};

}  // namespace wsc::dram
