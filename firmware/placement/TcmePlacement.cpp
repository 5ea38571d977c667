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
    std::vector<uint32_t> die = RingPlacement().place(g, a);
    // The groups that stream at once, each as its ranks in chain order and their dies.
    std::vector<std::vector<uint32_t>> ranks;
    std::vector<temp::TrafficMap::Group> tg;
    auto add = [&](Dim d, const char* kind) {
        if (g.size(d) < 2) return;
        for (const auto& grp : g.groups({d})) {
            temp::TrafficMap::Group x;
            x.kind = kind;
            for (uint32_t r : grp) x.order.push_back(die[r]);
            tg.push_back(std::move(x));
            ranks.push_back(grp);
        }
    };
    // TATP groups only: an FSDP (or DP) group holds one rank of each TATP group, so its ring
    // follows from the TATP chains and cannot be reordered on its own in a placement.
    add(Dim::TATP, "tatp");
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
