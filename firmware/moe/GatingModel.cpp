#include "firmware/moe/GatingModel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "firmware/moe/SplitMix.h"

namespace wsc::firmware::moe {

namespace {
// Stream tags keep the draws of the different purposes independent.
constexpr uint64_t kPermutation = 1, kHotInit = 2, kDrift = 3, kSelect = 4;

void require(bool ok, const char* field, const std::string& expected, const std::string& got) {
    if (!ok)
        throw std::invalid_argument(
            fmt::format("gating model: {}: expected {}, got {}", field, expected, got));
}
}  // namespace

const char* gatingName(GatingKind k) {
    switch (k) {
        case GatingKind::Uniform:
            return "uniform";
        case GatingKind::Zipf:
            return "zipf";
        default:
            return "temporal";
    }
}

GatingKind gatingKind(const std::string& name) {
    for (GatingKind k : {GatingKind::Uniform, GatingKind::Zipf, GatingKind::Temporal})
        if (name == gatingName(k)) return k;
    throw std::invalid_argument(
        fmt::format("gating model: unknown kind '{}' (uniform, zipf, temporal)", name));
}

GatingModel::GatingModel(const GatingConfig& c) : c_(c) {
    require(c.experts >= 1, "experts", "at least 1", std::to_string(c.experts));
    require(c.topK >= 1 && c.topK <= c.experts, "top_k",
            fmt::format("1..{} (the experts)", c.experts), std::to_string(c.topK));
    require(c.layers >= 1, "layers", "at least 1", std::to_string(c.layers));
    require(c.tokens >= 1, "tokens", "at least 1", std::to_string(c.tokens));
    if (c.kind == GatingKind::Zipf)
        require(std::isfinite(c.zipfS) && c.zipfS >= 0, "zipf_s", "a finite number >= 0",
                fmt::format("{}", c.zipfS));
    if (c.kind == GatingKind::Temporal) {
        require(c.hotExperts >= 1 && c.hotExperts < c.experts, "hot_experts",
                fmt::format("1..{} (fewer than the experts)", c.experts - 1),
                std::to_string(c.hotExperts));
        require(c.hotProbability >= 0 && c.hotProbability <= 1, "hot_probability",
                "a number in [0, 1]", fmt::format("{}", c.hotProbability));
        require(c.driftRate >= 0 && c.driftRate <= 1, "drift_rate", "a number in [0, 1]",
                fmt::format("{}", c.driftRate));
    }
}

std::vector<uint32_t> GatingModel::popularity(uint32_t layer) const {
    std::vector<uint32_t> perm(c_.experts);
    for (uint32_t e = 0; e < c_.experts; ++e) perm[e] = e;
    SplitMix rng{c_.seed, kPermutation, layer};
    for (uint32_t i = c_.experts; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
    return perm;
}

std::vector<uint32_t> GatingModel::hotSet(uint32_t iter, uint32_t layer) const {
    if (c_.kind != GatingKind::Temporal) {
        std::vector<uint32_t> p = popularity(layer);
        p.resize(std::min<size_t>(p.size(), c_.hotExperts));
        std::sort(p.begin(), p.end());
        return p;
    }
    // Iteration 0: hotExperts distinct experts (a partial shuffle); then replay the drift.
    std::vector<uint32_t> all(c_.experts);
    for (uint32_t e = 0; e < c_.experts; ++e) all[e] = e;
    SplitMix init{c_.seed, kHotInit, layer};
    for (uint32_t i = 0; i < c_.hotExperts; ++i)
        std::swap(all[i], all[i + init.below(c_.experts - i)]);
    // all[0, hot) is the set, all[hot, experts) the rest; a replacement swaps across the boundary.
    for (uint32_t it = 1; it <= iter; ++it) {
        SplitMix rng{c_.seed, kDrift, layer, it};
        for (uint32_t i = 0; i < c_.hotExperts; ++i)
            if (rng.uniform() < c_.driftRate)
                std::swap(all[i], all[c_.hotExperts + rng.below(c_.experts - c_.hotExperts)]);
    }
    std::vector<uint32_t> hot(all.begin(), all.begin() + c_.hotExperts);
    std::sort(hot.begin(), hot.end());
    return hot;
}

std::vector<uint32_t> GatingModel::select(uint32_t iter, uint32_t layer, uint32_t token) const {
    return selectWith(
        iter, layer, token,
        c_.kind == GatingKind::Temporal ? hotSet(iter, layer) : std::vector<uint32_t>{});
}

std::vector<std::vector<uint32_t>> GatingModel::selectLayer(uint32_t iter, uint32_t layer) const {
    const std::vector<uint32_t> hot =
        c_.kind == GatingKind::Temporal ? hotSet(iter, layer) : std::vector<uint32_t>{};
    std::vector<std::vector<uint32_t>> out;
    for (uint32_t t = 0; t < c_.tokens; ++t) out.push_back(selectWith(iter, layer, t, hot));
    return out;
}

std::vector<uint32_t> GatingModel::selectWith(uint32_t iter, uint32_t layer, uint32_t token,
                                              const std::vector<uint32_t>& hot) const {
    SplitMix rng{c_.seed, kSelect, layer, iter, token};
    std::vector<uint32_t> out;
    switch (c_.kind) {
        case GatingKind::Uniform: {
            std::vector<uint32_t> pool(c_.experts);
            for (uint32_t e = 0; e < c_.experts; ++e) pool[e] = e;
            for (uint32_t i = 0; i < c_.topK; ++i) {
                std::swap(pool[i], pool[i + rng.below(c_.experts - i)]);
                out.push_back(pool[i]);
            }
            break;
        }
        case GatingKind::Zipf: {
            const std::vector<uint32_t> perm = popularity(layer);
            std::vector<double> w(c_.experts);
            double total = 0;
            for (uint32_t r = 0; r < c_.experts; ++r)
                total += w[r] = std::pow(double(r + 1), -c_.zipfS);
            for (uint32_t i = 0; i < c_.topK; ++i) {
                double u = rng.uniform() * total;
                uint32_t r = 0;
                // The last positive weight catches rounding at the top of the range.
                uint32_t last = 0;
                for (; r < c_.experts; ++r) {
                    if (w[r] <= 0) continue;
                    last = r;
                    if (u < w[r]) break;
                    u -= w[r];
                }
                if (r == c_.experts) r = last;
                out.push_back(perm[r]);
                total -= w[r];
                w[r] = 0;
            }
            break;
        }
        case GatingKind::Temporal: {
            std::vector<uint32_t> hotLeft = hot, cold;
            for (uint32_t e = 0; e < c_.experts; ++e)
                if (!std::binary_search(hot.begin(), hot.end(), e)) cold.push_back(e);
            for (uint32_t i = 0; i < c_.topK; ++i) {
                const bool fromHot = rng.uniform() < c_.hotProbability;
                std::vector<uint32_t>& pool =
                    (fromHot && !hotLeft.empty()) || cold.empty() ? hotLeft : cold;
                const uint32_t j = rng.below(uint32_t(pool.size()));
                out.push_back(pool[j]);
                pool.erase(pool.begin() + j);
            }
            break;
        }
    }
    return out;
}

}  // namespace wsc::firmware::moe
