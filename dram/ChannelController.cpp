#include "dram/ChannelController.h"

#include <algorithm>
#include <stdexcept>

namespace wsc::dram {

ChannelController::ChannelController(const HbmParams& p, uint16_t pseudoChannel, BurstSink& sink)
    : p_(p),
      pch_(pseudoChannel),
      sink_(sink),
      read_depth_(p.read_queue_depth),
      write_depth_(p.write_queue_depth),
      burst_(p.burstCycles()),
      inflight_(p.read_queue_depth + p.write_queue_depth),
      tracker_(p),
      scheduler_(Scheduler::create(p)),
      refresh_(RefreshPolicy::create(p)),
      drain_(p.write_high_watermark, p.write_low_watermark) {
    reads_.reserve(read_depth_);
    writes_.reserve(write_depth_);
    wake_ = refresh_->nextDue();
}

void ChannelController::integrate(uint64_t now) {
    if (now <= last_integrated_) return;
    const uint64_t dt = now - last_integrated_;
    stats_.read_queue_integral += dt * reads_.size();
    stats_.write_queue_integral += dt * writes_.size();
    stats_.observed_cycles += dt;
    last_integrated_ = now;
}

void ChannelController::enqueue(BurstRequest r, uint64_t now) {
    // Beyond the reserved depth push_back would allocate and the queue would be unbounded.
    if (!canAccept(r.write)) throw std::logic_error("ChannelController: enqueue into a full queue");
    integrate(now);
    r.arrival = now;
    r.touched = false;
    auto& q = r.write ? writes_ : reads_;
    q.push_back(r);  // within reserved capacity: no allocation
    if (r.write)
        stats_.write_queue_max = std::max<uint32_t>(stats_.write_queue_max, uint32_t(q.size()));
    else
        stats_.read_queue_max = std::max<uint32_t>(stats_.read_queue_max, uint32_t(q.size()));
    // If this cycle's command slot is already used, the earliest chance is the next cycle.
    const uint64_t earliest = (last_issue_ != kNever && last_issue_ >= now) ? now + 1 : now;
    wake_ = std::min(wake_, earliest);
}

void ChannelController::tick(uint64_t now) {
    integrate(now);
    last_tick_ = now;
    while (!inflight_.empty() && inflight_.front().done <= now) {
        const InFlight f = inflight_.front();
        inflight_.pop();
        const uint64_t lat = f.done - f.arrival;
        if (f.write) {
            ++stats_.writes;
            stats_.write_latency_sum += lat;
        } else {
            ++stats_.reads;
            stats_.read_latency_sum += lat;
        }
        sink_.burstDone(f.tag, f.write, f.done);
    }

    bool issued = false;
    uint64_t next = kNever;
    if (last_issue_ == kNever || last_issue_ < now) {
        const uint64_t drainsBefore = drain_.drains();
        const bool serveWrites = drain_.update(reads_.size(), writes_.size());
        stats_.write_drains += drain_.drains() - drainsBefore;
        SchedulerView view{reads_, writes_, serveWrites, tracker_, *refresh_, pch_};
        const Decision d = scheduler_->decide(view, now);
        if (d.issue) {
            issue(d, now);
            issued = true;
        } else {
            next = d.next;
        }
    }

    // Wake again for: the next command chance, the next burst to retire, the next refresh.
    uint64_t w = issued ? now + 1 : next;
    if (!inflight_.empty()) w = std::min(w, inflight_.front().done);
    if (!refresh_->pending(now)) w = std::min(w, refresh_->nextDue());
    wake_ = std::max(w, now + 1);
}

void ChannelController::issue(const Decision& d, uint64_t now) {
    const DramCommand& c = d.cmd;
    const unsigned openBefore = tracker_.openBanks();
    tracker_.issue(c, now);
    for (CommandObserver* o : observers_) o->onCommand(c, now);  // the checker may throw here
    refresh_->onIssued(c, now);
    last_issue_ = now;
    ++stats_.commands[unsigned(c.type)];
    // Precharge energy is per bank actually closed (the scheduler never precharges idle banks).
    if (c.type == CommandType::PRE || c.type == CommandType::PREA)
        stats_.banks_precharged += openBefore - tracker_.openBanks();

    SchedulerView view{reads_, writes_, d.from_writes, tracker_, *refresh_, pch_};
    if (d.request < 0) {
        scheduler_->onIssued(d, view);
        return;
    }
    auto& q = d.from_writes ? writes_ : reads_;
    BurstRequest& r = q[size_t(d.request)];
    if (!r.touched) {
        r.touched = true;
        if (isColumn(c.type))
            ++stats_.row_hits;
        else if (c.type == CommandType::ACT)
            ++stats_.row_misses;
        else
            ++stats_.row_conflicts;
    }
    scheduler_->onIssued(d, view);
    if (isColumn(c.type)) {
        const uint32_t lat = c.type == CommandType::RD ? p_.tCL : p_.tWL;
        inflight_.push(InFlight{now + lat + burst_, r.arrival, r.tag, r.write});
        q.erase(q.begin() + d.request);  // keeps age order; no allocation
    }
}

ChannelStats ChannelController::stats(uint64_t now) const {
    ChannelStats s = stats_;
    if (now > last_integrated_) {
        const uint64_t dt = now - last_integrated_;
        s.read_queue_integral += dt * reads_.size();
        s.write_queue_integral += dt * writes_.size();
        s.observed_cycles += dt;
    }
    return s;
}

}  // namespace wsc::dram
