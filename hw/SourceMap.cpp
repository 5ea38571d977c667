#include "hw/SourceMap.h"

namespace wsc::hw {

void SourceMap::record(const std::string& keyPath, const std::string& file, int line, int column) {
    where_.emplace(keyPath, Where{file, line, column});  // the first read is the key's position
}

ConfigError SourceMap::error(const std::string& keyPath, const std::string& message) const {
    std::string k = keyPath;
    for (bool exact = true;; exact = false) {
        const auto it = where_.find(k);
        if (it != where_.end())
            return ConfigError(it->second.file, it->second.line, it->second.column, keyPath,
                               exact ? message : message + " (not set: its default applies)");
        if (k.empty()) break;
        // The parent: "a.b[2].c" -> "a.b[2]" -> "a.b" -> "a" -> "".
        const size_t cut = k.find_last_of(".[");
        k = cut == std::string::npos ? std::string() : k.substr(0, cut);
    }
    return ConfigError("", 0, 0, keyPath, message);
}

void SourceMap::markOverride(const std::string& keyPath, const std::string& flag) {
    overrides_[keyPath] = flag;  // a later --set of the same key is the one that stays
}

const std::string* SourceMap::overrideFlag(const std::string& keyPath) const {
    if (overrides_.empty()) return nullptr;
    for (std::string k = keyPath;;) {
        const auto it = overrides_.find(k);
        if (it != overrides_.end()) return &it->second;
        const size_t cut = k.find_last_of(".[");
        if (cut == std::string::npos) return nullptr;
        k = k.substr(0, cut);
    }
}

void SourceMap::recordDefault(const std::string& keyPath, const std::string& text) {
    for (const auto& d : defaults_)
        if (d.first == keyPath) return;  // read twice (a check re-reads a key): once is enough
    defaults_.emplace_back(keyPath, text);
}

std::string ConfigSource::keyPath(const std::string& key) const {
    if (prefix_.empty()) return key;
    return key.empty() ? prefix_ : prefix_ + "." + key;
}

ConfigError ConfigSource::error(const std::string& key, const std::string& message) const {
    if (map_) return map_->error(keyPath(key), message);
    return ConfigError(file_.empty() ? "(config)" : file_, 0, 0, keyPath(key), message);
}

}  // namespace wsc::hw
