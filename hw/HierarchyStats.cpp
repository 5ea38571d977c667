#include "hw/HierarchyStats.h"

#include <nlohmann/json.hpp>

#include "hw/StatsGroup.h"

namespace wsc::hw {

namespace {
void children(const sc_core::sc_object& o, nlohmann::json& out) {
    for (const sc_core::sc_object* c : o.get_child_objects()) {
        if (const auto* g = dynamic_cast<const StatsGroup*>(c)) {
            nlohmann::json& j = out[c->basename()];
            g->dumpStats(j);
            children(*c, j);
        } else {
            children(*c, out);  // transparent: its groups attach here
        }
    }
}
}  // namespace

void HierarchyStats::dump(const sc_core::sc_object& root, nlohmann::json& out) {
    if (const auto* g = dynamic_cast<const StatsGroup*>(&root)) g->dumpStats(out);
    children(root, out);
}

}  // namespace wsc::hw
