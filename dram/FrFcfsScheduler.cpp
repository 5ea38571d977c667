#include "dram/FrFcfsScheduler.h"

#include <algorithm>

#include "dram/RefreshPolicy.h"
#include "dram/TimingTracker.h"

namespace wsc::dram {

std::unique_ptr<Scheduler> Scheduler::create(const HbmParams& p) {
    return std::make_unique<FrFcfsScheduler>(p);
}

FrFcfsScheduler::FrFcfsScheduler(const HbmParams& p)
    : policy_(p.page_policy),
      starvation_limit_(p.starvation_limit),
      has_hit_(p.banksPerPseudoChannel()),
      seen_hit_(p.banksPerPseudoChannel()),
      seen_other_(p.banksPerPseudoChannel()),
      pre_candidate_(p.banksPerPseudoChannel()),
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

    // 2. Requests of the served queue, oldest first, in one pass. Requests to one bank that need
    // the same kind of command (column hit, or ACT/PRE) share one earliest cycle and only the
    // oldest can win, so each (bank, kind) is evaluated once. A PRE is only a candidate: it is
    // judged after the pass, once we know whether any queued request still hits that row.
    const std::vector<BurstRequest>& q = v.serve_writes ? v.writes : v.reads;
    // Starvation guard: hits keep winning in FR-FCFS, so a request whose row conflicts with a
    // popular row could wait forever. Past the limit the oldest request is served alone.
    if (starvation_limit_ > 0 && !q.empty() && now - q.front().arrival > starvation_limit_) {
        const BurstRequest& r = q.front();
        const unsigned b = tr.bankIndex(r.bank_group, r.bank);
        if (!v.refresh.blocksBank(b, now)) {
            DramCommand c;
            c.pseudo_channel = v.pseudo_channel;
            c.bank_group = r.bank_group;
            c.bank = r.bank;
            c.row = r.row;
            c.column = r.column;
            if (!tr.isOpen(b))
                c.type = CommandType::ACT;
            else if (tr.openRow(b) != r.row)
                c.type = CommandType::PRE;
            else
                c.type = r.write ? CommandType::WR : CommandType::RD;
            const uint64_t t = tr.earliest(c);
            if (t <= now) {
                d.issue = true;
                d.cmd = c;
                d.request = 0;
                d.from_writes = v.serve_writes;
                return d;
            }
            d.next = std::min(d.next, t);
            ++starved_waits_;
            return d;
        }
    }
    std::fill(has_hit_.begin(), has_hit_.end(), 0);
    std::fill(seen_hit_.begin(), seen_hit_.end(), 0);
    std::fill(seen_other_.begin(), seen_other_.end(), 0);
    std::fill(pre_candidate_.begin(), pre_candidate_.end(), -1);
    int other = -1;
    DramCommand otherCmd;
    auto commandFor = [&](const BurstRequest& r, CommandType type) {
        DramCommand c;
        c.type = type;
        c.pseudo_channel = v.pseudo_channel;
        c.bank_group = r.bank_group;
        c.bank = r.bank;
        c.row = r.row;
        c.column = r.column;
        return c;
    };
    for (size_t i = 0; i < q.size(); ++i) {
        const BurstRequest& r = q[i];
        const unsigned b = tr.bankIndex(r.bank_group, r.bank);
        const bool open = tr.isOpen(b);
        const bool hit = open && tr.openRow(b) == r.row;
        if (hit) has_hit_[b] = 1;
        uint8_t& seen = hit ? seen_hit_[b] : seen_other_[b];
        if (seen) continue;
        seen = 1;
        if (v.refresh.blocksBank(b, now)) continue;
        if (hit) {
            const DramCommand c = commandFor(r, r.write ? CommandType::WR : CommandType::RD);
            const uint64_t t = tr.earliest(c);
            if (t <= now) {  // the oldest ready hit wins outright
                d.issue = true;
                d.cmd = c;
                d.request = int(i);
                d.from_writes = v.serve_writes;
                return d;
            }
            d.next = std::min(d.next, t);
        } else if (open) {
            pre_candidate_[b] = int(i);
        } else if (other < 0) {  // once an older ACT is ready, only hits can still beat it
            const DramCommand c = commandFor(r, CommandType::ACT);
            const uint64_t t = tr.earliest(c);
            if (t <= now) {
                other = int(i);
                otherCmd = c;
            } else {
                d.next = std::min(d.next, t);
            }
        }
    }
    for (unsigned b = 0; b < pre_candidate_.size(); ++b) {
        const int i = pre_candidate_[b];
        if (i < 0 || has_hit_[b]) continue;  // let the hits drain before closing their row
        const DramCommand c = commandFor(q[size_t(i)], CommandType::PRE);
        const uint64_t t = tr.earliest(c);
        if (t > now) {
            d.next = std::min(d.next, t);
        } else if (other < 0 || i < other) {
            other = i;
            otherCmd = c;
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
