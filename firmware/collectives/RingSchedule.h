#pragma once
// The ring engine behind every ring collective. A lane is one logical ring: its ranks in ring
// order (position p sends to p + 1, any nodes: a logical hop between non-neighbours is a
// multi-hop NoC path the routers forward, no core relays) and, per position c, the chunk that
// position owns after a reduce-scatter as a list of messages ("slots", each one buffer).
//
// Steps are numbered on the whole all-reduce: at step s position q sends chunk (q - s - 1) mod n
// and receives chunk (q - s - 2) mod n; steps 0 .. n-2 reduce-scatter (receive into rx, add),
// steps n-1 .. 2n-3 all-gather (receive into the chunk's own buffer). Reduce-scatter alone is
// [0, n-1), all-gather alone [n-1, 2n-2) (position q starts with chunk q), all-reduce both.
//
// Program order per rank (in-order cores): the first step's sends, then per step and slot:
// receive, add, and at once forward the slot for the next step, so with several slots the
// receive, add and forward of slot i overlap the transfer of slot i + 1. Several lanes over the
// same ranks (a bidirectional ring: the second lane is the reversed ring) are interleaved slot
// by slot, so one rank's network interface alternates between them.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/collectives/CollectiveEmitter.h"

namespace wsc::firmware::coll {

struct RingLane {
    struct Slot {
        std::string buffer;
        uint64_t elems = 0;  // 0: nothing to move (both ends skip it)
    };
    std::vector<uint32_t> ranks;            // rank indices in ring order
    std::vector<std::vector<Slot>> chunks;  // chunks[c]: owned by position c; same slot count
    std::string rx;                         // receive buffers "<rx>.<slot>" (reduce steps)
};

class RingSchedule {
  public:
    // Emits steps [first, last) of every lane; all lanes hold the same ranks.
    static void emit(CollectiveEmitter& e, const std::vector<RingLane>& lanes, uint32_t first,
                     uint32_t last);
};

}  // namespace wsc::firmware::coll
