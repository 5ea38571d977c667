#pragma once
// Where each key of a loaded config came from (file, line, column), so that checks made after
// loading (building the network, planning a workload, fitting SRAM) still report the
// file:line:column of the key they are about, like the loaders do (docs/CONFIG.md, Strictness).
//
// YamlReader records every key it reads into the SourceMap of its document; the loaders hand a
// ConfigSource (the map and the key prefix of the section, e.g. "scenario.hardware") to the typed
// config. A key the file does not give (its default applies) is reported at the nearest enclosing
// key the file does give.
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hw/ConfigError.h"

namespace wsc::hw {

class SourceMap {
  public:
    // `line` and `column` 1-based (0 = unknown).
    void record(const std::string& keyPath, const std::string& file, int line, int column);
    bool has(const std::string& keyPath) const { return where_.count(keyPath) != 0; }
    // A ConfigError about `keyPath`: at its value when recorded, else at the nearest recorded
    // ancestor, with "(not set: its default applies)" appended to the message.
    ConfigError error(const std::string& keyPath, const std::string& message) const;
    // A key set by `--set` (hw/ConfigOverrides): it and the keys below it report `flag` as their
    // place instead of a file position.
    void markOverride(const std::string& keyPath, const std::string& flag);
    // The flag that set `keyPath` or one of its ancestors, or nullptr.
    const std::string* overrideFlag(const std::string& keyPath) const;
    // A key the document leaves out, read with a default: its path and the default as config
    // text ("2 cycles", "1e+09 Hz"), in read order (`wsc config --resolved` prints them).
    void recordDefault(const std::string& keyPath, const std::string& text);
    const std::vector<std::pair<std::string, std::string>>& defaults() const { return defaults_; }

  private:
    struct Where {
        std::string file;
        int line = 0, column = 0;
    };
    std::unordered_map<std::string, Where> where_;
    std::unordered_map<std::string, std::string> overrides_;  // key path -> "--set ..."
    std::vector<std::pair<std::string, std::string>> defaults_;
};

// A section of a loaded config: its document's SourceMap and its key prefix. Default-constructed
// (a config built in C++) it has no positions and names only the key.
class ConfigSource {
  public:
    ConfigSource() = default;
    ConfigSource(std::shared_ptr<const SourceMap> map, std::string prefix, std::string file)
        : map_(std::move(map)), prefix_(std::move(prefix)), file_(std::move(file)) {}

    // `key` relative to the section ("noc.route_limit"; "" for the section itself).
    ConfigError error(const std::string& key, const std::string& message) const;
    std::string keyPath(const std::string& key) const;
    const std::string& file() const { return file_; }

  private:
    std::shared_ptr<const SourceMap> map_;
    std::string prefix_;
    std::string file_;
};

}  // namespace wsc::hw
