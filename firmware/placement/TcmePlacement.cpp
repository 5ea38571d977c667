#include "firmware/placement/TcmePlacement.h"

#include "firmware/placement/RingPlacement.h"

namespace wsc::firmware::placement {

using plan::Dim;

std::vector<uint32_t> TcmePlacement::place(const plan::RankGrid& g, const DieArray& a) const {
    Report r;
    return placeWithReport(g, a, r);
}

std::vector<uint32_t> TcmePlacement::placeWithReport(const plan::RankGrid& g, const DieArray& a,
                                                     Report& rep) {
    // The groups of dims as TrafficMap groups (ranks in chain order, and their dies).
    auto groupsOf = [&](const std::vector<uint32_t>& die, std::vector<Dim> dims,
                        std::vector<std::vector<uint32_t>>* ranks) {
        std::vector<temp::TrafficMap::Group> tg;
        for (Dim d : dims) {
            if (g.size(d) < 2) continue;
            for (const auto& grp : g.groups({d})) {
                temp::TrafficMap::Group x;
                x.kind = d == Dim::TATP ? "tatp" : plan::dimName(d);
                for (uint32_t r : grp) x.order.push_back(die[r]);
                tg.push_back(std::move(x));
                if (ranks) ranks->push_back(grp);
            }
        }
        return tg;
    };
    std::vector<uint32_t> die = RingPlacement().place(g, a);
    if (g.size(Dim::TATP) > 1 && g.size(Dim::TP) * g.size(Dim::SP) > 1) {
        // TATP beside TP or SP: the rings cannot all be physical. Two candidates, TP's rings
        // innermost (RingPlacement) or TATP's (placeAlong: the TP and SP groups stride across
        // neighbouring blocks), judged by the loads of every TATP, TP and SP ring streaming at
        // once; the lower one is kept. A chain reorder would move ranks of the other groups
        // too, so none is made.
        const std::vector<uint32_t> alt = RingPlacement::placeAlong(g, a, Dim::TATP);
        const std::vector<Dim> dims = {Dim::TATP, Dim::TP, Dim::SP};
        const temp::TrafficMap inner(a, groupsOf(die, dims, nullptr));
        const temp::TrafficMap along(a, groupsOf(alt, dims, nullptr));
        rep.mixed = true;
        rep.groups = static_cast<uint32_t>(inner.groups().size());
        rep.before = inner.load();
        rep.after = along.load();
        rep.tatp_inner = rep.after < rep.before;
        if (rep.tatp_inner) die = alt;
        return die;
    }
    // TATP groups only: an FSDP (or DP) group holds one rank of each TATP group, so its ring
    // follows from the TATP chains and cannot be reordered on its own in a placement.
    std::vector<std::vector<uint32_t>> ranks;
    std::vector<temp::TrafficMap::Group> tg = groupsOf(die, {Dim::TATP}, &ranks);
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
    return die;
}

}  // namespace wsc::firmware::placement
