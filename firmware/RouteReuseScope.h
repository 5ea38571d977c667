#pragma once
// Route reuse (noc::Network::setRouteReuse) on for one composed build, so operations with the
// same trees share their routes; the network's previous setting comes back when the scope ends.
#include "noc/Network.h"

namespace wsc::firmware {

class RouteReuseScope {
  public:
    explicit RouteReuseScope(noc::Network& net) : net_(net), was_(net.routeReuse()) {
        net.setRouteReuse(true);
    }
    ~RouteReuseScope() { net_.setRouteReuse(was_); }
    RouteReuseScope(const RouteReuseScope&) = delete;
    RouteReuseScope& operator=(const RouteReuseScope&) = delete;

  private:
    noc::Network& net_;
    bool was_;
};

}  // namespace wsc::firmware
