#include "firmware/ValidationError.h"

namespace wsc::firmware {

ValidationError::ValidationError(uint32_t core, size_t pc, const std::string& message)
    : std::invalid_argument(message), core_(core), pc_(pc) {}

}  // namespace wsc::firmware
