#include "noc/RouteTable.h"

namespace wsc::noc {

void RouteTable::add(uint8_t in_port, uint32_t route, uint8_t out_mask) {
    for (auto& e : entries_) {
        if (e.in_port == in_port && e.route == route) {
            e.out_mask |= out_mask;
            return;
        }
    }
    entries_.push_back(Entry{route, in_port, out_mask});
}

uint8_t RouteTable::lookup(uint8_t in_port, uint32_t route) const {
    for (const auto& e : entries_)
        if (e.in_port == in_port && e.route == route) return e.out_mask;
    return 0;
}

}  // namespace wsc::noc
