#include "firmware/llm/RoutingSource.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "firmware/moe/DieMesh.h"
#include "firmware/moe/ExpertPlacement.h"
#include "firmware/moe/GreedyBalancer.h"
#include "firmware/moe/TopologyAwareBalancer.h"

namespace wsc::firmware::llm {

RoutingSource::RoutingSource(const RoutingOptions& o, const model::ModelConfig& m,
                             const plan::ParallelPlan& p, const std::vector<uint32_t>& rank_die,
                             const placement::DieArray& dies, uint64_t tokens)
    : o_(o), m_(m), p_(p), rank_die_(rank_die), dies_(dies) {
    if (!enabled()) return;
    if (!m.isMoe())
        throw std::invalid_argument(
            fmt::format("expert routing needs an MoE model ({} is dense)", m.name));
    for (uint64_t l = 0; l < m.layers; ++l) moe_layers_ += m.moeLayer(l) ? 1 : 0;
    const uint32_t E = m.moe.experts, k = m.moe.experts_per_token;
    if (o.source == RoutingOptions::Source::Trace) {
        trace_ = std::make_unique<moe::ExpertTrace>(moe::ExpertTrace::readFile(o.trace));
        const moe::TraceHeader& h = trace_->header();
        if (h.experts != E || h.topK != k)
            throw std::invalid_argument(fmt::format(
                "{}: the trace has {} experts, top-{}; the model {} has {} experts, top-{}",
                o.trace, h.experts, h.topK, m.name, E, k));
        if (h.layers != moe_layers_)
            throw std::invalid_argument(
                fmt::format("{}: the trace has {} MoE layers; the model {} has {}", o.trace,
                            h.layers, m.name, moe_layers_));
        if (o.iteration >= trace_->iterations())
            throw std::invalid_argument(
                fmt::format("{}: --iteration {} asked, the trace has iterations 0..{}", o.trace,
                            o.iteration, int64_t(trace_->iterations()) - 1));
        text_ = fmt::format("trace {} ({} tokens per iteration), iteration {}", o.trace, h.tokens,
                            o.iteration);
    } else {
        moe::GatingConfig g = o.gating;
        g.experts = E, g.topK = k, g.layers = moe_layers_, g.tokens = 1;
        try {
            moe::GatingModel check(g);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(
                fmt::format("--gating {} with model {} ({} experts, top-{}): {}",
                            moe::gatingName(g.kind), m.name, E, k, e.what()));
        }
        std::string knobs;
        if (g.kind == moe::GatingKind::Zipf) knobs = fmt::format(" s={}", g.zipfS);
        if (g.kind == moe::GatingKind::Temporal)
            knobs =
                fmt::format(" hot={} p={} drift={}", g.hotExperts, g.hotProbability, g.driftRate);
        text_ = fmt::format("{} gating{}, seed {}, iteration {}", moe::gatingName(g.kind), knobs,
                            g.seed, o.iteration);
    }
    if (o.balancer == "none") return;
    if (o.balancer != "greedy" && o.balancer != "topo")
        throw std::invalid_argument(
            fmt::format("balancer '{}': expected none, greedy or topo", o.balancer));
    if (p.pp > 1 || p.ep != p.stageRanks())
        throw std::invalid_argument(fmt::format(
            "balancer {}: plan {} must have pp = 1 and ep over all {} ranks (copies go to any die)",
            o.balancer, p.str(), p.stageRanks()));
    if (o.iteration == 0)
        throw std::invalid_argument(fmt::format(
            "balancer {}: places copies from the previous iteration's load: --iteration must be "
            ">= 1",
            o.balancer));
    // The balancer works on dies; rank r (EP member r) natively hosts experts r*E/ep .. .
    const uint32_t per = E / p.ep;
    std::vector<std::vector<uint32_t>> native(dies.dies());
    std::vector<int64_t> member_of(dies.dies(), -1);
    for (uint32_t r = 0; r < p.ep; ++r) {
        for (uint32_t e = r * per; e < (r + 1) * per; ++e) native[rank_die[r]].push_back(e);
        member_of[rank_die[r]] = r;
    }
    const moe::ExpertPlacement start = moe::ExpertPlacement::fromNative(native, o.slots);
    const moe::DieMesh mesh(dies.x, dies.y);
    std::unique_ptr<moe::ExpertBalancer> bal;
    if (o.balancer == "greedy")
        bal = std::make_unique<moe::GreedyBalancer>();
    else
        bal = std::make_unique<moe::TopologyAwareBalancer>();
    // The load the balancer sees: the previous iteration's picks per expert (the trace's
    // tokens, or the gating model's at the step's).
    const uint64_t T = trace_ ? trace_->header().tokens : tokens;
    const auto prev = selections(o.iteration - 1, T);
    double before = 0, after = 0, hops = 0, copies = 0;
    for (uint32_t j = 0; j < moe_layers_; ++j) {
        std::vector<double> load(E, 0.0);
        for (const auto& t : prev[j])
            for (uint32_t e : t) load[e] += 1.0;
        const moe::BalancePlan bp = bal->plan(mesh, start, load);
        std::vector<std::vector<uint32_t>> h(E);
        for (uint32_t e = 0; e < E; ++e)
            for (uint32_t d : bp.after.hosts(e)) h[e].push_back(uint32_t(member_of[d]));
        hosts_.push_back(std::move(h));
        const double mean = double(T) * k / dies.dies();
        before = std::max(before, bp.maxBefore() / mean);
        after = std::max(after, bp.maxAfter() / mean);
        hops += bp.totalHops(), copies += double(bp.migrations.size());
    }
    text_ += fmt::format(
        "; balancer {} ({} slot(s) per die, from iteration {}'s load): {:.0f} copies over {} MoE "
        "layers, {:.0f} link-hops, predicted peak die load {:.2f}x -> {:.2f}x the mean (worst "
        "layer); migrations are not simulated",
        bal->name(), o.slots, o.iteration - 1, copies, moe_layers_, hops, before, after);
}

std::vector<std::vector<std::vector<uint32_t>>> RoutingSource::selections(uint32_t iter,
                                                                          uint64_t T) const {
    std::vector<std::vector<std::vector<uint32_t>>> out;
    if (trace_) {
        for (uint32_t j = 0; j < moe_layers_; ++j) out.push_back(trace_->selections(iter, j));
        return out;
    }
    moe::GatingConfig g = o_.gating;
    g.experts = m_.moe.experts, g.topK = m_.moe.experts_per_token, g.layers = moe_layers_;
    if (T > UINT32_MAX)
        throw std::invalid_argument(fmt::format("expert routing: {} tokens per step", T));
    g.tokens = static_cast<uint32_t>(T);
    const moe::GatingModel gm(g);
    for (uint32_t j = 0; j < moe_layers_; ++j) out.push_back(gm.selectLayer(iter, j));
    return out;
}

std::shared_ptr<const ExpertRouting> RoutingSource::forTokens(uint64_t T) const {
    if (!enabled()) return nullptr;
    if (trace_ && trace_->header().tokens != T)
        throw std::invalid_argument(
            fmt::format("{}: the trace has {} tokens per iteration; this step has {} (prefill: "
                        "--batch x --prompt; decode: --batch)",
                        o_.trace, trace_->header().tokens, T));
    auto r = std::make_shared<ExpertRouting>();
    r->layers = selections(o_.iteration, T);
    r->hosts = hosts_;
    r->source = text_;
    return r;
}

}  // namespace wsc::firmware::llm
