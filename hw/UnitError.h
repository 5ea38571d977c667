#pragma once
// Thrown by Units when a string is not a valid quantity. It knows nothing about files or keys:
// its text is only the "expected ..., got '...'" part, which YamlReader wraps into a ConfigError
// with the position and key path.
#include <stdexcept>
#include <string>

namespace wsc::hw {

class UnitError : public std::runtime_error {
  public:
    explicit UnitError(const std::string& message);
};

}  // namespace wsc::hw
