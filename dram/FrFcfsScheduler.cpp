#include "dram/FrFcfsScheduler.h"

#include <algorithm>

#include "dram/RefreshPolicy.h"
#include "dram/TimingTracker.h"

namespace wsc::dram {

std::unique_ptr<Scheduler> Scheduler::create(const HbmParams& p) {
    return std::make_unique<FrFcfsScheduler>(p);
}

FrFcfsScheduler::FrFcfsScheduler(const HbmParams& p)
    : policy_(p.page_policy), has_hit_(p.banksPerPseudoChannel()),
      close_pending_(p.banksPerPseudoChannel()) {}

Decision FrFcfsScheduler::decide(const SchedulerView& v, uint64_t now) {
    const TimingTracker& tr = v.tracker;
    Decision d;

    // 1. A due refresh comes first: its PRE/PREA/REF is issued as soon as it is legal.
    if (v.refresh.pending(now)) {
        const DramCommand rc = v.refresh.command(tr, v.pseudo_channel);
        const uint64_t t = tr.earliest(rc);
        if (t <= now) {
            d.issue = true;
            d.cmd = rc;
            return d;
        }
        d.next = t;
    }

    // 2. Requests of the served queue. Mark banks whose open row some request wants.
    const std::vector<BurstRequest>& q = v.serve_writes ? v.writes : v.reads;
    std::fill(has_hit_.begin(), has_hit_.end(), 0);
    for (const BurstRequest& r : q) {
        const unsigned b = tr.bankIndex(r.bank_group, r.bank);
        if (tr.isOpen(b) && tr.openRow(b) == r.row) has_hit_[b] = 1;
    }
    int other = -1;
    DramCommand otherCmd;
    for (size_t i = 0; i < q.size(); ++i) {
        const BurstRequest& r = q[i];
        const unsigned b = tr.bankIndex(r.bank_group, r.bank);
        if (v.refresh.blocksBank(b, now)) continue;
        DramCommand c;
        c.pseudo_channel = v.pseudo_channel;
        c.bank_group = r.bank_group;
        c.bank = r.bank;
        c.row = r.row;
        c.column = r.column;
        if (tr.isOpen(b) && tr.openRow(b) == r.row) {
            c.type = r.write ? CommandType::WR : CommandType::RD;
            const uint64_t t = tr.earliest(c);
            if (t <= now) {  // the oldest ready hit wins outright
                d.issue = true;
                d.cmd = c;
                d.request = int(i);
                d.from_writes = v.serve_writes;
                return d;
            }
            d.next = std::min(d.next, t);
            continue;
        }
        if (tr.isOpen(b)) {
            if (has_hit_[b]) continue;  // let the hits drain before closing their row
            c.type = CommandType::PRE;
        } else {
            c.type = CommandType::ACT;
        }
        const uint64_t t = tr.earliest(c);
        if (t <= now) {
            if (other < 0) {
                other = int(i);
                otherCmd = c;
            }
        } else {
            d.next = std::min(d.next, t);
        }
    }
    if (other >= 0) {
        d.issue = true;
        d.cmd = otherCmd;
        d.request = other;
        d.from_writes = v.serve_writes;
        return d;
    }

    // 3. Closed page: precharge banks nobody is waiting for.
    if (policy_ == PagePolicy::Closed) {
        for (unsigned b = 0; b < close_pending_.size(); ++b) {
            if (!close_pending_[b] || !tr.isOpen(b) || has_hit_[b]) continue;
            if (v.refresh.blocksBank(b, now)) continue;  // the refresh will close it
            DramCommand c;
            c.type = CommandType::PRE;
            c.pseudo_channel = v.pseudo_channel;
            c.bank_group = uint8_t(b / tr.banksPerGroup());
            c.bank = uint8_t(b % tr.banksPerGroup());
            const uint64_t t = tr.earliest(c);
            if (t <= now) {
                d.issue = true;
                d.cmd = c;
                return d;
            }
            d.next = std::min(d.next, t);
        }
    }
    return d;
}

void FrFcfsScheduler::onIssued(const Decision& d, const SchedulerView& v) {
    const DramCommand& c = d.cmd;
    const TimingTracker& tr = v.tracker;
    switch (c.type) {
        case CommandType::PRE:
        case CommandType::ACT:
        case CommandType::REFpb:
            close_pending_[tr.bankIndex(c.bank_group, c.bank)] = 0;
            break;
        case CommandType::PREA:
        case CommandType::REF:
            std::fill(close_pending_.begin(), close_pending_.end(), 0);
            break;
        case CommandType::RD:
        case CommandType::WR: {
            if (policy_ != PagePolicy::Closed) break;
            // Close the row unless another queued request (either queue) still wants it.
            bool wanted = false;
            auto scan = [&](const std::vector<BurstRequest>& q, bool isWrites) {
                for (size_t i = 0; i < q.size() && !wanted; ++i) {
                    if (isWrites == d.from_writes && int(i) == d.request) continue;
                    const BurstRequest& r = q[i];
                    wanted = r.bank_group == c.bank_group && r.bank == c.bank && r.row == c.row;
                }
            };
            scan(v.reads, false);
            scan(v.writes, true);
            close_pending_[tr.bankIndex(c.bank_group, c.bank)] = wanted ? 0 : 1;
            break;
        }
    }
}

}  // namespace wsc::dram
