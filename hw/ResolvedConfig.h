#pragma once
// `wsc config --resolved FILE`: a config as a run sees it. The YAML document after --set, with a
// hardware file that a scenario names by path inlined, and every key a loader read with its
// default added, marked "# default". Defaults come from the loaders' own reads (YamlReader
// records each default it returns), so the printout cannot drift from the code.
#include <string>

#include "hw/ConfigOverrides.h"

namespace wsc::hw {

class ResolvedConfig {
  public:
    // Loads `path` (a hardware or scenario file) with `overrides` as a run would (errors as in
    // `wsc validate`), then prints it resolved.
    static std::string print(const std::string& path, const ConfigOverrides& overrides);
};

}  // namespace wsc::hw
