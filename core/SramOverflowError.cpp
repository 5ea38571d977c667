#include "core/SramOverflowError.h"

#include <fmt/format.h>

namespace wsc::core {

SramOverflowError::SramOverflowError(const std::string& core, const std::string& buffer,
                                     uint64_t bytes, uint64_t used, uint64_t capacity)
    : std::runtime_error(fmt::format(
          "SRAM overflow on {}: buffer '{}' needs {} bytes but only {} of {} bytes are free "
          "({} already allocated)",
          core, buffer, bytes, capacity - used, capacity, used)) {}

}  // namespace wsc::core
