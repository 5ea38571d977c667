#pragma once
// A strict, read-only view of one YAML map (or value) that knows which file it came from and its
// dotted key path ("noc.router"), so that every error names file:line:column, the full key,
// what was expected and what was found (see ConfigError).
//
// "Strict" means: unknown keys are rejected (checkKeys), duplicate keys are rejected, quoted
// strings are not numbers ("4" is not 4), an empty value is not a default, integers are decimal
// digits only, booleans are true/false only, and quantities must carry their unit (Units).
//
// Getters take an optional default: without one the key is required; with one, a missing key
// yields the default but a present key is always validated.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hw/ConfigError.h"
#include "hw/SourceMap.h"
#include "hw/Units.h"

namespace wsc::hw {

class ConfigOverrides;

class YamlReader {
  public:
    // Parse a file / a string. The root must be a single YAML document holding a map. A missing
    // or unreadable file, a syntax error or an empty document throws ConfigError. `name` is the
    // file name shown in messages (and the base for relative paths in ScenarioLoader).
    // A file must be a regular file of at most max_bytes (noc::InputFile: /dev/zero, FIFOs and
    // directories are refused, not read forever).
    static constexpr uint64_t kMaxFileBytes = uint64_t{16} << 20;
    static YamlReader loadFile(const std::string& path, uint64_t max_bytes = kMaxFileBytes);
    static YamlReader loadString(const std::string& text, const std::string& name);
    // loadFile, then the --set overrides written into the document (hw/ConfigOverrides).
    static YamlReader loadFile(const std::string& path, const ConfigOverrides& overrides);

    // Wrap an already-parsed node (tests, generated configs). With `sources`, every key read
    // through this reader (and its children) is recorded there with its position.
    YamlReader(YAML::Node node, std::string file, std::string path, YAML::Mark mark,
               std::shared_ptr<SourceMap> sources = nullptr);

    const std::string& file() const { return file_; }
    const std::string& path() const { return path_; }  // "" for the root
    const YAML::Node& node() const { return node_; }
    // The positions of every key read so far from this document (null for a wrapped node).
    const std::shared_ptr<SourceMap>& sources() const { return sources_; }
    // This section as a ConfigSource (for checks after loading, hw/SourceMap).
    ConfigSource source() const { return ConfigSource(sources_, path_, file_); }
    std::string keyPath(const std::string& key) const;  // path() + "." + key
    int line() const { return mark_.line + 1; }         // 1-based, for messages of callers
    int column() const { return mark_.column + 1; }

    bool isMap() const { return node_.IsMap(); }
    bool isScalar() const { return node_.IsScalar(); }
    bool isSequence() const { return node_.IsSequence(); }

    // Map access. All of these require this node to be a map.
    bool has(const std::string& key) const;
    YamlReader child(const std::string& key) const;  // required, must be a map
    std::optional<YamlReader> optionalChild(const std::string& key) const;  // a map if present
    YamlReader entry(const std::string& key) const;  // required, any kind (map/scalar/sequence)
    // Rejects keys not in `allowed` (naming the key, the allowed set and its position; with a
    // spelling suggestion when one is close), duplicate keys and non-scalar keys.
    void checkKeys(std::initializer_list<std::string_view> allowed) const;
    // The same for a large key set: the message names `allowedWhat` ("the keys listed in
    // docs/MODELS.md") instead of listing every key.
    void checkKeys(const std::vector<std::string_view>& allowed,
                   const std::string& allowedWhat) const;

    // Sequence access; element paths read "key[3]".
    std::vector<YamlReader> elements() const;

    // This node's scalar text (plain or quoted); `expected` describes it in the error otherwise.
    std::string scalar(const std::string& expected) const;

    static constexpr uint32_t kMaxU32 = std::numeric_limits<uint32_t>::max();
    static constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();

    // Unquoted decimal integers in [min, max].
    uint32_t getUInt(const std::string& key, uint32_t min, uint32_t max,
                     std::optional<uint32_t> def = std::nullopt) const;
    uint64_t getUInt64(const std::string& key, uint64_t min, uint64_t max,
                       std::optional<uint64_t> def = std::nullopt) const;
    // An unquoted plain number (no unit) in [min, max].
    double getDouble(const std::string& key, double min, double max,
                     std::optional<double> def = std::nullopt) const;
    bool getBool(const std::string& key, std::optional<bool> def = std::nullopt) const;
    std::string getString(const std::string& key,
                          std::optional<std::string> def = std::nullopt) const;
    // One of `allowed` (case-sensitive).
    std::string getEnum(const std::string& key, const std::vector<std::string>& allowed,
                        std::optional<std::string> def = std::nullopt) const;
    // A quantity with a unit, in SI (see Units). Negative values are rejected.
    double getQuantity(const std::string& key, Dim dim,
                       std::optional<double> def = std::nullopt) const;
    // A Size in whole bytes in [min, max].
    uint64_t getBytes(const std::string& key, uint64_t min, uint64_t max,
                      std::optional<uint64_t> def = std::nullopt) const;
    // A duration in cycles or a time unit (rounded up at clock_hz, see Units::toCycles), in
    // [min, max] cycles.
    uint32_t getCycles(const std::string& key, double clock_hz, uint32_t min,
                       uint32_t max = kMaxU32, std::optional<uint32_t> def = std::nullopt) const;
    uint64_t getCycles64(const std::string& key, double clock_hz, uint64_t min,
                         uint64_t max = kMaxU64, std::optional<uint64_t> def = std::nullopt) const;
    // A flit count ("8 flits") or bytes that are a multiple of flit_bytes, in [min, max] flits.
    uint32_t getFlits(const std::string& key, uint32_t flit_bytes, uint32_t min = 1,
                      uint32_t max = kMaxU32, std::optional<uint32_t> def = std::nullopt) const;

    // Semantic errors found by loaders. fail() points at `key`'s value (or at this map if the key
    // is absent) and appends what was found: "expected <expected>, got '<value>'".
    [[noreturn]] void fail(const std::string& key, const std::string& expected) const;
    [[noreturn]] void failHere(const std::string& expected) const;
    // The same position and key path with a free-form message.
    ConfigError errorAt(const std::string& key, const std::string& message) const;
    ConfigError errorHere(const std::string& message) const;

  private:
    struct Entry {
        YAML::Node key;
        YAML::Node value;
    };
    std::optional<Entry> find(const std::string& key) const;
    YamlReader wrap(const std::string& key, const Entry& e) const;
    void requireMap() const;
    // The value of a required key, or nullopt if absent and a default exists.
    std::optional<YamlReader> value(const std::string& key, bool hasDefault,
                                    const std::string& expected) const;
    // Text of a scalar value that must not be quoted (numbers, booleans).
    std::string plainScalar(const std::string& expected) const;
    std::string found() const;  // "'0'", "a map", "an empty value", ...
    const std::string* overrideFlag(const std::string& keyPath) const;
    void checkKeysImpl(const std::string_view* begin, const std::string_view* end,
                       const std::string& allowedText) const;
    // Records that `key` took its default (`text`, as config text) and returns `v`.
    void recordDefault(const std::string& key, const std::string& text) const;
    template <typename T>
    T defaulted(const std::string& key, const std::string& text, T v) const {
        recordDefault(key, text);
        return v;
    }

    YAML::Node node_;
    std::string file_;
    std::string path_;
    YAML::Mark mark_;  // where errors about this node point (the key's mark for an empty value)
    std::shared_ptr<SourceMap> sources_;
};

}  // namespace wsc::hw
