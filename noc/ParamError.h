#pragma once
// A NocParams value the network cannot be built or run with (a route table over route_limit,
// faults that cut routers off, a watchdog shorter than a link round trip). It names the config
// key it is about, relative to the hardware file's root ("noc.route_limit"), so the layers above,
// which know where that key was written (hw::ConfigSource), can report file:line:column and exit
// 2 like any other config error. noc/ itself never sees YAML. A runtime_error, as the route-limit
// errors always were: firmware::RoutePlanner catches them to fall back to relays.
#include <stdexcept>
#include <string>

namespace wsc::noc {

class ParamError : public std::runtime_error {
  public:
    ParamError(std::string key, const std::string& message)
        : std::runtime_error(message), key_(std::move(key)) {}
    const std::string& key() const { return key_; }

  private:
    std::string key_;
};

}  // namespace wsc::noc
