#include "firmware/watos/WatosPlacement.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::firmware::watos {

using plan::Dim;

WatosPlacement::WatosPlacement(std::vector<MemPair> pairs, std::vector<double> comm_pp,
                               PipelinePlacement::Options options)
    : pairs_(std::move(pairs)), comm_pp_(std::move(comm_pp)), options_(options) {}

PipelinePlacement::Result WatosPlacement::placeWithReport(const plan::RankGrid& g,
                                                          const placement::DieArray& a) const {
    for (Dim d : {Dim::DP, Dim::FSDP, Dim::SP, Dim::TATP})
        if (g.size(d) > 1)
            throw std::invalid_argument(fmt::format(
                "placement watos: places the stages of one pipeline (tp x pp); this plan has {}={}",
                plan::dimName(d), g.size(d)));
    if (g.ranks() != a.dies())
        throw std::invalid_argument(
            fmt::format("placement watos: the plan has {} ranks, the wafer {} dies ({} x {})",
                        g.ranks(), a.dies(), a.x, a.y));
    const uint32_t pp = g.size(Dim::PP), tp = g.size(Dim::TP);
    PipelinePlacement::Result r = PipelinePlacement(a, pp, tp, comm_pp_, pairs_).search(options_);
    // The search's ranks are s * tp + t; map them through the grid so its order is the authority.
    std::vector<uint32_t> by_rank(g.ranks());
    for (uint32_t s = 0; s < pp; ++s)
        for (uint32_t t = 0; t < tp; ++t) {
            plan::RankCoord c;
            c.pp = s, c.tp = t;
            by_rank[g.rank(c)] = r.rank_die[size_t(s) * tp + t];
        }
    r.rank_die = std::move(by_rank);
    return r;
}

std::vector<uint32_t> WatosPlacement::place(const plan::RankGrid& g,
                                            const placement::DieArray& a) const {
    return placeWithReport(g, a).rank_die;
}

}  // namespace wsc::firmware::watos
