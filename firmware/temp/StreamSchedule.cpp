#include "firmware/temp/StreamSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace wsc::firmware::temp {

const char* stageName(OperatorStage s) {
    switch (s) {
        case OperatorStage::Forward:
            return "forward";
        case OperatorStage::Backward:
            return "backward";
        case OperatorStage::Gradient:
            return "gradient";
    }
    return "?";
}

StreamSchedule::StreamSchedule(Algo a, Kind k, uint32_t n)
    : algo_(a), kind_(k), n_(n), item_(size_t(n) * n, 0), round_(size_t(n) * n, 0) {}

StreamSchedule StreamSchedule::make(Algo a, Kind k, uint32_t n) {
    if (n == 0) throw std::invalid_argument("stream schedule: the group needs at least one die");
    StreamSchedule s(a, k, n);
    if (a == Algo::Tatp)
        s.buildTatpBroadcast();
    else
        s.buildRingBroadcast();
    if (k == Kind::Reduce) s.reverseIntoReduce();
    return s;
}

StreamSchedule StreamSchedule::custom(Algo a, Kind k, uint32_t n,
                                      const std::vector<uint32_t>& items,
                                      std::vector<Transfer> transfers) {
    if (items.size() != size_t(n) * n)
        throw std::invalid_argument("stream schedule: the compute table needs n * n entries");
    StreamSchedule s(a, k, n);
    for (uint32_t p = 0; p < n; ++p)
        for (uint32_t r = 0; r < n; ++r) {
            if (items[size_t(p) * n + r] >= n)
                throw std::invalid_argument("stream schedule: compute item out of range");
            s.setCompute(p, r, items[size_t(p) * n + r]);
        }
    s.transfers_ = std::move(transfers);
    return s;
}

void StreamSchedule::setCompute(uint32_t p, uint32_t r, uint32_t item) {
    item_[size_t(p) * n_ + r] = item;
    round_[size_t(p) * n_ + item] = r;
}

// Algorithm 1's compute rule (lines 2-4): the left half walks its items upwards from its own,
// the right half downwards, so position p needs item j at round |j - p| when j lies on the side
// it walks first, later otherwise. Each item is relayed one chain hop per round in both
// directions from where it starts (the earliest any position can have it: |j - p| rounds);
// every position's need is at least that (docs/TEMP.md), so no position ever waits for a
// multi-hop transfer. Forwarding eagerly keeps exactly one item per directed edge per round.
void StreamSchedule::buildTatpBroadcast() {
    const uint32_t n = n_;
    for (uint32_t p = 0; p < n; ++p)
        for (uint32_t r = 0; r < n; ++r)
            setCompute(p, r, 2 * p < n ? (p + r) % n : (p + n - r) % n);
    for (uint32_t j = 0; j < n; ++j) {
        for (uint32_t d = j; d-- > 0;) transfers_.push_back({j - 1 - d, d + 1, d, j});
        for (uint32_t d = j + 1; d < n; ++d) transfers_.push_back({d - j - 1, d - 1, d, j});
    }
}

// Round r: position p computes with item (p + r) mod n and passes it to its ring predecessor,
// which needs it next round. The predecessor of position 0 is position n - 1: the wrap.
void StreamSchedule::buildRingBroadcast() {
    const uint32_t n = n_;
    for (uint32_t p = 0; p < n; ++p)
        for (uint32_t r = 0; r < n; ++r) setCompute(p, r, (p + r) % n);
    for (uint32_t r = 0; r + 1 < n; ++r)
        for (uint32_t p = 0; p < n; ++p) transfers_.push_back({r, p, (p + n - 1) % n, (p + r) % n});
}

