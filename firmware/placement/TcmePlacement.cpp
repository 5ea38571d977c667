#include "firmware/placement/TcmePlacement.h"

#include <algorithm>
#include <stdexcept>

#include "firmware/model/LayerGraph.h"
#include "firmware/placement/RingPlacement.h"

namespace wsc::firmware::placement {

using plan::Dim;

namespace {

// The reroute pass: pair moves only (the placement is fixed), within the route limit.
void reroute(temp::TrafficMap tm, uint32_t route_limit, TcmePlacement::Report& rep) {
    rep.route_before = rep.route_after = tm.load();
    if (!route_limit) return;
    temp::TrafficMap::Moves m;
    m.reorder = false, m.merge = false, m.reroute = true, m.by_pair = true;
    m.route_limit = route_limit;
    for (const auto& mv : tm.optimize(64, m)) rep.reroutes.push_back(mv.what);
    rep.route_after = tm.load();
    rep.routes = tm.pairRoutes();
}

}  // namespace

std::vector<uint32_t> TcmePlacement::place(const plan::RankGrid& g, const DieArray& a) const {
    Report r;
    return placeWithReport(g, a, r);
}

TcmePlacement::Weights TcmePlacement::bytesPerFlow(const model::ModelConfig& m,
                                                   const plan::ParallelPlan& p, uint64_t tokens,
                                                   uint32_t elem_bytes, bool train) {
    const model::GraphShape shape{1, 1};
    const model::LayerGraph graph = model::LayerGraph::build(m, shape);
    const model::Block& layer = graph.layer(0);
    const uint64_t mb = std::max<uint32_t>(1, p.microBatches());
    const uint64_t T =
        std::max<uint64_t>(1, tokens / (uint64_t(p.dp) * p.fsdp * p.sp * p.tatp * mb));
    const uint64_t tp = std::max<uint32_t>(1, p.tp), tatp = std::max<uint32_t>(1, p.tatp);
    const uint64_t kv_dim = m.kv_heads * (m.head_dim ? m.head_dim : m.hidden / m.heads);
    Weights w;
    w.tatp = (train ? 3 : 1) * layer.params() / (tp * tatp) * elem_bytes;
    w.tp = (train ? 4 : 2) * 2 * T * m.hidden * elem_bytes / tp;
    w.kv = (train ? 2 : 1) * T * 2 * kv_dim * elem_bytes / tp;
    return w;
}

std::vector<uint32_t> TcmePlacement::placeWithReport(const plan::RankGrid& g, const DieArray& a,
                                                     Report& rep, uint32_t route_limit,
                                                     const Weights* weights) {
    rep = Report{};
    const temp::TrafficMap::Cost cost =
        weights ? temp::TrafficMap::Cost::Bytes : temp::TrafficMap::Cost::Flows;
    // The groups of dims as TrafficMap groups (ranks in chain order, and their dies); a group
    // list of several dims is one ring over all of them.
    auto groupsOf = [&](const std::vector<uint32_t>& die,
                        std::vector<std::pair<std::vector<Dim>, const char*>> dims,
                        std::vector<std::vector<uint32_t>>* ranks) {
        std::vector<temp::TrafficMap::Group> tg;
        for (const auto& [ds, kind] : dims) {
            uint32_t size = 1;
            for (Dim d : ds) size *= g.size(d);
            if (size < 2) continue;
            const auto grps = ds.size() == 1 ? g.groups({ds[0]}) : g.groups({ds[0], ds[1]});
            for (const auto& grp : grps) {
                temp::TrafficMap::Group x;
                x.kind = kind;
                if (weights)
                    x.bytes = std::string(kind) == "tatp" ? weights->tatp
                              : std::string(kind) == "tp" ? weights->tp
                                                          : weights->kv;
                for (uint32_t r : grp) x.order.push_back(die[r]);
                tg.push_back(std::move(x));
                if (ranks) ranks->push_back(grp);
            }
        }
        return tg;
    };
    std::vector<uint32_t> die = RingPlacement().place(g, a);
    if (g.size(Dim::TATP) > 1 && g.size(Dim::TP) * g.size(Dim::SP) > 1) {
        // TATP beside TP or SP: the rings cannot all be physical. Two candidates, the other
        // dimension's rings innermost (TP, else SP) or TATP's (placeAlong: the TP and SP groups
        // stride across neighbouring blocks), judged by the loads of the TATP chains, the TP
        // rings and the TATP x SP rings (attention's K/V gather) streaming at once; the lower
        // one is kept. A chain reorder would move ranks of the other groups too, so none is made.
        const Dim other = g.size(Dim::TP) > 1 ? Dim::TP : Dim::SP;
        rep.mixed = true;
        rep.other = plan::dimName(other);
        die = RingPlacement::placeAlong(g, a, other);
        std::vector<std::pair<std::vector<Dim>, const char*>> dims = {{{Dim::TATP}, "tatp"},
                                                                      {{Dim::TP}, "tp"}};
        dims.push_back({{Dim::TATP, Dim::SP}, "tatp x sp"});
        rep.bytes = weights != nullptr;
        const temp::TrafficMap inner(a, groupsOf(die, dims, nullptr), cost);
        rep.groups = static_cast<uint32_t>(inner.groups().size());
        rep.before = rep.after = inner.load();
        std::vector<uint32_t> alt;
        try {
            alt = RingPlacement::placeAlong(g, a, Dim::TATP);
        } catch (const std::invalid_argument&) {
            // No ring block of tatp dies tiles the array: keep the other.
            reroute(inner, route_limit, rep);
            return die;
        }
        rep.tatp_tried = true;
        rep.after = temp::TrafficMap(a, groupsOf(alt, dims, nullptr), cost).load();
        rep.tatp_inner = rep.after < rep.before;
        if (rep.tatp_inner) die = alt;
        reroute(temp::TrafficMap(a, groupsOf(die, dims, nullptr), cost), route_limit, rep);
        return die;
    }
    // TATP groups only: an FSDP (or DP) group holds one rank of each TATP group, so its ring
    // follows from the TATP chains and cannot be reordered on its own in a placement.
    std::vector<std::vector<uint32_t>> ranks;
    std::vector<temp::TrafficMap::Group> tg = groupsOf(die, {{{Dim::TATP}, "tatp"}}, &ranks);
    rep.groups = static_cast<uint32_t>(tg.size());
    if (tg.empty()) return die;
    temp::TrafficMap tm(a, tg);
    rep.before = rep.after = tm.load();
    for (const auto& mv : tm.optimize(64, {/*reorder=*/true, /*reroute=*/false, /*merge=*/false}))
        rep.moves.push_back(mv.what);
    rep.after = tm.load();
    // A TATP group's chain order is the order of its ranks on its dies.
    for (size_t k = 0; k < ranks.size(); ++k)
        for (size_t p = 0; p < ranks[k].size(); ++p) die[ranks[k][p]] = tm.groups()[k].order[p];
    reroute(tm, route_limit, rep);
    return die;
}

}  // namespace wsc::firmware::placement
