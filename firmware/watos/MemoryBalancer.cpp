#include "firmware/watos/MemoryBalancer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>

#include "firmware/llm/MemoryLedger.h"

namespace wsc::firmware::watos {

uint64_t BalanceResult::receivedBy(uint32_t helper) const {
    uint64_t n = 0;
    for (const Allocation& a : allocations)
        if (a.helper == helper) n += a.bytes;
    return n;
}

uint64_t BalanceResult::offloadedFrom(uint32_t sender) const {
    uint64_t n = 0;
    for (const Allocation& a : allocations)
        if (a.sender == sender) n += a.bytes;
    return n;
}

std::string BalanceResult::summary() const {
    using llm::MemoryLedger;
    const std::string head = fmt::format("{} senders, {} helpers: {} overflow", senders.size(),
                                         helpers.size(), MemoryLedger::size(overflow));
    if (feasible()) return head + " placed";
    return fmt::format("{}, {} free, short by {}", head, MemoryLedger::size(free),
                       MemoryLedger::size(shortfall));
}

MemoryBalancer::MemoryBalancer(CostFn cost) : cost_(std::move(cost)) {
    if (!cost_) throw std::invalid_argument("MemoryBalancer: no cost function");
}

MemoryBalancer::CostFn MemoryBalancer::hopCost(const placement::DieArray& a) {
    return [a](uint32_t s, uint32_t h) { return double(a.hops(s, h)); };
}

BalanceResult MemoryBalancer::balance(const std::vector<DieMemory>& dies) const {
    BalanceResult r;
    std::vector<uint64_t> overflow(dies.size(), 0), free(dies.size(), 0);
    for (uint32_t d = 0; d < dies.size(); ++d) {
        if (dies[d].footprint > dies[d].capacity) {
            overflow[d] = dies[d].footprint - dies[d].capacity;
            r.senders.push_back(d);
            r.overflow += overflow[d];
        } else if (dies[d].footprint < dies[d].capacity) {
            free[d] = dies[d].capacity - dies[d].footprint;
            r.helpers.push_back(d);
            r.free += free[d];
        }
    }
    // Stable sorts over ascending ids: ties stay in die order.
    std::stable_sort(r.senders.begin(), r.senders.end(),
                     [&](uint32_t a, uint32_t b) { return overflow[a] > overflow[b]; });
    std::stable_sort(r.helpers.begin(), r.helpers.end(),
                     [&](uint32_t a, uint32_t b) { return free[a] > free[b]; });

    struct Entry {
        double cost;
        uint64_t free;
        uint32_t die;
    };
    // std::priority_queue pops the largest: "a after b" means a is worse.
    auto worse = [](const Entry& a, const Entry& b) {
        if (a.cost != b.cost) return a.cost > b.cost;
        if (a.free != b.free) return a.free < b.free;
        return a.die > b.die;
    };
    for (uint32_t s : r.senders) {
        std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> q(worse);
        for (uint32_t h : r.helpers) {
            if (free[h] == 0) continue;
            const double c = cost_(s, h);
            if (std::isnan(c))
                throw std::invalid_argument(
                    fmt::format("MemoryBalancer: cost({}, {}) is NaN", s, h));
            q.push({c, free[h], h});
        }
        uint64_t need = overflow[s];
        while (need > 0 && !q.empty()) {
            Entry e = q.top();
            q.pop();
            const uint64_t take = std::min(e.free, need);
            r.allocations.push_back({s, e.die, take});
            need -= take;
            free[e.die] -= take;
            e.free = free[e.die];
            if (e.free > 0) q.push(e);  // reprioritised with what is left (Algorithm 3 line 8)
        }
        // need > 0 here only when every Helper is full: the shortfall is then the global one.
    }
    if (r.overflow > r.free) {
        r.status = BalanceResult::Status::Infeasible;
        r.shortfall = r.overflow - r.free;
    }
    return r;
}

}  // namespace wsc::firmware::watos
