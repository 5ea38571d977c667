#pragma once
// A SystemC module that owns a named group of counters. hw::HierarchyStats walks the SystemC
// hierarchy and writes each group under its instance's basename, nested as the modules are
// (wafer -> die_1_0 -> hbm_0 -> counters), so --stats JSON reads like the chip.
#include <nlohmann/json_fwd.hpp>

namespace wsc::hw {

class StatsGroup {
  public:
    virtual ~StatsGroup() = default;
    // This module's own counters (children are written by the walker, under their names).
    virtual void dumpStats(nlohmann::json& out) const = 0;
};

}  // namespace wsc::hw
