#pragma once
// Calendar queue of future network events (flit and credit arrivals, router wake-ups). Every
// cross-block interaction goes through it (or, for credits on small meshes, Network's credit
// ring) with a delay of at least one cycle, which is what makes a cycle's result independent of
// the order in which routers are visited (the evaluate/update split).
// Each cycle of the ring is a contiguous vector of its events in schedule order: scheduling
// appends, collecting hands the whole vector over (a swap, no per-event pointer chasing; the
// pooled linked lists this replaced cost a cache miss per event on large meshes). A bucket keeps
// its storage for the next cycle that maps to it, but never more than max(kKeepEvents, twice the
// ring's share of the events in flight), so memory follows the events in flight and a burst
// does not stay allocated in every bucket (on a wafer with long FEC links, thousands of them).
// Larger storage goes to a few spares that the next bucket to outgrow its own takes: on a large
// mesh with one-cycle links nearly every event lands in the next cycle's bucket, and growing it
// from nothing each cycle (reallocations, fresh pages) was a tenth of the scheduling cost.
// The bucket ring covers the links' round trips but at most kMaxBuckets cycles: events further
// out (very long links, multi-retry D2D flits) wait in a heap, so memory never follows the
// largest latency of a config, only the events in flight.
#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "noc/Flit.h"

namespace wsc::noc {

struct NetEvent {
    // WakeRouter: a router that granted nothing asked to be evaluated again at this cycle
    // (Router::evaluate), when a stage delay or a busy output ends.
    enum Kind : uint8_t { FlitToRouter, FlitToNi, CreditToRouter, CreditToNi, WakeRouter };
    uint32_t target = 0;  // router or NI index
    uint8_t kind = 0;
    uint8_t port = 0;  // input port (flits) or output port (credits) at the target
    uint8_t vc = 0;    // for credits; flits carry their own
    Flit flit;
};

class EventWheel {
  public:
    static constexpr uint64_t kMinBuckets = 16, kMaxBuckets = 4096;
    // `horizon`: the delay most events have (the longest link round trip); the ring has the next
    // power of two above it, capped at kMaxBuckets.
    explicit EventWheel(uint64_t horizon);

    // The common case (due within the ring, room in its bucket) inline; the rest out of line.
    void schedule(uint64_t now, uint64_t when, const NetEvent& e) {
        if (NetEvent* slot = place(now, when))
            *slot = e;
        else
            scheduleSlow(now, when, e);
    }
    // schedule()'s common case with the event written in place: a slot at the end of the
    // bucket of `when` (default-initialised), or nullptr where schedule() must take it. An
    // event assembled field by field on the stack and then copied in was read back wider than
    // it was written, which the CPU cannot forward from its store buffer: a stall per event.
    NetEvent* place(uint64_t now, uint64_t when) {
        const uint64_t d = when - now;
        if (d - 1 < mask_) {  // now < when <= now + mask_
            std::vector<NetEvent>& b = bucket_[when & mask_];
            if (b.size() < b.capacity()) {
                ++pending_;
                ++near_;
                return &b.emplace_back();
            }
        }
        return nullptr;
    }
    // Schedules every event of `es` at `when`, in their order (a threaded step's chunk's events
    // due at one cycle, StepLane::near): one copy instead of one schedule() each.
    void scheduleAll(uint64_t now, uint64_t when, const std::vector<NetEvent>& es);
    // Moves the events due at `cycle` into `out` (cleared first).
    void collect(uint64_t cycle, std::vector<NetEvent>& out);
    uint64_t pending() const { return pending_; }
    // Events the spare storages could hold (tests: memory follows the events in flight).
    size_t spareCapacity() const {
        size_t n = 0;
        for (const auto& v : spares_) n += v.capacity();
        return n;
    }
    // Earliest cycle > now with an event, or UINT64_MAX.
    uint64_t nextAfter(uint64_t now) const;

  private:
    struct Far {
        uint64_t when;
        uint64_t order;
        NetEvent e;
        bool operator>(const Far& o) const {
            return when != o.when ? when > o.when : order > o.order;
        }
    };
    static constexpr size_t kKeepEvents = 1024;  // 24 KB a bucket may keep whatever the load
    static constexpr size_t kSpares = 4;         // more than the buckets a cycle fills at once
    [[noreturn]] static void throwPast();
    void scheduleSlow(uint64_t now, uint64_t when, const NetEvent& e);
    // A bucket that cannot take `more` events takes the largest spare storage if that holds
    // them (its events copied over).
    void grow(std::vector<NetEvent>& b, size_t more);
    // Keeps emptied storage as a spare if it holds at most `limit` events (twice the events in
    // flight; collect drops spares above that bound each cycle, so a burst's storage is given
    // back once it has passed), at most kSpares of them (the smallest goes).
    void spare(std::vector<NetEvent>& v, size_t limit);
    std::vector<std::vector<NetEvent>> spares_;
    std::vector<std::vector<NetEvent>> bucket_;
    uint64_t mask_;
    uint64_t pending_ = 0;
    uint64_t near_ = 0;  // events in the ring (the rest are in far_)
    uint64_t far_order_ = 0;
    std::priority_queue<Far, std::vector<Far>, std::greater<Far>> far_;  // beyond the horizon
};

}  // namespace wsc::noc
