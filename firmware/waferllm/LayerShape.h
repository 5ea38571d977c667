#pragma once
// A dense decoder layer's shape (the CLI reads it from a model file; hw/ModelConfigLoader).
#include <cstdint>

namespace wsc::firmware::waferllm {

struct LayerShape {
    uint32_t hidden = 0;    // E
    uint32_t heads = 0;     // H query heads
    uint32_t kv_heads = 0;  // Hkv
    uint32_t head_dim = 0;  // D
    uint32_t ffn = 0;       // F (gated: gate and up are F wide each)
    float eps = 1e-5f;      // RMSNorm epsilon
};

}  // namespace wsc::firmware::waferllm
