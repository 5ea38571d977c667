#include "firmware/ParseError.h"

#include <fmt/format.h>

namespace wsc::firmware {

ParseError::ParseError(std::string file, int line, std::string message)
    : std::runtime_error(fmt::format("{}:{}: {}", file, line, message)),
      file_(std::move(file)),
      line_(line),
      message_(std::move(message)) {}

}  // namespace wsc::firmware
