#pragma once
// A bad expert trace, located well enough to fix the file by hand:
//   configs/traces/x.jsonl:7:32: key 'experts': expected 4 distinct expert ids < 32, got [3, 3, 1,
//   2]
// Line and column are 1-based; line 0 means the file itself (cannot be opened, empty). An empty
// key means the error is about the line as a whole (not a JSON object, out of order).
#include <stdexcept>
#include <string>

namespace wsc::firmware::moe {

class TraceError : public std::runtime_error {
  public:
    TraceError(std::string file, int line, int column, std::string key, std::string message);

    const std::string& file() const { return file_; }
    int line() const { return line_; }
    int column() const { return column_; }
    const std::string& key() const { return key_; }
    const std::string& message() const { return message_; }

  private:
    static std::string format(const std::string& file, int line, int column, const std::string& key,
                              const std::string& message);
    std::string file_;
    int line_;
    int column_;
    std::string key_;
    std::string message_;
};

}  // namespace wsc::firmware::moe
