#pragma once
// Calendar queue of future network events (flit and credit arrivals). Every cross-block
// interaction goes through it with a delay of at least one cycle, which is what makes a cycle's
// result independent of the order in which routers are visited (the evaluate/update split).
// Events live in one pooled array threaded into per-cycle FIFO lists, so memory follows the
// number of events in flight (not buckets x the busiest cycle, which on a wafer with long FEC
// links meant thousands of fat buckets), and steady-state scheduling allocates nothing.
// The bucket ring covers the links' round trips but at most kMaxBuckets cycles: events further
// out (very long links, multi-retry D2D flits) wait in a heap, so memory never follows the
// largest latency of a config, only the events in flight.
#include <cstdint>
#include <queue>
#include <vector>

#include "noc/Flit.h"

namespace wsc::noc {

struct NetEvent {
    enum Kind : uint8_t { FlitToRouter, FlitToNi, CreditToRouter, CreditToNi };
    uint32_t target = 0;  // router or NI index
    uint8_t kind = 0;
    uint8_t port = 0;  // input port (flits) or output port (credits) at the target
    uint8_t vc = 0;    // for credits; flits carry their own
    Flit flit;
};

class EventWheel {
  public:
    static constexpr uint64_t kMaxBuckets = 4096;
    // `horizon`: the delay most events have (the longest link round trip); the ring has the next
    // power of two above it, capped at kMaxBuckets.
    explicit EventWheel(uint64_t horizon);

    void schedule(uint64_t now, uint64_t when, const NetEvent& e);
    // Moves the events due at `cycle` into `out` (cleared first).
    void collect(uint64_t cycle, std::vector<NetEvent>& out);
    uint64_t pending() const { return pending_; }
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
    static constexpr uint32_t kNil = 0xFFFFFFFFu;
    struct Node {
        NetEvent e;
        uint32_t next;
    };
    std::vector<Node> pool_;
    uint32_t free_ = kNil;
    std::vector<uint32_t> head_, tail_;  // per bucket
    uint64_t mask_;
    uint64_t pending_ = 0;
    uint64_t near_ = 0;  // events in the ring (the rest are in far_)
    uint64_t far_order_ = 0;
    std::priority_queue<Far, std::vector<Far>, std::greater<Far>> far_;  // beyond the horizon
};

}  // namespace wsc::noc
