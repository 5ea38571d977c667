#include "firmware/waferllm/WeightReplacement.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>

#include "firmware/Redistribution.h"
#include "firmware/RingOrder.h"
#include "firmware/waferllm/DecodeLayerSchedule.h"
#include "firmware/waferllm/PrefillLayerSchedule.h"

namespace wsc::firmware::waferllm {

WeightReplacement::WeightReplacement(const Spec& s) : s_(s) {
    s.check();
}

KernelPlan WeightReplacement::build(noc::Network& net) const {
    const LayerShape& L = s_.layer;
    const uint32_t X = s_.mesh_x, P = s_.p, E = L.hidden, F = L.ffn, D = L.head_dim;
    const uint32_t Hkv = L.kv_heads, G = L.heads / Hkv;
    const uint32_t te = E / P, tf = F / P;
    const uint32_t R = s_.rows, Q = s_.cols, Qh = Q / Hkv, d = D / Qh;
    const uint32_t e = (E + R - 1) / R, f = (F + Q - 1) / Q, proj = (G + 2) * d;
    const RingOrder ring(RingOrder::Kind::Interleave, P);
    auto id = [&](uint32_t i, uint32_t j) { return i * X + j; };
    // The prefill core holding K-block kb of column block j: ring.at(pos(i) + pos(j)) = kb.
    auto rowOf = [&](uint32_t kb, uint32_t j) {
        return ring.at(uint64_t(ring.position(kb)) + P - ring.position(j));
    };

    std::vector<Redistribution::Buffer> bufs;
    std::vector<Redistribution::Move> moves;
    // A source element: core, buffer, offset.
    struct Src {
        uint32_t core;
        const std::string* buf;
        uint32_t off;
    };
    for (uint32_t l = 0; l < s_.layers; ++l) {
        const std::string lp = s_.layers > 1 ? fmt::format("L{}.", l) : std::string();
        const std::string pq = "pre." + lp + "qkv.B0", po = "pre." + lp + "o.B0",
                          pu = "pre." + lp + "up.B0", pd = "pre." + lp + "down.B0",
                          pg1 = "pre." + lp + "n1.g", pg2 = "pre." + lp + "n2.g";
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                bufs.push_back({id(i, j), pq, te * 3 * te});
                bufs.push_back({id(i, j), po, te * te});
                bufs.push_back({id(i, j), pu, te * 2 * tf});
                bufs.push_back({id(i, j), pd, tf * te});
                bufs.push_back({id(i, j), pg1, te});
                bufs.push_back({id(i, j), pg2, te});
            }
        // Where the prefill keeps each weight element (K and V: query head g G's copy).
        auto qkvSrc = [&](uint32_t row, uint32_t part, uint32_t col) {
            const uint32_t j = col / te;
            return Src{id(rowOf(row / te, j), j), &pq, (row % te) * 3 * te + part * te + col % te};
        };
        auto kvCol = [&](uint32_t kvcol) { return kvcol / D * G * D + kvcol % D; };
        auto oSrc = [&](uint32_t row, uint32_t col) {
            const uint32_t j = col / te;
            return Src{id(rowOf(row / te, j), j), &po, (row % te) * te + col % te};
        };
        auto upSrc = [&](uint32_t row, uint32_t part, uint32_t col) {
            const uint32_t j = col / tf;
            return Src{id(rowOf(row / te, j), j), &pu, (row % te) * 2 * tf + part * tf + col % tf};
        };
        auto downSrc = [&](uint32_t row, uint32_t col) {
            const uint32_t j = col / te;
            return Src{id(rowOf(row / tf, j), j), &pd, (row % tf) * te + col % te};
        };

        // Every destination element (or nothing for a padding element), merged into runs.
        auto emit = [&](uint32_t core, const std::string& name, uint32_t n,
                        const std::function<bool(uint32_t, Src&)>& src) {
            bufs.push_back({core, name, n});
            bool open = false;
            Redistribution::Move run;
            for (uint32_t k = 0; k < n; ++k) {
                Src s{};
                const bool has = src(k, s);
                if (open && has && s.core == run.src_core && *s.buf == run.src_buf &&
                    s.off == run.src_off + run.elems && k == run.dst_off + run.elems) {
                    ++run.elems;
                    continue;
                }
                if (open) moves.push_back(run), open = false;
                if (has) run = {s.core, *s.buf, s.off, core, name, k, 1}, open = true;
            }
            if (open) moves.push_back(run);
        };
        for (uint32_t i = 0; i < R; ++i)
            for (uint32_t j = 0; j < Q; ++j) {
                const uint32_t c = id(i, j), h = j / Qh, s = j % Qh;
                const uint32_t gi = i % P;  // the prefill row whose copy of the scales is taken
                for (const auto& [name, pre] :
                     {std::pair<std::string, const std::string*>{"n1.g", &pg1}, {"n2.g", &pg2}})
                    emit(c, "dec." + lp + name, e, [&, pre = pre](uint32_t k, Src& out) {
                        const uint32_t feat = i * e + k;
                        if (feat >= E) return false;
                        out = {id(gi, feat / te), pre, feat % te};
                        return true;
                    });
                emit(c, "dec." + lp + "qkv.W", e * proj, [&](uint32_t k, Src& out) {
                    const uint32_t row = i * e + k / proj, x = k % proj, part = x / d,
                                   at = s * d + x % d;
                    if (row >= E) return false;
                    out = part < G    ? qkvSrc(row, 0, (h * G + part) * D + at)
                          : part == G ? qkvSrc(row, 1, kvCol(h * D + at))
                                      : qkvSrc(row, 2, kvCol(h * D + at));
                    return true;
                });
                emit(c, "dec." + lp + "up.W", e * 2 * f, [&](uint32_t k, Src& out) {
                    const uint32_t row = i * e + k / (2 * f), x = k % (2 * f), col = j * f + x % f;
                    if (row >= E || col >= F) return false;
                    out = upSrc(row, x < f ? 0 : 1, col);
                    return true;
                });
                emit(c, "dec." + lp + "o.W", G * d * e, [&](uint32_t k, Src& out) {
                    const uint32_t r = k / e, col = i * e + k % e;
                    if (col >= E) return false;
                    out = oSrc((h * G + r / d) * D + s * d + r % d, col);
                    return true;
                });
                emit(c, "dec." + lp + "down.W", f * e, [&](uint32_t k, Src& out) {
                    const uint32_t row = j * f + k / e, col = i * e + k % e;
                    if (row >= F || col >= E) return false;
                    out = downSrc(row, col);
                    return true;
                });
            }
    }
    KernelPlan plan = Redistribution(X, s_.mesh_y, bufs, moves).build(net);
    plan.algo = "weight-replace";
    plan.notes = fmt::format(
                     "the weights of {} layer(s) from the prefill's {}x{} placement to the "
                     "decode's {}x{}: ",
                     s_.layers, P, P, R, Q) +
                 plan.notes;

