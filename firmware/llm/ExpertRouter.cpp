#include "firmware/llm/ExpertRouter.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace wsc::firmware::llm {

using plan::Dim;

uint64_t RoutedLayer::maxRows() const {
    uint64_t m = 0;
    for (const auto& r : rows) {
        uint64_t s = 0;
        for (const auto& er : r) s += er.second;
        m = std::max(m, s);
    }
    return m;
}

ExpertRouter::ExpertRouter(const plan::ParallelPlan& p, uint32_t experts)
    : p_(p), grid_(p), experts_(experts) {
    if (p.ep < 1 || experts == 0 || (p.ep > experts && p.ep % experts))
        throw std::invalid_argument(fmt::format(
            "expert routing: ep={} is more than the {} experts and not a multiple of them", p.ep,
            experts));
    if (p.sp > 1 || p.tatp > 1 || p.fsdp > 1)
        throw std::invalid_argument(fmt::format(
            "expert routing: plan {} splits tokens or weights with sp, tatp or fsdp; routed "
            "steps take dp, tp, pp and ep",
            p.str()));
}

bool ExpertRouter::ftd(const plan::ParallelPlan& p) {
    return p.ep > 1 && p.tp > 1 && !p.seqpar && p.sp == 1 && p.tatp == 1 && p.ep == p.stageRanks();
}

std::vector<std::vector<uint32_t>> ExpertRouter::groups(const plan::RankGrid& grid, uint32_t st) {
    std::vector<std::vector<uint32_t>> out;
    if (ftd(grid.plan())) {
        for (auto& g : grid.groups({Dim::DP, Dim::FSDP}))
            if (grid.coord(g[0]).pp == st) out.push_back(g);
        return out;
    }
    for (uint32_t r : grid.stage(st))
        if (r == grid.epGroup(r)[0]) out.push_back(grid.epGroup(r));
    return out;
}

RoutedLayer ExpertRouter::route(uint32_t st, uint32_t mb,
                                const std::vector<std::vector<uint32_t>>& sel,
                                const std::vector<std::vector<uint32_t>>& hosts) const {
    const uint64_t T = sel.size(), dp = p_.dp, mbs = p_.microBatches();
    const bool full = ftd(p_);
    const uint64_t shares = full ? 1 : p_.tp;
    if (T == 0 || T % (dp * mbs * shares))
        throw std::invalid_argument(
            fmt::format("expert routing: {} tokens do not split into dp={} x {} micro-batches{}", T,
                        dp, mbs, full ? "" : fmt::format(" x tp={} shares", p_.tp)));
    if (!hosts.empty() && hosts.size() != experts_)
        throw std::invalid_argument(fmt::format(
            "expert routing: hosts for {} experts, the model has {}", hosts.size(), experts_));
    if (mb >= mbs)
        throw std::invalid_argument(fmt::format("expert routing: micro-batch {} of {}", mb, mbs));
    const uint64_t Tg = T / dp, Tm = Tg / mbs;

    RoutedLayer out;
    out.groups = groups(grid_, st);
    const std::vector<uint32_t> stage = grid_.stage(st);
    const uint32_t first = stage.front();
    out.rows.assign(stage.size(), {});
    // rank -> (group, member)
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> where;
    for (uint32_t g = 0; g < out.groups.size(); ++g) {
        out.pairs.emplace_back(out.groups[g].size() * out.groups[g].size(), 0);
        for (uint32_t m = 0; m < out.groups[g].size(); ++m) where[out.groups[g][m]] = {g, m};
    }
    std::vector<std::map<uint32_t, uint64_t>> rows(stage.size());
    for (uint64_t t = 0; t < T; ++t) {
        const uint64_t g = t * dp / T, u = t - g * Tg;
        if (u / Tm != mb) continue;
        const uint64_t v = u - mb * Tm;
        plan::RankCoord c;
        c.pp = st, c.dp = static_cast<uint32_t>(g);
        c.tp = full ? 0 : static_cast<uint32_t>(v * p_.tp / Tm);
        const std::vector<uint32_t> ep = grid_.epGroup(grid_.rank(c));
        for (uint32_t e : sel[t]) {
            if (e >= experts_)
                throw std::invalid_argument(fmt::format(
                    "expert routing: token {} picks expert {}, the model has {}", t, e, experts_));
            uint32_t m = nativeMember(e) + static_cast<uint32_t>(t % replicas());
            if (!hosts.empty()) {
                const auto& h = hosts[e];
                if (h.empty())
                    throw std::invalid_argument(
                        fmt::format("expert routing: expert {} has no host", e));
                m = h[t % h.size()];
                if (m >= ep.size())
                    throw std::invalid_argument(fmt::format(
                        "expert routing: expert {} hosted on member {} of an EP group of {}", e, m,
                        ep.size()));
            }
            const uint32_t host = ep[m];
            // The sender: the token's own rank, or with FTDs the member of the host's FTD that
            // belongs to the token's TP group.
            plan::RankCoord sc = c;
            if (full) sc.tp = grid_.coord(host).tp;
            const uint32_t sender = grid_.rank(sc);
            const auto [gs, qs] = where.at(sender);
            const auto [gh, jh] = where.at(host);
            if (gs != gh)
                throw std::logic_error("expert routing: sender and host in different groups");
            const uint64_t n = out.groups[gs].size();
            ++out.pairs[gs][qs * n + jh];
            ++rows[host - first][e];
        }
    }
    for (size_t r = 0; r < rows.size(); ++r)
        for (const auto& [e, n] : rows[r]) out.rows[r].push_back({e, n});
    return out;
}

}  // namespace wsc::firmware::llm
