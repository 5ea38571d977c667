#pragma once
// Which mesh links and routers are dead: the explicit lists of FaultParams plus, with a link
// fault rate, an independent seeded draw per physical (bidirectional) link in a fixed order, so
// the same seed always fails the same links.
#include <cstdint>
#include <string>
#include <vector>

#include "noc/NocParams.h"
#include "noc/Topology.h"

namespace wsc::noc {

class FaultMap {
  public:
    FaultMap(const Topology& topo, const FaultParams& f);
    bool routerDead(uint32_t r) const { return !router_dead_.empty() && router_dead_[r]; }
    // The link leaving r through `port` is unusable (failed itself, or an end router failed).
    bool linkDead(uint32_t r, uint8_t port) const;
    uint32_t failedLinks() const {
        return failed_links_;
    }  // physical links, excluding router failures
    uint32_t failedRouters() const { return failed_routers_; }
    bool any() const { return any_; }

  private:
    const Topology& topo_;
    std::vector<uint8_t> link_dead_;    // [router * 4 + port]
    std::vector<uint8_t> router_dead_;  // [router]
    uint32_t failed_links_ = 0, failed_routers_ = 0;
    bool any_ = false;
};

}  // namespace wsc::noc
