#pragma once
// Thrown by the watchdog when flits are in the network but none has moved for the configured
// number of cycles; what() lists the stuck flits and where they sit.
#include <stdexcept>
#include <string>

namespace wsc::noc {

class DeadlockError : public std::runtime_error {
  public:
    explicit DeadlockError(const std::string& report) : std::runtime_error(report) {}
};

}  // namespace wsc::noc
