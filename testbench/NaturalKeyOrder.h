#pragma once
// The order keys take in a stats file: natural order, where runs of digits compare as numbers
// (ni2 before ni10, r(1,2) before r(1,10)), so per-instance counters read in mesh order rather
// than the lexical ni0, ni1, ni10. Applied once, by the one stats writer (RunProvenance).
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace wsc::tb {

class NaturalKeyOrder {
  public:
    // a before b: digit runs by value (then by length, so "02" after "2"), the rest byte-wise.
    static bool less(const std::string& a, const std::string& b);
    // `j` with every object's keys in natural order, recursively; `first` (when present in the
    // top-level object) leads.
    static nlohmann::ordered_json sorted(const nlohmann::json& j, const std::string& first = "");
    // Writes sorted(j, first).dump(2), byte for byte (binary values, which no stats hold, are
    // written compact), without building the sorted copy or the text: a large mesh's stats (a
    // record per link) would otherwise be held three times over (7 GB at 512 x 512).
    static void write(std::ostream& os, const nlohmann::json& j, const std::string& first = "");
};

}  // namespace wsc::tb