// A reduction is a broadcast run backwards: round r becomes n - 1 - r and every transfer turns
// around. Where the broadcast received an item before computing with it, the reduce computes
// the contribution before sending the partial on (docs/TEMP.md shows the strict order holds).
void StreamSchedule::reverseIntoReduce() {
    const uint32_t n = n_;
    std::vector<uint32_t> item = item_;
    for (uint32_t p = 0; p < n; ++p)
        for (uint32_t r = 0; r < n; ++r) setCompute(p, n - 1 - r, item[size_t(p) * n + r]);
    for (Transfer& t : transfers_) {
        std::swap(t.src, t.dst);
        t.round = n - 1 - t.round;
    }
    std::sort(transfers_.begin(), transfers_.end(), [](const Transfer& a, const Transfer& b) {
        return std::tie(a.round, a.src, a.item) < std::tie(b.round, b.src, b.item);
    });
}

std::vector<StreamSchedule::Hold> StreamSchedule::holds(uint32_t p) const {
    std::vector<Hold> out;
    if (kind_ == Kind::Broadcast) {
        for (const Transfer& t : transfers_) {
            if (t.dst != p) continue;
            uint32_t last = computeRound(p, t.item);
            for (const Transfer& f : transfers_)
                if (f.src == p && f.item == t.item) last = std::max(last, f.round);
            out.push_back({t.item, t.round, last, false, t.src});
        }
        return out;
    }
    // Reduce: a foreign item's accumulator lives from its first write to its send. A partial
    // that arrives before the position's own contribution is received straight into the
    // accumulator (the contribution then accumulates onto it); one that arrives after is received
    // into a copy and added at the start of the next round. The owner's sum is its output, not a
    // stream buffer; the partials it receives are copies added after the last round.
    for (uint32_t j = 0; j < n_; ++j) {
        const uint32_t own = computeRound(p, j);
        uint32_t first = own, send = 0;
        bool sends = false;
        for (const Transfer& t : transfers_)
            if (t.src == p && t.item == j) send = t.round, sends = true;
        for (const Transfer& t : transfers_) {
            if (t.dst != p || t.item != j) continue;
            if (receivesIntoAccumulator(p, t))
                first = std::min(first, t.round);
            else
                out.push_back({j, t.round, addRound(p, t), false, t.src});
        }
        if (j != p && sends) out.push_back({j, first, send, true, p});
    }
    return out;
}

bool StreamSchedule::receivesIntoAccumulator(uint32_t p, const Transfer& t) const {
    return kind_ == Kind::Reduce && t.item != p && t.round < computeRound(p, t.item);
}

uint32_t StreamSchedule::addRound(uint32_t p, const Transfer& t) const {
    const uint32_t own = computeRound(p, t.item);
    return own < t.round + 1 ? t.round + 1 : own;
}

uint32_t StreamSchedule::slotPeak(uint32_t p) const {
    const std::vector<Hold> h = holds(p);
    uint32_t peak = 0;
    for (uint32_t r = 0; r <= n_; ++r) {
        uint32_t live = 0;
        for (const Hold& x : h) live += x.first <= r && r <= x.last;
        peak = std::max(peak, live);
    }
    return peak;
}

StreamSchedule::Slots StreamSchedule::slots(uint32_t p) const {
    const std::vector<Hold> h = holds(p);
    std::vector<size_t> order(h.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return h[a].first < h[b].first; });
    std::vector<int64_t> busy_until;  // per buffer: the last round it is held
    Slots out;
    for (size_t i : order) {
        uint32_t s = 0;
        while (s < busy_until.size() && busy_until[s] >= int64_t(h[i].first)) ++s;
        if (s == busy_until.size()) busy_until.push_back(0);
        busy_until[s] = h[i].last;
        out.of[{h[i].item, h[i].accumulator, h[i].from}] = s;
    }
    out.count = uint32_t(busy_until.size());
    return out;
}

uint32_t StreamSchedule::slotPeak() const {
    uint32_t peak = 0;
    for (uint32_t p = 0; p < n_; ++p) peak = std::max(peak, slotPeak(p));
    return peak;
}

