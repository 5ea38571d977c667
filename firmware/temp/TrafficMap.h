#pragma once
// TCME's unified parallelism representation and its traffic-conscious optimizer (TEMP Sec. VI,
// Figs. 10-11) for groups that stream at once: which die sends which sub-tensor to which die in
// which round (from each group's StreamSchedule over its chain order), the mesh path every flow
// takes (dimension order X then Y, or Y then X), the load of every directed D2D link per round,
// and a greedy optimizer: find the most congested (round, link) pairs, try every move that
// touches a flow on one of them (another chain order for the flow's group, the other dimension
// order for the flow, or merging the flow with the flows that carry the same sub-tensor from the
// same die in the same round into one multicast tree: TEMP's "redundant path merging"), keep the
// move that lowers the objective most, repeat until nothing improves.
// Objective, compared in order: the largest load of any (round, link), how many (round, link)
// pairs carry it, the sum of squared loads. docs/TEMP.md "TCME".
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "firmware/placement/Placement.h"
#include "firmware/temp/StreamSchedule.h"

namespace wsc::firmware::temp {

class TrafficMap {
  public:
    struct Group {
        std::string kind;             // "tatp" (TATP chain) or "fsdp" (ring all-gather)
        std::vector<uint32_t> order;  // dies in chain / ring order
        uint64_t bytes = 1;           // what one flow carries (Cost::Bytes)
        StreamSchedule::Algo algo() const {
            return kind == "tatp" ? StreamSchedule::Algo::Tatp : StreamSchedule::Algo::Ring;
        }
    };
    struct Flow {
        uint32_t group = 0, round = 0, src = 0, dst = 0;  // dies
        uint32_t item = 0;                                // the sub-tensor (chain position)
        bool yx = false;                                  // Y first (else X first)
        bool merged = false;  // part of a multicast tree: X-first paths, shared links carry it once
    };
    // One multicast tree: the flows of `group` that leave `src` in `round` with the same item.
    struct Tree {
        uint32_t group = 0, round = 0, src = 0;
        std::vector<uint32_t> dsts;
    };
    // Which moves the optimizer may make.
    struct Moves {
        bool reorder = true;  // another chain (ring) order for a group
        bool reroute = true;  // Y-then-X for a flow
        bool merge = true;    // same-item flows from one die in one round into a multicast tree
        // Reroute a whole (source, destination) pair: every flow between the two dies, of any
        // group, takes the new path (a network that routes by pair: noc::Network::addPairRoute).
        bool by_pair = false;
        // Route entries a die's router may hold for the rerouted pairs (a pair route takes one
        // on every router of its path); 0 = no limit. Only with by_pair.
        uint32_t route_limit = 0;
    };
    // A rerouted pair: every flow from src to dst takes `path` (dies, src first).
    struct PairRoute {
        uint32_t src = 0, dst = 0;
        std::vector<uint32_t> path;
    };
    // What a link's load counts. Flows: flows per (round, link), every group's round r at once
    // (TEMP's picture of groups streaming in lockstep). Bytes: bytes per link over all rounds,
    // each flow weighted by its group's `bytes` (groups whose collectives alternate in time,
    // like a plan's TP all-reduces, K/V gathers and TATP rounds: the busiest link's bytes bound
    // how long its traffic takes).
    // StoreForward: flows per (slot, link) where a round's transfers move one hop per slot
    // (hop i of round r in slot r H + i, H the longest path): the picture of a model that stores
    // each hop's data before the next (MoEntwine's time-staggered entwined rings).
    enum class Cost : uint8_t { Flows, Bytes, StoreForward };
    struct Load {
        uint64_t max = 0;         // flows (bytes) on the busiest (round, link)
        uint32_t at_max = 0;      // (round, link) pairs carrying that many
        double squares = 0;       // sum over (round, link) of load^2
        double mean = 0;          // mean load over the (round, link) pairs that carry any flow
        uint32_t links_used = 0;  // directed links that carry a flow in some round
        bool operator<(const Load& o) const {
            return std::tie(max, at_max, squares) < std::tie(o.max, o.at_max, o.squares);
        }
    };
    struct Move {
        std::string what;  // "group 2 order 0,2,10,8", "flow 3 -> 7 of group 1 Y first"
        Load after;
    };

    TrafficMap(const placement::DieArray& a, std::vector<Group> groups, Cost cost = Cost::Flows);
    Cost cost() const { return cost_; }

    const std::vector<Group>& groups() const { return groups_; }
    std::vector<Flow> flows() const;
    // Routers (= dies) a flow visits from src to dst.
    std::vector<uint32_t> path(const Flow& f) const;
    // (round, from die, to die) -> flows; Cost::Bytes: (0, from, to) -> bytes; StoreForward:
    // (slot, from, to) -> flows.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> linkLoads() const;
    Load load() const;
    // Flows that leave X-then-Y order: (group, src die, dst die); group kAnyGroup for a pair
    // rerouted by Moves::by_pair.
    const std::map<std::tuple<uint32_t, uint32_t, uint32_t>, bool>& yxFlows() const { return yx_; }
    static constexpr uint32_t kAnyGroup = UINT32_MAX;
    // The pairs rerouted by Moves::by_pair that some flow uses, with their paths.
    std::vector<PairRoute> pairRoutes() const;
    // Route entries the rerouted pairs take on die d's router.
    std::map<uint32_t, uint32_t> pairRouteEntries() const;

    // Merges the flows of `group` that leave die `src` in `round` carrying one item (a TATP
    // broadcast's first round sends the die's own sub-tensor both ways) into a multicast tree;
    // false when there are fewer than two such flows.
    bool merge(uint32_t group, uint32_t round, uint32_t src);
    // The merged trees with their current destinations (after any reorder).
    std::vector<Tree> trees() const;

    // Runs the optimizer; returns the moves kept, in order. Moves::reroute and Moves::merge off
    // keep every flow a dimension-order unicast (only chain orders move): for runs that route by
    // coordinates only.
    std::vector<Move> optimize(uint32_t max_iter, Moves moves);
    std::vector<Move> optimize(uint32_t max_iter = 64) { return optimize(max_iter, Moves{}); }

  private:
    std::vector<std::vector<uint32_t>> orderCandidates(const std::vector<uint32_t>& order) const;
    // When hop `hop` of flow f loads its link, as the cost counts time (linkLoads' first key):
    // the round, 0 (bytes), or the store-and-forward slot; per_round = slotsPerRound(flows).
    uint32_t slot(const Flow& f, uint32_t hop, uint32_t per_round) const;
    uint32_t slotsPerRound(const std::vector<Flow>& fl) const;

    placement::DieArray a_;
    std::vector<Group> groups_;
    Cost cost_ = Cost::Flows;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, bool> yx_;
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> merged_;  // (group, round, src die)
};

}  // namespace wsc::firmware::temp
