#include "hw/UnitError.h"

namespace wsc::hw {

UnitError::UnitError(const std::string& message) : std::runtime_error(message) {}

}  // namespace wsc::hw
