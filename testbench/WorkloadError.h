#pragma once
// A workload a testbench cannot run on the given hardware, naming the workload key it is about
// ("cores", "chunk"): testbench/Preflight reports it at that key's file:line:column (exit 2).
#include <stdexcept>
#include <string>

namespace wsc::tb {

class WorkloadError : public std::invalid_argument {
  public:
    WorkloadError(std::string key, const std::string& message)
        : std::invalid_argument(message), key_(std::move(key)) {}
    const std::string& key() const { return key_; }

  private:
    std::string key_;
};

}  // namespace wsc::tb
