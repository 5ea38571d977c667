#pragma once
// A share of a cycle's router visits (Network::step with threads). A lane (StepLane::Range) is
// a thread's contiguous range of routers: it chains their arrivals and lists the active ones in
// index order. A chunk (StepLane) is an eighth of a lane's active routers, visited by whichever
// thread takes it: what its routers would have done to the shared network state is kept aside
// (events, keep, counters) and applied in chunk order. Chunks follow lanes and lanes follow
// the router index, which is the single-threaded step's visit order, so applying chunk 0's
// effects, then chunk 1's, ... repeats the single-threaded sequence exactly (same events in
// the same order, same counters).
#include <atomic>
#include <cstdint>
#include <vector>

#include "noc/EventWheel.h"

namespace wsc::noc {

struct alignas(64) StepLane {  // a line of its own: chunks are filled by different threads
    struct Scheduled {
        uint64_t at;
        NetEvent e;
    };
    // A chunk's events for its own lane's routers by delay (near[d]: due d cycles on), the
    // others (events for NIs or for other lanes' routers, and any due kNear or more cycles on)
    // with their cycle, each in the order its routers scheduled them. The lane's events due
    // within kNear cycles (nearly all) go into the lane's wheel as one block copy per cycle
    // (EventWheel::scheduleAll), the others one schedule each; an event for a given router
    // goes into one of the two lists by its delay alone, so its wheel's bucket still receives
    // the router's events in the order they were scheduled.
    static constexpr uint64_t kNear = EventWheel::kMinBuckets;  // all in the wheel's ring
    std::vector<NetEvent> near[kNear];
    uint32_t lo = 0, hi = 0;  // the routers of the chunk's lane (visitChunk sets them)
    std::vector<Scheduled> rest;
    std::vector<uint32_t> keep;       // its routers that stay active next cycle, in visit order
    std::vector<uint32_t> head_hops;  // packet slots whose head crossed a router-to-router link
    uint64_t traversals = 0;
    int64_t in_network = 0;  // flits copied onto links minus flits that left their buffers
    bool moved = false;
    // A lane: its routers [lo, hi) and its active ones this cycle (storage kept across cycles).
    // A line of its own: each thread appends to its lane's list while the others append to
    // theirs (adjacent lanes sharing a line measured 10-15% slower at 256x256 with 2 threads).
    struct alignas(64) Range {
        uint32_t lo = 0, hi = 0;
        std::vector<uint32_t> active, sort_tmp;
    };

    void add(uint64_t now, uint64_t at, const NetEvent& e, bool to_ni) {
        if (!to_ni && at > now && at - now < kNear && e.target >= lo && e.target < hi)
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

// Hand-overs inside a threaded step: a lane's chains are ready (its chunks may be visited), a
// chunk is visited (it may be merged), the next chunk of each lane, the NIs' part done, and a
// member that threw (the others stop waiting; StepThreads rethrows).
struct StepSync {
    StepSync(size_t lanes, size_t chunks)
        : lane_ready(lanes), chunk_done(chunks), next_in_lane(lanes) {}
    std::vector<std::atomic<uint8_t>> lane_ready, chunk_done;
    std::vector<std::atomic<size_t>> next_in_lane;  // the next chunk of each lane to take
    std::atomic<uint8_t> nis_done{0};  // the calling thread's NI part is done (visits may start)
    std::atomic<bool> abort{false};
    // Before each threaded step (StepThreads::run publishes it to the helpers).
    void reset() {
        for (auto& f : lane_ready) f.store(0, std::memory_order_relaxed);
        for (auto& f : chunk_done) f.store(0, std::memory_order_relaxed);
        for (auto& n : next_in_lane) n.store(0, std::memory_order_relaxed);
        nis_done.store(0, std::memory_order_relaxed);
        abort.store(false, std::memory_order_relaxed);
    }
};

}  // namespace wsc::noc
