#pragma once
// Reading an input file (a YAML config, firmware text, a trace) whole, safely: only a regular
// file (a directory, FIFO or device such as /dev/zero is refused rather than read forever) of at
// most `max_bytes` (checked before and while reading, so a file that grows cannot exhaust memory).
// In noc/, the lowest library, so that hw/ and firmware/ share it; callers turn the error into
// their own located error (hw::ConfigError, firmware::ParseError).
#include <cstdint>
#include <stdexcept>
#include <string>

namespace wsc::noc {

class InputFile {
  public:
    // The refusal, without the path (callers name the file): "not a regular file (a FIFO)".
    class Error : public std::runtime_error {
      public:
        using std::runtime_error::runtime_error;
    };
    static std::string read(const std::string& path, uint64_t max_bytes);
};

}  // namespace wsc::noc