    if (s_.functional) {
        // The values each layout's own functional plan loads, on scratch networks.
        // One set of weights for both (drawn with the prompt's cache, as the decode needs).
        std::unique_ptr<DecodeModelData> own;
        Spec one = s_;
        if (!one.data)
            own = std::make_unique<DecodeModelData>(L, s_.layers, s_.prompt, s_.seed),
            one.data = own.get();
        // The destinations: what the decode's own functional plan loads (a scratch network).
        noc::Network nd(net.params());
        const KernelPlan dec = DecodeLayerSchedule(one.decode()).build(nd);
        auto ends = [](const std::string& n, const char* tail) {
            const std::string t(tail);
            return n.size() >= t.size() && n.compare(n.size() - t.size(), t.size(), t) == 0;
        };
        // The sources, in the prefill's placement (as PrefillLayerSchedule fills it).
        auto kvOf = [&](uint32_t f) { return f / D / G * D + f % D; };  // E-wide K, V column
        for (uint32_t l = 0; l < s_.layers; ++l) {
            const std::string lp = s_.layers > 1 ? fmt::format("L{}.", l) : std::string();
            const DecodeModelData::Layer& w = one.data->layer(l);
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < P; ++j) {
                    const uint32_t kb = ring.at(uint64_t(ring.position(i)) + ring.position(j));
                    KernelPlan::Values q{id(i, j), "pre." + lp + "qkv.B0", {}},
                        o{id(i, j), "pre." + lp + "o.B0", {}},
                        u{id(i, j), "pre." + lp + "up.B0", {}},
                        dn{id(i, j), "pre." + lp + "down.B0", {}},
                        g1{id(i, j), "pre." + lp + "n1.g", {}},
                        g2{id(i, j), "pre." + lp + "n2.g", {}};
                    for (uint32_t r = 0; r < te; ++r) {
                        const uint32_t row = kb * te + r;
                        for (uint32_t c = 0; c < 3 * te; ++c) {
                            const uint32_t part = c / te, col = j * te + c % te;
                            q.v.push_back(part == 0 ? w.wq.at(row, col)
                                                    : (part == 1 ? w.wk : w.wv).at(row, kvOf(col)));
                        }
                        for (uint32_t c = 0; c < te; ++c) o.v.push_back(w.wo.at(row, j * te + c));
                        for (uint32_t c = 0; c < 2 * tf; ++c) {
                            const uint32_t col = j * tf + c % tf;
                            u.v.push_back((c < tf ? w.wg : w.wu).at(row, col));
                        }
                    }
                    for (uint32_t r = 0; r < tf; ++r)
                        for (uint32_t c = 0; c < te; ++c)
                            dn.v.push_back(w.wd.at(kb * tf + r, j * te + c));
                    for (uint32_t c = 0; c < te; ++c)
                        g1.v.push_back(w.g1[j * te + c]), g2.v.push_back(w.g2[j * te + c]);
                    for (auto* v : {&q, &o, &u, &dn, &g1, &g2})
                        plan.preset.push_back(std::move(*v));
                }
        }
        for (const auto& v : dec.preset)
            if (ends(v.buffer, "qkv.W") || ends(v.buffer, "o.W") || ends(v.buffer, "up.W") ||
                ends(v.buffer, "down.W") || ends(v.buffer, "n1.g") || ends(v.buffer, "n2.g"))
                plan.expect.push_back({v.core, "dec." + v.buffer, v.v});
        plan.tolerance = 0;  // copies: exact
    }
    return plan;
}

}  // namespace wsc::firmware::waferllm
