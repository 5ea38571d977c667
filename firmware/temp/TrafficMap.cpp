#include "firmware/temp/TrafficMap.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

namespace wsc::firmware::temp {

TrafficMap::TrafficMap(const placement::DieArray& a, std::vector<Group> groups, Cost cost)
    : a_(a), groups_(std::move(groups)), cost_(cost) {}

std::vector<TrafficMap::Flow> TrafficMap::flows() const {
    std::vector<Flow> out;
    for (uint32_t g = 0; g < groups_.size(); ++g) {
        const auto& grp = groups_[g];
        const uint32_t n = uint32_t(grp.order.size());
        if (n < 2) continue;
        const StreamSchedule s =
            StreamSchedule::make(grp.algo(), StreamSchedule::Kind::Broadcast, n);
        for (const auto& t : s.transfers()) {
            Flow f;
            f.group = g, f.round = t.round, f.src = grp.order[t.src], f.dst = grp.order[t.dst];
            f.item = t.item;
            auto it = yx_.find({g, f.src, f.dst});
            if (it == yx_.end()) it = yx_.find({kAnyGroup, f.src, f.dst});
            f.yx = it != yx_.end() && it->second;
            out.push_back(f);
        }
    }
    // A merged tree: every flow of (group, round, src) with the tree's item, when there are at
    // least two (the item of the first such flow: TATP's first round sends one item both ways).
    for (auto& f : out) {
        if (!merged_.count({f.group, f.round, f.src})) continue;
        uint32_t same = 0, item = UINT32_MAX;
        for (const auto& o : out)
            if (o.group == f.group && o.round == f.round && o.src == f.src) {
                if (item == UINT32_MAX) item = o.item;
                same += o.item == item;
            }
        if (same >= 2 && f.item == item) f.merged = true, f.yx = false;
    }
    return out;
}

bool TrafficMap::merge(uint32_t group, uint32_t round, uint32_t src) {
    const bool fresh = merged_.insert({group, round, src}).second;
    bool any = false;
    for (const auto& f : flows())
        any = any || (f.merged && f.group == group && f.round == round && f.src == src);
    if (!any && fresh) merged_.erase({group, round, src});
    return any;
}

std::vector<TrafficMap::Tree> TrafficMap::trees() const {
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Tree> t;
    for (const auto& f : flows())
        if (f.merged) {
            Tree& x = t[{f.group, f.round, f.src}];
            x.group = f.group, x.round = f.round, x.src = f.src;
            x.dsts.push_back(f.dst);
        }
    std::vector<Tree> out;
    for (auto& [k, v] : t) out.push_back(std::move(v));
    return out;
}

std::vector<TrafficMap::PairRoute> TrafficMap::pairRoutes() const {
    std::map<std::pair<uint32_t, uint32_t>, PairRoute> used;
    for (const Flow& f : flows()) {
        auto it = yx_.find({kAnyGroup, f.src, f.dst});
        if (it == yx_.end() || !it->second || !f.yx || used.count({f.src, f.dst})) continue;
        used[{f.src, f.dst}] = PairRoute{f.src, f.dst, path(f)};
    }
    std::vector<PairRoute> out;
    for (auto& [k, r] : used) out.push_back(std::move(r));
    return out;
}

std::map<uint32_t, uint32_t> TrafficMap::pairRouteEntries() const {
    std::map<uint32_t, uint32_t> n;
    for (const auto& r : pairRoutes())
        for (uint32_t d : r.path) ++n[d];
    return n;
}

std::vector<uint32_t> TrafficMap::path(const Flow& f) const {
    std::vector<uint32_t> p{f.src};
    uint32_t x = a_.dx(f.src), y = a_.dy(f.src);
    const uint32_t tx = a_.dx(f.dst), ty = a_.dy(f.dst);
    while (x != tx || y != ty) {
        const bool move_x = f.yx ? y == ty : x != tx;
        if (move_x)
            x += x < tx ? 1 : -1;
        else
            y += y < ty ? 1 : -1;
        p.push_back(a_.die(x, y));
    }
    return p;
}

uint32_t TrafficMap::slotsPerRound(const std::vector<Flow>& fl) const {
    uint32_t longest = 1;  // hops of the longest path (StoreForward's slots per round)
    if (cost_ == Cost::StoreForward)
        for (const Flow& f : fl) longest = std::max(longest, uint32_t(path(f).size() - 1));
    return longest;
}

uint32_t TrafficMap::slot(const Flow& f, uint32_t hop, uint32_t per_round) const {
    switch (cost_) {
        case Cost::Bytes:
            return 0;
        case Cost::StoreForward:
            return f.round * per_round + hop;
        case Cost::Flows:
            break;
    }
    return f.round;
}

std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> TrafficMap::linkLoads() const {
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> l;
    const bool bytes = cost_ == Cost::Bytes;
    const std::vector<Flow> fl = flows();
    const uint32_t longest = slotsPerRound(fl);
    // A multicast tree's flows share their X-first paths' common links: each link once per tree.
    std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>> tree_links;
    for (const Flow& f : fl) {
        const auto p = path(f);
        for (size_t i = 0; i + 1 < p.size(); ++i) {
            const uint32_t when = slot(f, uint32_t(i), longest);
            if (!f.merged || tree_links.insert({f.group, f.round, f.src, p[i], p[i + 1]}).second)
                l[{when, p[i], p[i + 1]}] += bytes ? groups_[f.group].bytes : 1;
        }
    }
    return l;
}

TrafficMap::Load TrafficMap::load() const {
    Load r;
    std::set<std::pair<uint32_t, uint32_t>> used;
    uint64_t sum = 0;
    const auto l = linkLoads();
    for (const auto& [key, n] : l) {
        if (n > r.max)
            r.max = n, r.at_max = 1;
        else if (n == r.max)
            ++r.at_max;
        r.squares += double(n) * double(n);
        sum += n;
        used.insert({std::get<1>(key), std::get<2>(key)});
    }
    r.mean = l.empty() ? 0 : double(sum) / double(l.size());
    r.links_used = uint32_t(used.size());
    return r;
}

std::vector<std::vector<uint32_t>> TrafficMap::orderCandidates(
    const std::vector<uint32_t>& order) const {
    std::vector<std::vector<uint32_t>> out;
    const size_t n = order.size();
    if (n <= 6) {  // every order of a small group
        std::vector<uint32_t> p = order;
        std::sort(p.begin(), p.end());
        do out.push_back(p);
        while (std::next_permutation(p.begin(), p.end()));
        return out;
    }
    // Larger groups: rotations, the reversal and swaps of neighbouring positions.
    for (size_t k = 1; k < n; ++k) {
        std::vector<uint32_t> p(order.begin() + k, order.end());
        p.insert(p.end(), order.begin(), order.begin() + k);
        out.push_back(p);
    }
    out.emplace_back(order.rbegin(), order.rend());
    for (size_t i = 0; i + 1 < n; ++i) {
        auto p = order;
        std::swap(p[i], p[i + 1]);
        out.push_back(p);
    }
    return out;
}

std::vector<TrafficMap::Move> TrafficMap::optimize(uint32_t max_iter, Moves moves) {
    std::vector<Move> kept;
    for (uint32_t it = 0; it < max_iter; ++it) {
        const Load now = load();
        // No link carries two flows at once: nothing to relieve (by bytes, a link whose load is
        // one flow's can still move; the loop ends when no move lowers the objective).
        if (cost_ != Cost::Bytes && now.max <= 1) break;
        // The most congested (round, link) pairs and the flows on them (all of them: a move
        // that relieves one pair may be blocked for another).
        const auto l = linkLoads();
        const std::vector<Flow> fl = flows();
        const uint32_t per_round = slotsPerRound(fl);
        std::vector<Flow> on;
        for (const Flow& f : fl) {
            const auto p = path(f);
            bool hot = false;
            for (size_t i = 0; i + 1 < p.size() && !hot; ++i) {
                auto it = l.find({slot(f, uint32_t(i), per_round), p[i], p[i + 1]});
                hot = it != l.end() && it->second == now.max;
            }
            if (hot) on.push_back(f);
        }
        Load best = now;
        std::function<void()> apply;
        std::string what;
        std::set<uint32_t> tried_groups;
        std::set<std::tuple<uint32_t, uint32_t, uint32_t>> tried_trees;
        for (const Flow& f : on) {
            // One multicast tree for the flows that carry f's item from f's source this round.
            const auto tree = std::make_tuple(f.group, f.round, f.src);
            if (moves.merge && !f.merged && tried_trees.insert(tree).second) {
                merged_.insert(tree);
                bool forms = false;
                for (const auto& o : flows())
                    forms = forms || (o.merged && o.src == f.src && o.group == f.group &&
                                      o.round == f.round);
                const Load c = forms ? load() : best;
                merged_.erase(tree);
                if (forms && c < best) {
                    best = c;
                    what = fmt::format(
                        "merge the flows from {} in round {} of group {} into a "
                        "multicast tree",
                        f.src, f.round, f.group);
                    apply = [this, tree] { merged_.insert(tree); };
                }
            }
            // The flow's other dimension order.
            if (moves.reroute && !f.merged) {
                const auto key = std::make_tuple(moves.by_pair ? kAnyGroup : f.group, f.src, f.dst);
                const bool was = yx_[key];
                yx_[key] = !was;
                bool fits = true;
                if (moves.by_pair && moves.route_limit && !was)
                    for (const auto& [d, n] : pairRouteEntries())
                        fits = fits && n <= moves.route_limit;
                const Load c = fits ? load() : best;
                yx_[key] = was;
                if (fits && c < best) {
                    best = c;
                    what = moves.by_pair ? fmt::format("pair {} -> {} {} first", f.src, f.dst,
                                                       was ? "X" : "Y")
                                         : fmt::format("flow {} -> {} of group {} {} first", f.src,
                                                       f.dst, f.group, was ? "X" : "Y");
                    apply = [this, key, was] { yx_[key] = !was; };
                }
            }
            // Another chain order for the flow's group.
            if (!moves.reorder || !tried_groups.insert(f.group).second) continue;
            const auto saved = groups_[f.group].order;
            for (const auto& cand : orderCandidates(saved)) {
                if (cand == saved) continue;
                groups_[f.group].order = cand;
                const Load c = load();
                if (c < best) {
                    best = c;
                    std::string s;
                    for (uint32_t d : cand) s += (s.empty() ? "" : ",") + std::to_string(d);
                    what = fmt::format("group {} ({}) order {}", f.group, groups_[f.group].kind, s);
                    const uint32_t g = f.group;
                    apply = [this, g, cand] { groups_[g].order = cand; };
                }
            }
            groups_[f.group].order = saved;
        }
        if (!apply) break;
        apply();
        kept.push_back({what, load()});
    }
    return kept;
}

}  // namespace wsc::firmware::temp
