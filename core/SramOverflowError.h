#pragma once
// A buffer that does not fit in a core's SRAM (PLMR "M"): names the core, the buffer and sizes.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace wsc::core {

class SramOverflowError : public std::runtime_error {
  public:
    SramOverflowError(const std::string& core, const std::string& buffer, uint64_t bytes,
                      uint64_t used, uint64_t capacity);
};

}  // namespace wsc::core
