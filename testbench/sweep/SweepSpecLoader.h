#pragma once
// Reads a sweep spec (docs/SWEEPS.md) with the strictness of every wsc config: unknown keys,
// empty lists, duplicate names, exclusions or plots naming an axis or metric that does not exist,
// and --stats/--set in the command are errors naming file:line:column and the key (exit 2).
#include <string>

#include "testbench/sweep/SweepSpec.h"

namespace wsc::tb::sweep {

class SweepSpecLoader {
  public:
    static SweepSpec loadFile(const std::string& path);
    static SweepSpec loadString(const std::string& text, const std::string& name,
                                const std::string& dir);
    // Limits that keep a typo (a range step of 1e-9) from planning a billion points.
    static constexpr size_t kMaxAxisValues = 10000;
    static constexpr size_t kMaxPoints = 100000;
};

}  // namespace wsc::tb::sweep
