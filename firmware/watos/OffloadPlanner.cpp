#include "firmware/watos/OffloadPlanner.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "firmware/llm/MemoryLedger.h"

namespace wsc::firmware::watos {

using llm::MemoryLedger;

OffloadPlanner::Plan OffloadPlanner::plan(const Accounting& account,
                                          const std::vector<uint64_t>& stage_layers,
                                          uint64_t capacity, const CostFn& cost) {
    const uint32_t stages = static_cast<uint32_t>(stage_layers.size());
    Plan out;
    const Figures base = account(llm::OffloadSpec{});
    if (base.extent.size() != stages)
        throw std::invalid_argument("offload planner: accounting gave the wrong stage count");
    out.before = base.extent;
    out.after = base.extent;
    out.held.assign(stages, 0);
    std::vector<uint32_t> senders;
    for (uint32_t s = 0; s < stages; ++s)
        if (base.extent[s] > capacity) senders.push_back(s);
    if (senders.empty()) return out;
    auto fail = [&](std::string why) {
        out.feasible = false;
        out.why = std::move(why);
        return out;
    };
    // A stand-in Helper for the accounting builds of step 2 (only the Senders' peaks are read):
    // the stage with the lowest peak among the others.
    uint32_t stand_in = stages;
    for (uint32_t s = 0; s < stages; ++s)
        if (base.extent[s] <= capacity &&
            (stand_in == stages || base.extent[s] < base.extent[stand_in]))
            stand_in = s;
    if (stand_in == stages)
        return fail(fmt::format("every stage is over the die's {}: no stage can help",
                                MemoryLedger::size(capacity)));

    std::vector<uint64_t> k(stages, 0);  // layers each Sender offloads (0: not settled yet)
    uint64_t most = 0;
    for (uint32_t s : senders) most = std::max(most, stage_layers[s]);
    for (uint64_t n = 1; n <= most; ++n) {
        llm::OffloadSpec t;
        t.layers.assign(stages, 0);
        bool open = false;
        for (uint32_t s : senders)
            if (!k[s]) {
                t.layers[s] = std::min(n, stage_layers[s]);
                t.pairs.push_back({s, stand_in, 1.0});
                open = true;
            }
        if (!open) break;
        const Figures f = account(t);
        for (uint32_t s : senders)
            if (!k[s] && f.extent[s] <= capacity) k[s] = t.layers[s], out.held[s] = f.held[s];
    }
    for (uint32_t s : senders)
        if (!k[s])
            return fail(fmt::format(
                "stage {} needs {} per die even with the activations of all its {} layers "
                "offloaded, the die has {}",
                s, MemoryLedger::size(base.extent[s]), stage_layers[s],
                MemoryLedger::size(capacity)));

    // Algorithm 3 over stages: a Sender's demand is what it holds on helpers, a Helper's free
    // memory what its own extent leaves (its region goes below everything else it allocates).
    std::vector<DieMemory> mem(stages);
    for (uint32_t s = 0; s < stages; ++s) {
        mem[s].capacity = capacity;
        mem[s].footprint = k[s] ? capacity + out.held[s] : base.extent[s];
    }
    out.balance = MemoryBalancer(cost).balance(mem);
    if (!out.balance.feasible())
        return fail(fmt::format("the Helpers cannot hold the offloaded checkpoints: {}",
                                out.balance.summary()));
    out.spec.layers = k;
    for (const Allocation& a : out.balance.allocations)
        out.spec.pairs.push_back(
            {a.sender, a.helper, double(a.bytes) / double(out.held[a.sender])});
    // Shares of one Sender in pair order, the last one taking the rest (StepBuilder does too).
    const Figures f = account(out.spec);
    out.after = f.extent;
    for (uint32_t s = 0; s < stages; ++s)
        if (f.extent[s] > capacity)
            return fail(fmt::format("with the offload, stage {} needs {} per die, the die has {}",
                                    s, MemoryLedger::size(f.extent[s]),
                                    MemoryLedger::size(capacity)));
    return out;
}

std::vector<std::string> OffloadPlanner::describe(const Plan& p) {
    std::vector<std::string> out;
    for (const llm::OffloadPair& q : p.spec.pairs)
        out.push_back(fmt::format(
            "stage {} -> stage {}: first {} layers' kept activations, {:.1f}% of them ({} per die "
            "at most)",
            q.sender, q.helper, p.spec.layers[q.sender], 100.0 * q.share,
            MemoryLedger::size(uint64_t(double(p.held[q.sender]) * q.share + 0.5))));
    return out;
}

}  // namespace wsc::firmware::watos
