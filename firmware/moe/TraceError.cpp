#include "firmware/moe/TraceError.h"

namespace wsc::firmware::moe {

TraceError::TraceError(std::string file, int line, int column, std::string key, std::string message)
    : std::runtime_error(format(file, line, column, key, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      key_(std::move(key)),
      message_(std::move(message)) {}

std::string TraceError::format(const std::string& file, int line, int column,
                               const std::string& key, const std::string& message) {
    std::string out = file;
    if (line > 0) {
        out += ":" + std::to_string(line);
        if (column > 0) out += ":" + std::to_string(column);
    }
    out += ": ";
    if (!key.empty()) out += "key '" + key + "': ";
    return out + message;
}

}  // namespace wsc::firmware::moe
