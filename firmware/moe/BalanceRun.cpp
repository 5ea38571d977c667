#include "firmware/moe/BalanceRun.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "firmware/moe/ExpertPlacement.h"
#include "firmware/moe/GreedyBalancer.h"
#include "firmware/moe/NiBalancer.h"
#include "firmware/moe/TopologyAwareBalancer.h"

namespace wsc::firmware::moe {

BalanceRun::BalanceRun(const MoeMapping& mapping, const BalanceRunConfig& c, Selections sel)
    : m_(mapping), c_(c), sel_(std::move(sel)) {
    const uint32_t dies = m_.mesh().dies();
    if (c.experts == 0 || c.experts % dies)
        throw std::invalid_argument(fmt::format(
            "balance run: {} experts do not divide over the mapping's {} dies", c.experts, dies));
    if (c.balancer == "greedy")
        bal_ = std::make_unique<GreedyBalancer>();
    else if (c.balancer == "topo")
        bal_ = std::make_unique<TopologyAwareBalancer>();
    else if (c.balancer == "ni")
        bal_ = std::make_unique<NiBalancer>(m_, c.topK);
    else if (c.balancer != "none")
        throw std::invalid_argument(
            fmt::format("balancer '{}': expected none, greedy, topo or ni", c.balancer));
    // Eq. 2: the non-invasive balancer hides its migrations, so it may run every iteration.
    if (c.balancer == "ni") c_.trigger.beta = 0;
}

const std::vector<BalanceIteration>& BalanceRun::run() {
    out_.clear();
    const DieMesh& mesh = m_.mesh();
    const ExpertPlacement native = ExpertPlacement::contiguous(c_.experts, mesh.dies(), c_.slots);
    std::vector<ExpertPlacement> now(c_.layers, native);
    const BalanceTrigger trig(c_.trigger);
    uint32_t since = 1u << 30;  // iterations since the last migration: none yet
    for (uint32_t it = 0; it < c_.iterations; ++it) {
        BalanceIteration r;
        std::vector<std::vector<double>> die_load;
        std::vector<std::vector<double>> expert_load;
        for (uint32_t j = 0; j < c_.layers; ++j) {
            std::vector<double> load(c_.experts, 0.0);
            for (const auto& t : sel_(it, j))
                for (uint32_t e : t) {
                    if (e >= c_.experts)
                        throw std::invalid_argument(fmt::format(
                            "balance run: iteration {} layer {} picks expert {}, the model has "
                            "{}",
                            it, j, e, c_.experts));
                    load[e] += 1.0;
                }
            const std::vector<double> heat = now[j].heat(load);
            double mx = 0, sum = 0;
            for (double h : heat) mx = std::max(mx, h), sum += h;
            const double mean = sum / double(heat.size());
            r.peak.push_back(mean > 0 ? mx / mean : 1.0);
            die_load.push_back(heat);
            expert_load.push_back(std::move(load));
        }
        r.worstPeak = *std::max_element(r.peak.begin(), r.peak.end());
        for (double p : r.peak) r.meanPeak += p / double(r.peak.size());
        ++since;
        // After the last iteration a rebalance would place copies no iteration uses.
        if (bal_ && it + 1 < c_.iterations && trig.fires(die_load, since)) {
            r.rebalanced = true;
            since = 0;
            for (uint32_t j = 0; j < c_.layers; ++j) {
                const BalancePlan p = bal_->plan(mesh, native, expert_load[j]);
                for (const Migration& mig : p.migrations)
                    if (!now[j].hosts(mig.to, mig.expert)) {
                        ++r.migrations;
                        r.linkHops += uint32_t(mig.path.size());
                    }
                now[j] = p.after;
            }
        }
        out_.push_back(std::move(r));
    }
    return out_;
}

}  // namespace wsc::firmware::moe
