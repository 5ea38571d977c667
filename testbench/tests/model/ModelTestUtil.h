#pragma once
// Shared helpers of the model tests: the shipped model files by name, and sums over a block's
// operators.
#include <cstdint>
#include <functional>
#include <string>

#include "firmware/model/LayerGraph.h"
#include "hw/ModelConfigLoader.h"

namespace wsc::test {

inline std::string modelPath(const std::string& name) {
    return std::string(WSC_SOURCE_DIR) + "/configs/models/" + name + ".json";
}

inline firmware::model::ModelConfig loadModel(const std::string& name) {
    return hw::ModelConfigLoader::loadFile(modelPath(name));
}

inline firmware::model::GraphShape shape(uint64_t sequences, uint64_t seq_len) {
    firmware::model::GraphShape s;
    s.sequences = sequences;
    s.seq_len = seq_len;
    return s;
}

// Sum of `f` over the operators of every block, each block counted `repeat` times.
inline uint64_t sumOps(const firmware::model::LayerGraph& g,
                       const std::function<uint64_t(const firmware::model::Operator&)>& f) {
    uint64_t n = 0;
    for (const auto& b : g.blocks())
        for (const auto& o : b.ops) n += b.repeat * f(o);
    return n;
}

}  // namespace wsc::test
