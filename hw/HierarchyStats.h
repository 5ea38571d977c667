#pragma once
// The one stats walker: from a SystemC object down, every module that is a hw::StatsGroup writes
// its counters into a JSON object keyed by its basename, and its children nest inside it. Modules
// that are not stats groups are transparent (their stats-group descendants attach to the nearest
// stats-group ancestor), so the JSON follows the named hierarchy without listing plumbing.
#include <nlohmann/json_fwd.hpp>
#include <systemc>

namespace wsc::hw {

class HierarchyStats {
  public:
    // Writes `root` (if it is a StatsGroup) and everything below it into `out`.
    static void dump(const sc_core::sc_object& root, nlohmann::json& out);
};

}  // namespace wsc::hw
