#pragma once
// Reads a HuggingFace-style config.json into a typed firmware::model::ModelConfig.
//
// JSON is YAML flow syntax, so the file goes through the project's strict YamlReader and every
// error is located like a YAML config's:
//   configs/models/x.json:5:3: key 'num_key_value_heads': expected a divisor of
//   num_attention_heads (32), got '5'
// Accepted keys (with their aliases across the Llama/Mistral/Mixtral/Qwen/DeepSeek, GPT-2/3,
// OPT and DBRX families), the documented list of ignored keys, defaults per family and every
// check are in docs/MODELS.md. Any other key is an error with a spelling suggestion.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "firmware/model/ModelConfig.h"

namespace wsc::hw {

class ModelConfigLoader {
  public:
    // A model config is a few KB; a larger file is refused before it is read.
    static constexpr uint64_t kMaxFileBytes = 1 << 20;

    // Throws ConfigError (file:line:col, key, expected/got) on any problem; a missing,
    // non-regular (device, FIFO, directory) or oversized file is refused by name.
    static firmware::model::ModelConfig loadFile(const std::string& path);
    // `name` is the file name shown in messages; the model's name is its stem.
    static firmware::model::ModelConfig loadString(const std::string& text,
                                                   const std::string& name);

    // Keys that are read, and keys accepted but ignored because they change no shape, FLOP
    // or byte count (docs/MODELS.md lists both).
    static const std::vector<std::string_view>& acceptedKeys();
    static const std::vector<std::string_view>& ignoredKeys();
    // The model_type values understood (each sets its family's defaults).
    static const std::vector<std::string>& modelTypes();
};

}  // namespace wsc::hw
