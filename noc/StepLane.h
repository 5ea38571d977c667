#pragma once
// One thread's share of a cycle's router visits (Network::step with threads): what its routers
// would have done to the shared network state, kept aside and applied after the barrier in lane
// order. Lanes own contiguous runs of the routers in index order, and the single-threaded step
// visits routers in that same order, so applying lane 0's effects, then lane 1's, ... repeats
// the single-threaded sequence exactly (same events in the same order, same counters).
#include <cstdint>
#include <vector>

#include "noc/EventWheel.h"

namespace wsc::noc {

struct StepLane {
    struct Scheduled {
        uint64_t at;
        NetEvent e;
    };
    // Its routers' events for the routers' wheel by delay (near[d]: due d cycles on), the
    // others (events for NIs, and any due kNear or more cycles on) with their cycle, each in the
    // order its routers scheduled them. By delay, a lane's events go into the wheel as a few
    // block copies (EventWheel::scheduleAll) on the thread that merges them, instead of one
    // schedule each; every bucket still receives them in the same order.
    static constexpr uint64_t kNear = EventWheel::kMinBuckets;  // all in the wheel's ring
    std::vector<NetEvent> near[kNear];
    std::vector<Scheduled> rest;
    std::vector<uint32_t> keep;       // its routers that stay active next cycle, in visit order
    std::vector<uint32_t> head_hops;  // packet slots whose head crossed a router-to-router link
    uint64_t traversals = 0;
    int64_t in_network = 0;  // flits copied onto links minus flits that left their buffers
    bool moved = false;
    // Kept across cycles: the lane's routers [lo, hi), its active ones, the time it spent.
    uint32_t lo = 0, hi = 0;
    std::vector<uint32_t> active, sort_tmp;
    double seconds = 0;

    void add(uint64_t now, uint64_t at, const NetEvent& e, bool to_ni) {
        if (!to_ni && at > now && at - now < kNear)
            near[at - now].push_back(e);
        else
            rest.push_back({at, e});
    }
    void clear() {
        for (std::vector<NetEvent>& v : near) v.clear();
        rest.clear();
        keep.clear();
        head_hops.clear();
        traversals = 0;
        in_network = 0;
        moved = false;
    }
};

}  // namespace wsc::noc
