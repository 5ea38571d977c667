#pragma once
// `--set key.path=value` on the command line (docs/CONFIG.md, "Overrides"): each assignment
// replaces or adds one key of a YAML document before its loader reads it, so an override gets the
// same units, ranges and strictness as the file. Errors about an overridden key name the flag
// ("--set noc.router.vcs=0: key 'noc.router.vcs': expected ...") instead of a file position.
//
// Key paths are the ones errors print: relative to the file given on the command line
// ("noc.router.pipeline" in a hardware file, "scenario.workload.rate" in a scenario). A scenario
// that names its hardware by path passes the "scenario.hardware." overrides on to that file.
// Values are YAML ("2 cycles", "true", "[1, 2]", "{x: 4, y: 4}"); assignments apply in order, so
// a later one for the same key wins.
#include <string>
#include <vector>

namespace wsc::hw {

class YamlReader;

class ConfigOverrides {
  public:
    struct Entry {
        std::vector<std::string> path;  // key names from the document's root
        std::string value;              // YAML text
        std::string flag;               // "--set a.b=v" as given: where errors point
    };

    ConfigOverrides() = default;
    // Parses "key.path=value" assignments; a malformed one throws ConfigError naming it.
    explicit ConfigOverrides(const std::vector<std::string>& assignments);

    bool empty() const { return entries_.empty(); }
    const std::vector<Entry>& entries() const { return entries_; }

    // The entries under `prefix` ("scenario.hardware"), re-rooted below it, and the others.
    ConfigOverrides under(const std::string& prefix) const;
    ConfigOverrides outside(const std::string& prefix) const;

    // Writes every entry into `root`'s document (missing maps on the way are created) and marks
    // the keys in its SourceMap so that later errors name the flag. Throws ConfigError naming
    // the flag when a key on the path is not a map or the value is not valid YAML.
    void applyTo(const YamlReader& root) const;

  private:
    std::vector<Entry> entries_;
};

}  // namespace wsc::hw
