#pragma once
// A configuration error with enough context to fix the file without a debugger:
//   configs/x.yaml:12:7: key 'noc.router.vcs': expected an integer >= 1, got '0'
// Line and column are 1-based (yaml-cpp marks are 0-based; conversion happens here, once).
// A zero line means "no position" (e.g. a file that cannot be opened); an empty key path means
// the error is about the file itself (e.g. a YAML syntax error).
#include <stdexcept>
#include <string>

namespace YAML {
struct Mark;
class ParserException;
}  // namespace YAML

namespace wsc::hw {

class ConfigError : public std::runtime_error {
  public:
    ConfigError(std::string file, int line, int column, std::string keyPath, std::string message);

    // Position from a yaml-cpp mark (0-based, or -1 for "unknown").
    static ConfigError atMark(const std::string& file, const YAML::Mark& mark,
                              const std::string& keyPath, const std::string& message);
    // A YAML syntax error reported by the parser.
    static ConfigError fromParser(const std::string& file, const YAML::ParserException& e);

    const std::string& file() const { return file_; }
    int line() const { return line_; }      // 1-based; 0 when unknown
    int column() const { return column_; }  // 1-based; 0 when unknown
    const std::string& keyPath() const { return keyPath_; }
    const std::string& message() const { return message_; }  // "expected ..., got ..."

  private:
    static std::string format(const std::string& file, int line, int column,
                              const std::string& keyPath, const std::string& message);

    std::string file_;
    int line_;
    int column_;
    std::string keyPath_;
    std::string message_;
};

}  // namespace wsc::hw
