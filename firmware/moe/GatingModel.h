#pragma once
// A synthetic MoE router: for every (iteration, layer, token) the top-k experts, deterministic
// for a seed (docs/MOE.md "Gating models"). Three popularity models:
//   - uniform: k distinct experts, each equally likely (MoEntwine Sec. VI-B's balanced gating);
//   - zipf: expert of popularity rank r (0-based, a per-layer permutation of the experts) has
//     weight 1 / (r + 1)^s; k distinct experts drawn by weight without replacement;
//   - temporal: a per-layer hot set of `hotExperts` experts; each of a token's k picks comes from
//     the hot set with probability hotProbability, else uniformly from the other experts. Between
//     iteration i and i + 1 each hot expert is independently replaced, with probability
//     driftRate, by a uniformly chosen expert outside the set: on average driftRate * hotExperts
//     experts change per iteration, so the set's expected lifetime per member is 1 / driftRate
//     iterations (MoEntwine Sec. V-B: load ratios that are stable but drift slowly).
#include <cstdint>
#include <string>
#include <vector>

namespace wsc::firmware::moe {

enum class GatingKind { Uniform, Zipf, Temporal };
const char* gatingName(GatingKind k);
GatingKind gatingKind(const std::string& name);  // throws std::invalid_argument listing names

struct GatingConfig {
    GatingKind kind = GatingKind::Uniform;
    uint32_t experts = 16;
    uint32_t topK = 2;
    uint32_t layers = 1;
    uint32_t tokens = 16;  // per iteration and layer
    uint64_t seed = 1;
    double zipfS = 1.0;
    uint32_t hotExperts = 4;
    double hotProbability = 0.8;
    double driftRate = 0.1;
};

class GatingModel {
  public:
    // Throws std::invalid_argument naming the field for an impossible config (topK > experts, a
    // probability outside [0, 1], hotExperts not in [topK... experts), ...).
    explicit GatingModel(const GatingConfig& c);
    const GatingConfig& config() const { return c_; }

    // The k distinct experts of one token, in the order they were drawn.
    std::vector<uint32_t> select(uint32_t iter, uint32_t layer, uint32_t token) const;
    // All tokens of one (iteration, layer).
    std::vector<std::vector<uint32_t>> selectLayer(uint32_t iter, uint32_t layer) const;
    // Temporal: the hot set at an iteration (sorted); zipf: the hotExperts most popular experts.
    std::vector<uint32_t> hotSet(uint32_t iter, uint32_t layer) const;
    // Zipf: experts of a layer by popularity rank (rank 0 first).
    std::vector<uint32_t> popularity(uint32_t layer) const;

  private:
    std::vector<uint32_t> selectWith(uint32_t iter, uint32_t layer, uint32_t token,
                                     const std::vector<uint32_t>& hot) const;
    GatingConfig c_;
};

}  // namespace wsc::firmware::moe