void StreamSchedule::check() const {
    const uint32_t n = n_;
    auto fail = [&](const std::string& why) {
        throw std::logic_error(
            fmt::format("{} {} over {} dies: {}", name(algo_), name(kind_), n, why));
    };
    for (uint32_t p = 0; p < n; ++p) {
        std::vector<uint8_t> seen(n, 0);
        for (uint32_t r = 0; r < n; ++r) {
            const uint32_t j = computeItem(p, r);
            if (seen[j]++) fail(fmt::format("position {} computes item {} twice", p, j));
            if (computeRound(p, j) != r) fail("compute tables disagree");
        }
    }
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> edge;  // (round, src, dst)
    for (const Transfer& t : transfers_) {
        if (t.src >= n || t.dst >= n || t.item >= n || t.src == t.dst)
            fail("transfer out of range");
        if (kind_ == Kind::Broadcast ? t.round + 1 >= n : t.round == 0 || t.round >= n)
            fail(fmt::format("transfer of item {} in round {} is outside the rounds", t.item,
                             t.round));
        if (++edge[{t.round, t.src, t.dst}] > 1)
            fail(fmt::format("two transfers on {} -> {} in round {}", t.src, t.dst, t.round));
        if (algo_ == Algo::Tatp && (t.src + 1 != t.dst && t.dst + 1 != t.src))
            fail(fmt::format("transfer {} -> {} is not one chain hop", t.src, t.dst));
    }
    // Arrivals: (position, item) -> round of the transfer that delivers it.
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> arrival;
    for (const Transfer& t : transfers_)
        if (!arrival.emplace(std::make_pair(t.dst, t.item), t.round).second &&
            kind_ == Kind::Broadcast)
            fail(fmt::format("position {} receives item {} twice", t.dst, t.item));
    if (kind_ == Kind::Broadcast) {
        auto heldAt = [&](uint32_t p, uint32_t j, uint32_t r) {
            if (p == j) return true;
            auto it = arrival.find({p, j});
            return it != arrival.end() && it->second < r;
        };
        for (uint32_t p = 0; p < n; ++p)
            for (uint32_t r = 0; r < n; ++r)
                if (!heldAt(p, computeItem(p, r), r))
                    fail(fmt::format(
                        "position {} computes with item {} in round {} before it has it", p,
                        computeItem(p, r), r));
        for (const Transfer& t : transfers_)
            if (!heldAt(t.src, t.item, t.round))
                fail(fmt::format("position {} sends item {} in round {} before it has it", t.src,
                                 t.item, t.round));
        return;
    }
    // Reduce: every non-owner sends its partial once, after its own contribution and after every
    // partial it receives for that item; following the sends from any position reaches the owner.
    std::map<std::pair<uint32_t, uint32_t>, const Transfer*> send;
    for (const Transfer& t : transfers_) {
        if (t.src == t.item) fail(fmt::format("the owner of item {} sends it away", t.item));
        if (!send.emplace(std::make_pair(t.src, t.item), &t).second)
            fail(fmt::format("position {} sends partial {} twice", t.src, t.item));
        if (computeRound(t.src, t.item) >= t.round)
            fail(fmt::format("position {} sends partial {} in round {} before contributing", t.src,
                             t.item, t.round));
    }
    for (const Transfer& t : transfers_) {
        auto s = send.find({t.dst, t.item});
        if (s != send.end() && s->second->round <= t.round)
            fail(fmt::format("position {} forwards partial {} before receiving it", t.dst, t.item));
    }
    for (uint32_t p = 0; p < n; ++p)
        for (uint32_t j = 0; j < n; ++j) {
            uint32_t at = p, steps = 0;
            while (at != j) {
                auto s = send.find({at, j});
                if (s == send.end() || ++steps > n)
                    fail(fmt::format("the contribution of position {} to item {} never arrives", p,
                                     j));
                at = s->second->dst;
            }
        }
}

}  // namespace wsc::firmware::temp
