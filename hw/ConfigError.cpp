#include "hw/ConfigError.h"

#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>

namespace wsc::hw {

ConfigError::ConfigError(std::string file, int line, int column, std::string keyPath,
                         std::string message)
    : std::runtime_error(format(file, line, column, keyPath, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      keyPath_(std::move(keyPath)),
      message_(std::move(message)) {}

ConfigError ConfigError::atMark(const std::string& file, const YAML::Mark& mark,
                                const std::string& keyPath, const std::string& message) {
    // yaml-cpp uses -1 for "no mark" (e.g. an empty document).
    const bool known = mark.line >= 0 && mark.column >= 0;
    return ConfigError(file, known ? mark.line + 1 : 0, known ? mark.column + 1 : 0, keyPath,
                       message);
}

ConfigError ConfigError::fromParser(const std::string& file, const YAML::ParserException& e) {
    return atMark(file, e.mark, "", "invalid YAML syntax: " + e.msg);
}

std::string ConfigError::format(const std::string& file, int line, int column,
                                const std::string& keyPath, const std::string& message) {
    std::string out = file;
    if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
    out += ": ";
    if (!keyPath.empty()) out += "key '" + keyPath + "': ";
    return out + message;
}

}  // namespace wsc::hw
