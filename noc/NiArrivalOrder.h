#pragma once
// Puts a cycle's arrivals at NIs in NI order, stably (each NI's own events keep the order they
// were scheduled in). Routers are visited in the order they were woken on small meshes and in
// index order on chained ones, and deferred arrivals change which routers a cycle visits; what
// could observe any of that is the order in which same-cycle deliveries at different NIs reach
// their endpoints (a memory stack attached at several nodes queues same-cycle requests in that
// order). In NI order they are the same whatever the order of visits.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "noc/EventWheel.h"

namespace wsc::noc {

class NiArrivalOrder {
  public:
    // `nis`: how many NIs there are (every event's target is below it).
    void sort(std::vector<NetEvent>& events, size_t nis);

  private:
    std::vector<uint64_t> keys_;    // counts per NI, or (target, position) keys
    std::vector<NetEvent> sorted_;  // swapped with the caller's vector
};

}  // namespace wsc::noc
