#pragma once
// Every key a --stats file can hold, with its unit and meaning: the registry docs/STATS.md is
// generated from (`wsc stats keys`) and every written file is checked against (`wsc stats check
// FILE...`, the tests run it on a file of each writer), so an undocumented key fails a test.
// Paths are the JSON's keys joined by '.', with `*` for one key of any name (an instance: a
// router `r(1,2)`, a core `core5`, a die `die_3`, a link, a phase) and `[]` for an array element.
// Each section names the writer that produces it.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace wsc::tb {

class StatsSchema {
  public:
    struct Key {
        std::string path, unit, meaning;
    };
    struct Section {
        const char* title;
        const char* writer;  // the code that writes these keys
        const char* where;   // which files hold them
        std::vector<Key> keys;
    };
    static const std::vector<Section>& sections();
    // The registry entry a leaf's key path (its keys in order; array elements as "[]") matches,
    // or nullptr.
    static const Key* find(const std::vector<std::string>& path);
    // Every leaf of `j` whose path matches no entry, as dotted text ("" for none).
    static std::vector<std::string> undocumented(const nlohmann::json& j);
    // The generated part of docs/STATS.md.
    static std::string markdown();
};

}  // namespace wsc::tb
