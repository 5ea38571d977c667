#pragma once
// The values of a functional decode: every layer's weights (drawn from a seed), the KV cache of
// the tokens so far, the next step's input, and the plain reference step in double precision.
// DecodeLayerSchedule lays them onto the cores in its pre-placed orders; a caller that keeps one
// object across steps (advance()) decodes a sequence whose cache holds what earlier steps
// computed, as a real decode does.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "firmware/waferllm/LayerShape.h"

namespace wsc::firmware::waferllm {

class DecodeModelData {
  public:
    struct Mat {  // row-major
        uint32_t rows = 0, cols = 0;
        std::vector<float> v;
        float at(uint32_t r, uint32_t c) const { return v[size_t(r) * cols + c]; }
    };
    struct Layer {
        std::vector<float> g1, g2;       // RMSNorm scales
        Mat wq, wk, wv, wo, wg, wu, wd;  // wq has 1 / sqrt(D) folded in
        // Per KV head, [tokens x D], token order.
        std::vector<std::vector<float>> kc, vc;
    };
    // `tokens` random cache entries per layer (the prompt, and any decoded before) and a random
    // input; weights scaled by 1 / sqrt(fan-in) so activations stay O(1) through the layers.
    DecodeModelData(const LayerShape& shape, uint32_t layers, uint64_t tokens, uint64_t seed);

    const LayerShape& shape() const { return shape_; }
    uint32_t layers() const { return static_cast<uint32_t>(layers_.size()); }
    const Layer& layer(uint32_t l) const { return layers_.at(l); }
    uint64_t tokens() const { return tokens_; }
    float cacheK(uint32_t l, uint32_t kv_head, uint64_t token, uint32_t feature) const {
        return layers_[l].kc[kv_head][token * shape_.head_dim + feature];
    }
    float cacheV(uint32_t l, uint32_t kv_head, uint64_t token, uint32_t feature) const {
        return layers_[l].vc[kv_head][token * shape_.head_dim + feature];
    }
    const std::vector<float>& input() const { return x_; }

    // One decode step of the plain model on input(): the output, and per layer the new token's
    // k and v ([Hkv x D]).
    struct Step {
        std::vector<double> out;
        std::vector<std::vector<double>> k, v;
    };
    Step reference() const;
    // The step's k and v join every layer's cache; the next input is drawn.
    void advance(const Step& s);

    // A prompt of `tokens` rows [tokens x E], drawn from the seed (its own stream).
    std::vector<float> promptInput(uint32_t tokens) const;
    // The plain prefill of `x` ([tokens x E], row-major) through every layer, causal attention
    // over the prompt (the cache is not read): the output [tokens x E] and per layer the
    // prompt's k and v ([tokens x Hkv D], token-major).
    struct Prefill {
        uint32_t tokens = 0;
        std::vector<double> out;
        std::vector<std::vector<double>> k, v;
    };
    Prefill prefillReference(const std::vector<float>& x, uint32_t tokens) const;
    // The prompt's k and v become every layer's cache (which must be empty): decode steps then
    // continue the prompt, as after a real prefill.
    void setPrompt(const Prefill& p);

  private:
    LayerShape shape_;
    std::vector<Layer> layers_;
    uint64_t tokens_;
    std::vector<float> x_;
    uint64_t draws_ = 0;  // inputs drawn so far (seeds the next one)
    uint64_t seed_;
};

}  // namespace wsc::firmware::waferllm
