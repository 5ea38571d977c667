#pragma once
// The route entries ("colors") one router holds: (input port, route id) -> set of output ports.
// A real fabric router has a small fixed number of them (WaferLLM's PLMR "R", 24 on WSE-2), so
// the table is a short vector searched linearly, and its size is checked against the limit.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "noc/Prefetch.h"

namespace wsc::noc {

class RouteTable {
  public:
    struct Entry {
        uint32_t route;
        uint8_t in_port;
        uint8_t out_mask;
    };
    // Adds output ports to the entry for (in_port, route), creating it if needed.
    void add(uint8_t in_port, uint32_t route, uint8_t out_mask);
    // 0 when there is no entry.
    uint8_t lookup(uint8_t in_port, uint32_t route) const;
    size_t size() const { return entries_.size(); }
    // The entries' first lines (a wafer's tables miss in cache: Network's visit loop asks
    // ahead), at most four: a kernel's tables hold a few dozen entries, a destination table
    // one per node, which lookup stops scanning at the match.
    WSC_PREFETCH void prefetchEntries() const {
        prefetchRange(entries_.data(), std::min<size_t>(entries_.size() * sizeof(Entry), 256));
    }
    const std::vector<Entry>& entries() const { return entries_; }
    void clear() { entries_.clear(); }

  private:
    std::vector<Entry> entries_;
};

}  // namespace wsc::noc
