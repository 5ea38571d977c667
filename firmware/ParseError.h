#pragma once
// A malformed firmware text: names the file, the 1-based line and what was expected there, e.g.
//   gemm.fw:12: expected an integer for 'k', got 'x16'
#include <stdexcept>
#include <string>

namespace wsc::firmware {

class ParseError : public std::runtime_error {
  public:
    ParseError(std::string file, int line, std::string message);
    const std::string& file() const { return file_; }
    int line() const { return line_; }
    const std::string& message() const { return message_; }

  private:
    std::string file_;
    int line_;
    std::string message_;
};

}  // namespace wsc::firmware
