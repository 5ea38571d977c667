#include "firmware/waferllm/KvReplacement.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "firmware/Redistribution.h"
#include "firmware/waferllm/DecodeLayerSchedule.h"
#include "firmware/waferllm/PrefillLayerSchedule.h"

namespace wsc::firmware::waferllm {

KvReplacement::KvReplacement(const Spec& s) : s_(s) {
    s.check();
}

KernelPlan KvReplacement::build(noc::Network& net) const {
    const LayerShape& L = s_.layer;
    const uint32_t X = s_.mesh_x, P = s_.p, E = L.hidden, D = L.head_dim, Hkv = L.kv_heads;
    const uint32_t G = L.heads / Hkv, Qh = s_.cols / Hkv, d = D / Qh;
    const uint32_t tm = s_.prompt / P, te = E / P;
    KvCache kv(s_.policy, s_.rows, s_.prompt);
    const std::vector<uint64_t> n = kv.stepTokens("kv re-placement", d, s_.prompt, 0);
    std::vector<uint32_t> row_of(s_.prompt);
    for (uint32_t r = 0; r < s_.rows; ++r)
        for (uint64_t t = 0; t < kv.count(r); ++t) row_of[kv.first(r) + t] = r;
    auto id = [&](uint32_t i, uint32_t j) { return i * X + j; };

    std::vector<Redistribution::Buffer> bufs;
    std::vector<Redistribution::Move> moves;
    for (uint32_t l = 0; l < s_.layers; ++l) {
        const std::string lp = s_.layers > 1 ? fmt::format("L{}.", l) : std::string();
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                bufs.push_back({id(i, j), lp + "k", tm * te});
                bufs.push_back({id(i, j), lp + "v", tm * te});
            }
        for (uint32_t r = 0; r < s_.rows; ++r)
            for (uint32_t c = 0; c < s_.cols; ++c) {
                bufs.push_back({id(r, c), lp + "attn.K", uint32_t(n[r]) * d});
                bufs.push_back({id(r, c), lp + "attn.V", uint32_t(n[r]) * d});
            }
        for (uint32_t t = 0; t < s_.prompt; ++t) {
            const uint32_t r = row_of[t];
            for (uint32_t g = 0; g < Hkv; ++g)
                for (uint32_t z = 0; z < D;) {
                    // A run of features that stays on one prefill column and one decode column.
                    const uint32_t f = g * G * D + z;
                    const uint32_t run = std::min(te - f % te, d - z % d);
                    const uint32_t src = id(t / tm, f / te), dst = id(r, g * Qh + z / d);
                    const uint32_t so = (t % tm) * te + f % te,
                                   dof = uint32_t(t - kv.first(r)) * d + z % d;
                    moves.push_back({src, lp + "k", so, dst, lp + "attn.K", dof, run});
                    moves.push_back({src, lp + "v", so, dst, lp + "attn.V", dof, run});
                    z += run;
                }
        }
    }
    KernelPlan plan = Redistribution(X, s_.mesh_y, bufs, moves).build(net);
    plan.algo = "kv-replace";
    plan.notes = fmt::format(
                     "the prompt's k and v of {} layer(s) from the prefill's {}x{} layout "
                     "to the decode's {}x{} ({}): ",
                     s_.layers, P, P, s_.rows, s_.cols, KvCache::name(s_.policy)) +
                 plan.notes;

    if (s_.functional) {
        std::unique_ptr<DecodeModelData> own;
        if (!s_.data) own = std::make_unique<DecodeModelData>(L, s_.layers, 0, s_.seed);
        const DecodeModelData& data = s_.data ? *s_.data : *own;
        const DecodeModelData::Prefill ref =
            data.prefillReference(data.promptInput(s_.prompt), s_.prompt);
        const uint32_t KV = Hkv * D;
        for (uint32_t l = 0; l < s_.layers; ++l) {
            const std::string lp = s_.layers > 1 ? fmt::format("L{}.", l) : std::string();
            // The prefill's E-wide k, v: query head h's columns hold KV head h / G.
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < P; ++j) {
                    KernelPlan::Values kb{id(i, j), lp + "k", {}}, vb{id(i, j), lp + "v", {}};
                    for (uint32_t r = 0; r < tm; ++r)
                        for (uint32_t c = 0; c < te; ++c) {
                            const uint32_t f = j * te + c, g = f / D / G, z = f % D;
                            const size_t at = size_t(i * tm + r) * KV + g * D + z;
                            kb.v.push_back(float(ref.k[l][at])),
                                vb.v.push_back(float(ref.v[l][at]));
                        }
                    plan.preset.push_back(std::move(kb)), plan.preset.push_back(std::move(vb));
                }
            for (uint32_t r = 0; r < s_.rows; ++r)
                for (uint32_t c = 0; c < s_.cols; ++c) {
                    const uint32_t g = c / Qh, s = c % Qh;
                    KernelPlan::Values kb{id(r, c), lp + "attn.K", {}},
                        vb{id(r, c), lp + "attn.V", {}};
                    for (uint64_t t = 0; t < kv.count(r); ++t)
                        for (uint32_t z = 0; z < d; ++z) {
                            const size_t at = size_t(kv.first(r) + t) * KV + g * D + s * d + z;
                            kb.v.push_back(float(ref.k[l][at])),
                                vb.v.push_back(float(ref.v[l][at]));
                        }
                    plan.expect.push_back(std::move(kb)), plan.expect.push_back(std::move(vb));
                }
        }
        plan.tolerance = 0;  // copies: exact
    }
    return plan;
}

}  // namespace wsc::firmware::waferllm
