#include "dram/HbmController.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::dram {

namespace {
const HbmParams& validated(const HbmParams& p) {
    p.validate();
    return p;
}
// Bounds the front-end look-ahead so a deep backlog cannot make one tick expensive.
constexpr size_t kFeedWindow = 256;
}  // namespace

HbmController::HbmController(const HbmParams& p)
    : p_(validated(p)),
      mapper_(p),
      access_(p.accessBytes()),
      txns_(p.max_outstanding),
      blocked_(p.pseudoChannelCount()),
      completed_(p.max_outstanding) {
    const uint32_t n = p.pseudoChannelCount();
    channels_.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        channels_.push_back(std::make_unique<ChannelController>(p_, uint16_t(i), *this));
        if (p.check_protocol) {
            checkers_.push_back(std::make_unique<ProtocolChecker>(p_, i));
            channels_.back()->addObserver(checkers_.back().get());
        }
    }
    free_.reserve(p.max_outstanding);
    for (uint32_t i = p.max_outstanding; i-- > 0;) free_.push_back(i);
    admit_.reserve(p.max_outstanding);
}

HbmController::~HbmController() = default;

void HbmController::submit(uint64_t addr, uint32_t bytes, bool write, uint64_t now, uint64_t user) {
    if (free_.empty()) throw std::logic_error("hbm: submit() without a free transaction slot");
    if (bytes == 0 || addr + bytes > mapper_.capacity() || addr + bytes < addr)
        throw std::out_of_range(fmt::format("hbm: access [{:#x}, +{}) outside the stack's {} bytes",
                                            addr, bytes, mapper_.capacity()));
    const uint32_t slot = free_.back();
    free_.pop_back();
    const uint64_t first = addr / access_ * access_;
    const uint64_t end = (addr + bytes + access_ - 1) / access_ * access_;
    Txn& t = txns_[slot];
    t.user = user;
    t.arrival = now;
    t.next_addr = first;
    t.unfed = t.remaining = uint32_t((end - first) / access_);
    t.write = write;
    admit_.push_back(slot);  // capacity reserved for every slot
    first_arrival_ = std::min(first_arrival_, now);
    feed_dirty_ = true;
}

void HbmController::feed(uint64_t now) {
    if (!feed_dirty_) return;
    feed_dirty_ = false;
    // Bursts enter their pseudo-channel queue in arrival order per pseudo-channel; a full queue
    // blocks only later bursts to the same pseudo-channel, not the whole front end.
    std::fill(blocked_.begin(), blocked_.end(), 0);
    size_t blockedCount = 0, out = 0, i = 0;
    for (; i < admit_.size(); ++i) {
        if (blockedCount == blocked_.size()) break;
        if (i >= kFeedWindow) {
            feed_dirty_ = true;  // the window cut the scan short: continue next cycle
            break;
        }
        const uint32_t slot = admit_[i];
        Txn& t = txns_[slot];
        while (t.unfed > 0) {
            const DecodedAddress d = mapper_.decode(t.next_addr);
            const uint32_t pch = mapper_.flatPseudoChannel(d);
            ChannelController& ch = *channels_[pch];
            if (blocked_[pch] || !ch.canAccept(t.write)) {
                if (!blocked_[pch]) ++blockedCount;
                blocked_[pch] = 1;
                break;
            }
            BurstRequest r;
            r.tag = slot;
            r.row = d.row;
            r.column = d.column;
            r.bank_group = uint8_t(d.bank_group);
            r.bank = uint8_t(d.bank);
            r.write = t.write;
            ch.enqueue(r, now);
            t.next_addr += access_;
            --t.unfed;
        }
        // A partly fed transaction blocks its own remaining bursts' channel, which keeps
        // per-channel order: later transactions to that channel see it blocked.
        if (t.unfed > 0) admit_[out++] = slot;
    }
    for (; i < admit_.size(); ++i) admit_[out++] = admit_[i];
    admit_.resize(out);  // shrinking never allocates
}

void HbmController::tick(uint64_t now) {
    last_tick_ = now;
    feed(now);
    size_t queuedBefore = 0, queuedAfter = 0;
    for (auto& ch : channels_) {
        if (ch->nextWake() > now) continue;
        queuedBefore += ch->readQueueLength() + ch->writeQueueLength();
        ch->tick(now);
        queuedAfter += ch->readQueueLength() + ch->writeQueueLength();
    }
    if (queuedAfter < queuedBefore && !admit_.empty()) feed_dirty_ = true;
    feed(now);
}

uint64_t HbmController::nextWake() const {
    uint64_t w = feed_dirty_ ? last_tick_ + 1 : kNever;
    for (const auto& ch : channels_) w = std::min(w, ch->nextWake());
    return w;
}

void HbmController::burstDone(uint32_t tag, bool, uint64_t cycle) {
    Txn& t = txns_[tag];
    if (--t.remaining > 0) return;
    const uint64_t lat = cycle - t.arrival;
    (t.write ? write_lat_ : read_lat_).record(lat);
    ++transactions_;
    last_completion_ = std::max(last_completion_, cycle);
    completed_.push(HbmCompletion{t.user, t.arrival, cycle, t.write});
    free_.push_back(tag);
}

bool HbmController::popCompletion(HbmCompletion& out) {
    if (completed_.empty()) return false;
    out = completed_.front();
    completed_.pop();
    return true;
}

void HbmController::finish(uint64_t now) {
    for (auto& c : checkers_) c->finish(now);
}

uint64_t HbmController::commandsChecked() const {
    uint64_t n = 0;
    for (const auto& c : checkers_) n += c->checked();
    return n;
}

HbmStats HbmController::stats(uint64_t now) const {
    HbmStats s;
    for (const auto& ch : channels_) s.channels.add(ch->stats(now));
    s.read_latency = read_lat_;
    s.write_latency = write_lat_;
    s.transactions = transactions_;
    s.bytes_read = s.channels.reads * access_;
    s.bytes_written = s.channels.writes * access_;
    s.first_arrival = first_arrival_;
    s.last_completion = last_completion_;
    s.pseudo_channels = p_.pseudoChannelCount();
    return s;
}

}  // namespace wsc::dram
