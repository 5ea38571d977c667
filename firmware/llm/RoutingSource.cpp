#include "firmware/llm/RoutingSource.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "firmware/moe/DieMesh.h"
#include "firmware/moe/ExpertPlacement.h"
#include "firmware/moe/GreedyBalancer.h"
#include "firmware/moe/MoeMapping.h"
#include "firmware/moe/NiBalancer.h"
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
    if (o.balancer != "greedy" && o.balancer != "topo" && o.balancer != "ni")
        throw std::invalid_argument(
            fmt::format("balancer '{}': expected none, greedy, topo or ni", o.balancer));
    if (p.pp > 1 || p.ep != p.stageRanks())
        throw std::invalid_argument(fmt::format(
            "balancer {}: plan {} must have pp = 1 and ep over all {} ranks (copies go to any die)",
            o.balancer, p.str(), p.stageRanks()));
    if (o.iteration == 0)
        throw std::invalid_argument(fmt::format(
            "balancer {}: places copies from the previous iteration's load: --iteration must be "
            ">= 1",
            o.balancer));
    if (p.ep > E || E % p.ep)
        throw std::invalid_argument(fmt::format(
            "balancer {}: plan {} spreads the {} experts unevenly over ep={} dies; the balancers "
            "place copies of experts dealt E / ep to a die (ep divides the experts)",
            o.balancer, p.str(), E, p.ep));
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
    std::unique_ptr<moe::NiBalancer> ni;
    if (o.balancer == "greedy") {
        bal = std::make_unique<moe::GreedyBalancer>();
    } else if (o.balancer == "topo") {
        bal = std::make_unique<moe::TopologyAwareBalancer>();
    } else {
        // NI-Balancer: its local and global steps follow the hot and cold links of the mapping's
        // all-reduce rings and all-to-all, so it needs MoEntwine's mapping of the TP groups,
        // with the dies of this placement.
        if (p.tp < 2 || (o.mapping != "er" && o.mapping != "moe-baseline"))
            throw std::invalid_argument(fmt::format(
                "balancer ni: migrates on the cold links of MoEntwine's mappings: needs --mapping "
                "er or baseline and tp >= 2 (plan {}, placement {})",
                p.str(), o.mapping.empty() ? "not a MoEntwine mapping" : o.mapping));
        const moe::MoeMapping mp = o.mapping == "er" ? moe::MoeMapping::entwined(mesh, p.dp, p.tp)
                                                     : moe::MoeMapping::baseline(mesh, p.dp, p.tp);
        if (mp.placement() != rank_die)
            throw std::logic_error("balancer ni: the mapping's dies differ from the placement's");
        ni = std::make_unique<moe::NiBalancer>(mp, k);
    }
    const moe::ExpertBalancer& balancer = ni ? static_cast<const moe::ExpertBalancer&>(*ni) : *bal;
    // The load the balancer sees: an iteration's picks per expert (the trace's tokens, or the
    // gating model's at the step's).
    const uint64_t T = trace_ ? trace_->header().tokens : tokens;
    auto plans = [&](uint32_t iter) {
        const auto picks = selections(iter, T);
        std::vector<moe::BalancePlan> out;
        for (uint32_t j = 0; j < moe_layers_; ++j) {
            std::vector<double> load(E, 0.0);
            for (const auto& t : picks[j])
                for (uint32_t e : t) load[e] += 1.0;
            out.push_back(balancer.plan(mesh, start, load));
        }
        return out;
    };
    const std::vector<moe::BalancePlan> used = plans(o.iteration - 1);
    double before = 0, after = 0, hops = 0, copies = 0;
    for (uint32_t j = 0; j < moe_layers_; ++j) {
        const moe::BalancePlan& bp = used[j];
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
        "layer)",
        balancer.name(), o.slots, o.iteration - 1, copies, moe_layers_, hops, before, after);
    if (!o.migrate) {
        text_ += "; migrations not simulated (--no-migration)";
        return;
    }
    // Migrations: the copies a plan adds to the one before it (a copy already on its die stays
    // there). Invasive balancers install this step's copies before it starts; NI-Balancer moves
    // the next iteration's copies (planned from this iteration's load) during this step.
    const uint64_t params = (m.gated_mlp ? 3 : 2) * m.hidden * m.moe.intermediate;
    auto added = [&](const moe::BalancePlan& now, const moe::BalancePlan* was, uint32_t j) {
        std::vector<moe::Migration> out;
        for (const moe::Migration& mig : now.migrations)
            if (!was || !was[j].after.hosts(mig.to, mig.expert)) out.push_back(mig);
        return out;
    };
    uint64_t parts = 0, moved = 0;
    if (!ni) {
        std::vector<moe::BalancePlan> older;
        if (o.iteration >= 2) older = plans(o.iteration - 2);
        for (uint32_t j = 0; j < moe_layers_; ++j) {
            std::map<std::pair<uint32_t, uint32_t>, int64_t> delivered;  // (expert, die) -> part
            for (const moe::Migration& mig :
                 added(used[j], older.empty() ? nullptr : older.data(), j)) {
                MigrationTransfer t;
                t.when = MigrationTransfer::When::Start;
                t.moe_layer = j, t.expert = mig.expert, t.from = mig.from, t.to = mig.to;
                t.params = params;
                // A copy made from a copy this plan brings first waits for it to land.
                auto d = delivered.find({mig.expert, mig.from});
                if (d != delivered.end()) t.after = d->second;
                delivered[{mig.expert, mig.to}] = int64_t(migrations_.size());
                t.kind = "expert migration (invasive)";
                t.label = fmt::format("MoE layer {} expert {}: die {} -> {}", j, mig.expert,
                                      mig.from, mig.to);
                migrations_.push_back(t);
                ++moved;
            }
        }
        text_ += fmt::format(
            "; {} migration(s) installing them before the step (inference interrupted), {:.2f} M "
            "parameters each",
            moved, double(params) / 1e6);
        return;
    }
    const std::vector<moe::BalancePlan> next = plans(o.iteration);
    for (uint32_t j = 0; j < moe_layers_; ++j) {
        // (expert, die) -> the part of this plan that brings the expert there: a migration whose
        // source is such a die starts after it, its steps shifted by whole layers (two slots)
        // so none runs before the expert has arrived.
        std::map<std::pair<uint32_t, uint32_t>, int64_t> delivered;
        for (const moe::Migration& mig : added(next[j], used.data(), j)) {
            ++moved;
            int64_t prev = -1;
            uint32_t shift = 0;
            auto d = delivered.find({mig.expert, mig.from});
            if (d != delivered.end() && !mig.steps.empty()) {
                prev = d->second;
                const uint32_t need = migrations_[size_t(prev)].slot, first = mig.steps[0].slot;
                if (need > first) shift = (need - first + 1) / 2 * 2;
            }
            for (size_t si = 0; si < mig.steps.size(); ++si) {
                const moe::MigrationStep& st = mig.steps[si];
                const bool local = st.phase == moe::MigrationPhase::AllReduce;
                // XY routing takes x first: a part that turns y before x is sent in two pieces
                // (the die at the corner forwards it in the same phase).
                std::vector<std::pair<uint32_t, uint32_t>> pieces;
                uint32_t a = st.from;
                for (size_t li = 0; li < st.links.size(); ++li) {
                    const bool xmove = mesh.y(st.links[li].from) == mesh.y(st.links[li].to);
                    const bool prev_y =
                        li > 0 && mesh.x(st.links[li - 1].from) == mesh.x(st.links[li - 1].to);
                    if (xmove && prev_y) {
                        pieces.push_back({a, st.links[li].from});
                        a = st.links[li].from;
                    }
                }
                pieces.push_back({a, st.to});
                for (const auto& [f, t_] : pieces) {
                    MigrationTransfer t;
                    t.when = MigrationTransfer::When::Phase;
                    t.moe_layer = j, t.expert = mig.expert, t.slot = st.slot + shift;
                    t.from = f, t.to = t_;
                    t.params = params;
                    t.after = prev;
                    t.kind = local ? "expert migration (local)" : "expert migration (global)";
                    t.label = fmt::format("MoE layer {} expert {}: die {} -> {}, step {}/{}", j,
                                          mig.expert, mig.from, mig.to, si + 1, mig.steps.size());
                    prev = int64_t(migrations_.size());
                    migrations_.push_back(t);
                }
            }
            delivered[{mig.expert, mig.to}] = prev;
        }
    }
    parts = migrations_.size();
    text_ += fmt::format(
        "; {} migration(s) of the next iteration's copies in {} part(s) on the cold links "
        "during this step, {:.2f} M parameters each",
        moved, parts, double(params) / 1e6);
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

std::shared_ptr<const ExpertRouting> RoutingSource::forTokens(uint64_t T, bool prefill) const {
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
    if (prefill) r->migrations = migrations_;
    return r;
}

}  // namespace wsc::firmware::llm
