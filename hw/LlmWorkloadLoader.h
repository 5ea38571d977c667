#pragma once
// The `workload:` map of an llm scenario (docs/CONFIG.md "scenario.workload with type: llm").
#include "firmware/llm/LlmWorkload.h"
#include "hw/YamlReader.h"

namespace wsc::hw {

// Reads the keys, loads the model file (a path relative to the scenario's folder) and parses the
// plan; errors name the key (and, for the model, the model file's own line and key).
firmware::llm::LlmWorkload loadLlmWorkload(const YamlReader& workload);

}  // namespace wsc::hw
