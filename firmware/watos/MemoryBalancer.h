#pragma once
// WATOS memory balancing (Sec. IV-B lines 9-14 of Algorithm 2, Sec. IV-C-2 Algorithm 3): dies
// whose peak DRAM footprint exceeds their capacity are Senders (overflow = footprint - capacity),
// dies with room left are Helpers (free = capacity - footprint), and each Sender's overflow is
// placed in Helpers' DRAM, cheapest path first. Plain C++, no SystemC: the caller turns the result
// into offload traffic and, when it is infeasible, into an error naming the shortfall.
//
// Allocation (Algorithm 3): Senders in descending overflow (ties: lower die id); for each, a
// priority queue of the Helpers that still have free memory, ordered by cost(sender, helper)
// (ties: more free memory first, then lower die id, so the result is deterministic). Pop the
// cheapest, take min(free, overflow), and put the Helper back with what is left if anything is.
// Helpers' free memory carries over from one Sender to the next.
//
// Reading of Algorithm 3 as printed: lines 6-8 (d'.capacity > overflow: capacity -= overflow,
// reinsert d') never reduce the Sender's overflow, so the while loop of line 4 would pop d' again
// and keep taking from it; the intent is that the Sender is then fully served (overflow = 0). Line
// 11 (otherwise: overflow -= d'.capacity) does not set d'.capacity to 0, and since line 2 rebuilds
// Q from H for every Sender, the next Sender would see d' at its old capacity and over-allocate
// it. The equality case is right as printed: a Helper with exactly the overflow takes the else
// branch, serves the Sender completely and is not reinserted (with >= it would go back with 0
// bytes). Here both sides shrink by the same min(free, overflow), which is all three cases at once.
//
// A die whose footprint equals its capacity is neither a Sender nor a Helper (it has nothing to
// give). When the Helpers' free memory cannot absorb every overflow the algorithm still runs (every
// Helper ends full) and the result is Infeasible with shortfall = total overflow - total free.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "firmware/placement/Placement.h"

namespace wsc::firmware::watos {

struct DieMemory {
    uint64_t footprint = 0;  // peak DRAM footprint, bytes
    uint64_t capacity = 0;   // DRAM capacity, bytes
};

struct Allocation {
    uint32_t sender = 0, helper = 0;  // die ids (indices into the input)
    uint64_t bytes = 0;
};

struct BalanceResult {
    enum class Status { Balanced, Infeasible };
    Status status = Status::Balanced;
    std::vector<uint32_t> senders;        // descending overflow, ties by die id
    std::vector<uint32_t> helpers;        // descending free memory, ties by die id
    std::vector<Allocation> allocations;  // in the order they were made
    uint64_t overflow = 0;                // total over the Senders
    uint64_t free = 0;                    // total over the Helpers, before allocation
    uint64_t shortfall = 0;               // overflow - free when Infeasible, else 0

    bool feasible() const { return status == Status::Balanced; }
    // Bytes allocated to die `helper` / placed away from die `sender`.
    uint64_t receivedBy(uint32_t helper) const;
    uint64_t offloadedFrom(uint32_t sender) const;
    // One line for messages: "3 senders, 5 helpers: 12.00 GB overflow placed" or "...: 12.00 GB
    // overflow, 8.00 GB free, short by 4.00 GB".
    std::string summary() const;
};

class MemoryBalancer {
  public:
    // Cost of placing a Sender's bytes in a Helper's DRAM (lower is better; WATOS uses the
    // GlobalCost of the path). Must not be NaN.
    using CostFn = std::function<double(uint32_t sender, uint32_t helper)>;

    explicit MemoryBalancer(CostFn cost);
    // Throws std::invalid_argument only for a NaN cost (a caller bug); infeasibility is a status.
    BalanceResult balance(const std::vector<DieMemory>& dies) const;

    // Mesh hops between the two dies (XY routes take that many): the cost for a die-level wafer.
    static CostFn hopCost(const placement::DieArray& a);

  private:
    CostFn cost_;
};

}  // namespace wsc::firmware::watos
