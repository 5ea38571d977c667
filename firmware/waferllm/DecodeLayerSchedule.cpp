#include "firmware/waferllm/DecodeLayerSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>

#include "firmware/CoreBlock.h"
#include "firmware/FirmwareComposer.h"
#include "firmware/GemvSchedule.h"
#include "firmware/LineBroadcast.h"
#include "firmware/ReduceTree.h"
#include "firmware/RoutePlanner.h"
#include "firmware/RouteReuseScope.h"
#include "firmware/TreeReduce.h"
#include "firmware/VectorOp.h"
#include "firmware/waferllm/DecodeAttentionSchedule.h"

namespace wsc::firmware::waferllm {

namespace {

// Elements [at, at + n) of v, zero past its end (a padded block).
template <class T>
std::vector<float> slice(const std::vector<T>& v, size_t at, size_t n) {
    std::vector<float> out(n, 0.0f);
    for (size_t k = 0; k < n && at + k < v.size(); ++k) out[k] = float(v[at + k]);
    return out;
}

}  // namespace

DecodeLayerSchedule::DecodeLayerSchedule(const Spec& s) : s_(s) {
    const LayerShape& L = s.layer;
    if (s.rows == 0 || s.cols == 0 || s.rows > s.mesh_y || s.cols > s.mesh_x)
        throw std::invalid_argument(
            fmt::format("decode layer: a {}x{} core block does not fit "
                        "the {}x{} mesh",
                        s.rows, s.cols, s.mesh_y, s.mesh_x));
    if (!L.hidden || !L.heads || !L.kv_heads || !L.head_dim || !L.ffn)
        throw std::invalid_argument(
            "decode layer: hidden, heads, kv_heads, head_dim and ffn must all be > 0");
    if (L.heads % L.kv_heads)
        throw std::invalid_argument(fmt::format(
            "decode layer: {} query heads do not group over {} KV heads", L.heads, L.kv_heads));
    if (s.cols % L.kv_heads)
        throw std::invalid_argument(fmt::format(
            "decode layer: the block's {} columns do not split over the {} KV heads (the heads "
            "sit side by side: Q must be a multiple of {} whose share of columns divides "
            "head_dim {})",
            s.cols, L.kv_heads, L.kv_heads, L.head_dim));
    qh_ = s.cols / L.kv_heads;
    if (L.head_dim % qh_)
        throw std::invalid_argument(
            fmt::format("decode layer: head_dim {} does not split over the {} columns of a KV head "
                        "({} columns / {} KV heads)",
                        L.head_dim, qh_, s.cols, L.kv_heads));
    d_ = L.head_dim / qh_, g_ = L.heads / L.kv_heads;
    // Every shape below is a 32-bit count (instructions and buffers): check them in 64 bits.
    const uint64_t e = (uint64_t(L.hidden) + s.rows - 1) / s.rows,
                   f = (uint64_t(L.ffn) + s.cols - 1) / s.cols, proj = (uint64_t(g_) + 2) * d_;
    for (const auto& [v, what] : {std::pair<uint64_t, const char*>{e * s.rows, "padded hidden"},
                                  {2 * f * s.cols, "2 x padded ffn"},
                                  {uint64_t(L.heads) * L.head_dim, "heads x head_dim"},
                                  {proj * s.cols, "projection outputs"},
                                  {e * proj, "a core's q/k/v weights"},
                                  {e * 2 * f, "a core's gate/up weights"}})
        if (v > UINT32_MAX)
            throw std::invalid_argument(
                fmt::format("decode layer: {} = {} does not fit 32 bits", what, v));
    if (s.layers == 0) throw std::invalid_argument("decode layer: layers must be >= 1");
    if (s.tree_k == 0) throw std::invalid_argument("decode layer: the tree needs K >= 1");
    if (s.prompt == 0) throw std::invalid_argument("decode layer: the prompt needs a token");
}

KernelPlan DecodeLayerSchedule::build(noc::Network& net) const {
    const uint32_t P = s_.rows, Q = s_.cols, X = s_.mesh_x, Y = s_.mesh_y;
    const uint32_t d = d_, G = g_, Qh = qh_;
    const LayerShape& L = s_.layer;
    const uint32_t E = L.hidden, D = L.head_dim, F = L.ffn, Hkv = L.kv_heads, H = L.heads;
    // Residual features per core and FFN features per column; a shape that does not split
    // evenly is zero-padded (padded weights are zero, so the values are the model's; the padded
    // elements cost what they cost, and the norms divide by the true E).
    const uint32_t e = (E + P - 1) / P, f = (F + Q - 1) / Q;
    const uint32_t Ep = e * P, Fp = f * Q;
    const uint32_t proj = (G + 2) * d;  // projection outputs per column: G q slices, k, v
    const uint64_t token = s_.prompt + s_.generated;  // the new token's index

    const RouteReuseScope reuse(net);  // shared routes for this build only
    KernelPlan plan;
    plan.algo = fmt::format("decode-{}", KvCache::name(s_.policy));
    plan.fw = Firmware(X * Y);
    plan.steps = s_.layers;
    RoutePlanner rp(net, X);
    TreeReduce tr(rp);
    auto id = [&](uint32_t i, uint32_t j) { return i * X + j; };
    auto prog = [&](uint32_t i, uint32_t j) -> Program& { return plan.fw.program(id(i, j)); };
    auto buf = [&](uint32_t i, uint32_t j, const std::string& name) {
        const uint16_t b = prog(i, j).findBuffer(name);
        if (b == kNoBuf) throw std::logic_error("decode layer: no buffer " + name);
        return b;
    };
    const ReduceTree col_tree = ReduceTree::kTree(P, s_.tree_k);
    const uint32_t root = col_tree.root();                          // column trees' root row
    const uint32_t rootc = ReduceTree::kTree(Q, s_.tree_k).root();  // row trees' root column

    KvCache kv(s_.policy, P, s_.prompt);
    kv.advance(s_.generated);
    // Tokens a row attends over this step (the last: + the new one).
    const std::vector<uint64_t> n = kv.stepTokens(
        fmt::format("decode layer ({})", KvCache::name(s_.policy)), d, s_.prompt, s_.generated);

    std::vector<std::vector<uint32_t>> col(Q);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < Q; ++j) {
            plan.cores.push_back(id(i, j));
            col[j].push_back(id(i, j));
            prog(i, j).addBuffer("x", e);
        }
    std::vector<LineBroadcast> colbc;
    for (uint32_t j = 0; j < Q; ++j) colbc.emplace_back(rp, col[j], root);

    CriticalPath worst;
    uint32_t direct = 0, relayed = 0, rejected = 0;
    auto account = [&](const KernelPlan& k) {
        rp.keepWorst(worst, k.step_path);
        direct += k.direct_routes, relayed += k.relayed_paths, rejected += k.rejected_multicasts;
    };

    // h = x * rsqrt(mean(x^2) + eps) * g: the sum of squares is allreduced down each column.
    auto norm = [&](const std::string& p) {
        std::vector<std::vector<TreeReduce::Buffers>> bufs(Q);
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < Q; ++j) {
                Program& g = prog(i, j);
                g.addBuffer(p + "g", e), g.addBuffer(p + "h", e);
                const uint16_t ss = g.addBuffer(p + "ss", 1);
                bufs[j].push_back({ss, g.addBuffer(p + "ss0", 1), g.addBuffer(p + "ss1", 1)});
                g.add(vectorOp(Opcode::VSqSum, buf(i, j, "x"), kNoBuf, ss, e));
            }
        for (uint32_t j = 0; j < Q; ++j) {
            tr.emit(plan.fw, col_tree, col[j], bufs[j], 1);
            if (P > 1)
                for (uint32_t i = 0; i < P; ++i)
                    colbc[j].emit(prog(i, j), i, bufs[j][i].part, bufs[j][i].part, 4);
        }
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < Q; ++j) {
                Program& g = prog(i, j);
                const uint16_t ss = bufs[j][i].part, x = buf(i, j, "x"), h = buf(i, j, p + "h");
                g.add(vectorOp(Opcode::VScale, ss, kNoBuf, ss, 1, 1.0f / float(E)));
                g.add(vectorOp(Opcode::VRsqrt, ss, kNoBuf, ss, 1, L.eps));
                g.add(vectorOp(Opcode::VBMul, x, ss, h, e));
                g.add(vectorOp(Opcode::VMul, h, buf(i, j, p + "g"), h, e));
            }
    };
    // A GEMV with its result multicast back; transposed: K over the columns, the rows' trees.
    // Returns the buffer name that holds the result on core (i, j).
    auto gemv = [&](const std::string& p, bool transposed, uint32_t k, uint32_t nn,
                    const std::string& in) {
        const uint32_t rows = transposed ? Q : P, cols = transposed ? P : Q;
        GemvSchedule gs(GemvSchedule::Allreduce::KTree, X, Y, rows, cols, k, nn, s_.tree_k, true,
                        CoreBlock{0, 0, transposed});
        const KernelPlan g = gs.build(net);
        account(g);
        FirmwareComposer::append(plan.fw, g.fw, p, [&](uint32_t, const std::string& name) {
            return name == "x" ? in : std::string();
        });
    };
    auto gemvOut = [&](const std::string& p, bool transposed, uint32_t i, uint32_t j) {
        const bool at_root = transposed ? j == rootc : i == root;
        return p + (at_root ? "y" : "yb");
    };
    auto add = [&](uint32_t i, uint32_t j, const std::string& other) {
        const uint16_t x = buf(i, j, "x");
        prog(i, j).add(vectorOp(Opcode::VAdd, x, buf(i, j, other), x, e));
    };

    DecodeAttentionSchedule::Spec as;
    as.mesh_x = X, as.mesh_y = Y, as.rows = P, as.cols = Qh, as.head_dim = D, as.q_heads = G;
    as.policy = s_.policy, as.prompt = s_.prompt, as.generated = s_.generated;
    as.tree_k = s_.tree_k;
    const DecodeAttentionSchedule attn_shape(as);

    for (uint32_t l = 0; l < s_.layers; ++l) {
        const std::string lp = s_.layers > 1 ? fmt::format("L{}.", l) : std::string();
        plan.beginPhase("norm1");
        norm(lp + "n1.");
        plan.beginPhase("qkv");
        gemv(lp + "qkv.", false, Ep, Q * proj, lp + "n1.h");
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < Q; ++j) {
                Program& g = prog(i, j);
                const uint16_t y = buf(i, j, gemvOut(lp + "qkv.", false, i, j));
                for (uint32_t h = 0; h < G; ++h)
                    g.addView(fmt::format("{}q{}", lp, h), y, h * d, d);
                const uint16_t kn = g.addView(lp + "k", y, G * d, d);
                const uint16_t vn = g.addView(lp + "v", y, (G + 1) * d, d);
                // The cache, and the new token's slot on the last row: the projection's k, v.
                const uint16_t K = g.addBuffer(lp + "attn.K", uint32_t(n[i]) * d);
                const uint16_t V = g.addBuffer(lp + "attn.V", uint32_t(n[i]) * d);
                if (i + 1 == P) {
                    const uint32_t last = uint32_t(n[i] - 1) * d;
                    g.add(vectorOp(Opcode::VCopy, kn, kNoBuf,
                                   g.addView(lp + "attn.Knew", K, last, d), d));
                    g.add(vectorOp(Opcode::VCopy, vn, kNoBuf,
                                   g.addView(lp + "attn.Vnew", V, last, d), d));
                }
                const uint16_t oin = g.addBuffer(lp + "o_in", G * d);
                for (uint32_t h = 0; h < G; ++h)
                    g.addView(fmt::format("{}o_in.{}", lp, h), oin, h * d, d);
            }
        plan.beginPhase("attention");
        for (uint32_t h = 0; h < Hkv; ++h) {
            DecodeAttentionSchedule::Spec a = as;
            a.col0 = h * Qh;
            const KernelPlan ap = DecodeAttentionSchedule(a).build(net);
            account(ap);
            FirmwareComposer::append(
                plan.fw, ap.fw, lp + "attn.", [&](uint32_t, const std::string& name) {
                    if (name == "K" || name == "V") return lp + "attn." + name;
                    if (name.size() > 1 && name[0] == 'q' && std::isdigit(name[1]))
                        return lp + name;
                    if (name.compare(0, 3, "out") == 0) return lp + "o_in." + name.substr(3);
                    return std::string();
                });
        }
        plan.beginPhase("o");
        // The heads' outputs (on the middle row) go down their columns: the O projection's
        // input, K-split over the columns.
        if (P > 1)
            for (uint32_t j = 0; j < Q; ++j)
                for (uint32_t i = 0; i < P; ++i) {
                    const uint16_t oin = buf(i, j, lp + "o_in");
                    colbc[j].emit(prog(i, j), i, oin, oin, uint64_t(G) * d * 4);
                }
        gemv(lp + "o.", true, H * D, Ep, lp + "o_in");
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < Q; ++j) add(i, j, gemvOut(lp + "o.", true, i, j));
        plan.beginPhase("norm2");
        norm(lp + "n2.");
        plan.beginPhase("up");
        gemv(lp + "up.", false, Ep, 2 * Fp, lp + "n2.h");
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < Q; ++j) {
                Program& g = prog(i, j);
                const uint16_t y = buf(i, j, gemvOut(lp + "up.", false, i, j));
                const uint16_t gate = g.addView(lp + "gate", y, 0, f);
                const uint16_t up = g.addView(lp + "upv", y, f, f);
                const uint16_t act = g.addBuffer(lp + "act", f);
                g.add(vectorOp(Opcode::VSilu, gate, kNoBuf, act, f));
                g.add(vectorOp(Opcode::VMul, act, up, act, f));
            }
        plan.beginPhase("down");
        gemv(lp + "down.", true, Fp, Ep, lp + "act");
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < Q; ++j) add(i, j, gemvOut(lp + "down.", true, i, j));
    }

    // What the step holds: every buffer plus the attention's reserve for early arrivals.
    if (s_.sram_bytes)
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < Q; ++j) {
                uint64_t bufs = 0, cache = 0;
                for (const auto& b : prog(i, j).buffers()) {
                    bufs += b.allocBytes();
                    if (b.name.size() >= 6 &&
                        (b.name.compare(b.name.size() - 6, 6, "attn.K") == 0 ||
                         b.name.compare(b.name.size() - 6, 6, "attn.V") == 0))
                        cache += b.allocBytes();
                }
                const uint64_t all = bufs + attn_shape.rxReserve(n[i]);
                if (all > s_.sram_bytes)
                    throw std::invalid_argument(fmt::format(
                        "decode layer ({}): core {} (row {}, column {}) needs {} B of SRAM at "
                        "decode step {} (token {}): {} B of KV cache for the {} tokens its row "
                        "holds in {} layer(s), {} B of weights and other buffers and {} B kept "
                        "for early arrivals, over its {} B",
                        KvCache::name(s_.policy), id(i, j), i, j, all, s_.generated + 1, token,
                        cache, n[i], s_.layers, bufs - cache, attn_shape.rxReserve(n[i]),
                        s_.sram_bytes));
            }

    const uint64_t T = token + 1;
    plan.useful_macs =
        uint64_t(s_.layers) *
        (uint64_t(E) * (H + 2 * Hkv) * D + uint64_t(H) * D * E + 3ull * E * F + 2ull * H * T * D);
    plan.step_path = worst, plan.total_path = worst;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = direct, plan.relayed_paths = relayed, plan.rejected_multicasts = rejected;
    uint64_t lo = n[0], hi = n[0];
    for (uint64_t x : n) lo = std::min(lo, x), hi = std::max(hi, x);
    plan.notes = fmt::format(
        "{} layer(s) of E {}, {} query / {} KV heads of {}, FFN {}: KV heads side by side, {} "
        "columns each ({} features of a head per core); KV cache {}: {} tokens over {} rows, "
        "{}..{} per row; {} route(s) shared between operations",
        s_.layers, E, H, Hkv, D, F, Qh, d, KvCache::name(s_.policy), T, P, lo, hi,
        net.reusedRoutes());

    if (s_.functional) {
        std::unique_ptr<DecodeModelData> own;
        if (!s_.data) own = std::make_unique<DecodeModelData>(L, s_.layers, token, s_.seed);
        const DecodeModelData& data = s_.data ? *s_.data : *own;
        if (data.tokens() != token || data.layers() != s_.layers)
            throw std::invalid_argument(fmt::format(
                "decode layer: the model data holds {} layer(s) with {} cached tokens; the step "
                "needs {} with {}",
                data.layers(), data.tokens(), s_.layers, token));
        const std::vector<float>& x = data.input();
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < Q; ++j)
                plan.preset.push_back({id(i, j), "x", slice(x, i * e, e)});
        const DecodeModelData::Step ref = data.reference();
        for (uint32_t l = 0; l < s_.layers; ++l) {
            const std::string lp = s_.layers > 1 ? fmt::format("L{}.", l) : std::string();
            const DecodeModelData::Layer& w = data.layer(l);
            // The cores' blocks, in the pre-placed orders the header describes.
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < Q; ++j) {
                    const uint32_t c = id(i, j), h = j / Qh, s = j % Qh;
                    plan.preset.push_back({c, lp + "n1.g", slice(w.g1, i * e, e)});
                    plan.preset.push_back({c, lp + "n2.g", slice(w.g2, i * e, e)});
                    KernelPlan::Values qkv{c, lp + "qkv.W", {}}, up{c, lp + "up.W", {}};
                    for (uint32_t r = 0; r < e; ++r) {
                        const uint32_t row = i * e + r;
                        const bool pad = row >= E;
                        for (uint32_t k = 0; k < proj; ++k) {
                            const uint32_t part = k / d, at = s * d + k % d;
                            qkv.v.push_back(pad         ? 0.0f
                                            : part < G  ? w.wq.at(row, (h * G + part) * D + at)
                                            : part == G ? w.wk.at(row, h * D + at)
                                                        : w.wv.at(row, h * D + at));
                        }
                        for (uint32_t k = 0; k < 2 * f; ++k) {
                            const uint32_t col = j * f + k % f;
                            up.v.push_back(pad || col >= F ? 0.0f
                                           : k < f         ? w.wg.at(row, col)
                                                           : w.wu.at(row, col));
                        }
                    }
                    plan.preset.push_back(std::move(qkv));
                    plan.preset.push_back(std::move(up));
                    // Transposed GEMVs: logical (column j, row i) is this core; K-block j.
                    KernelPlan::Values wo{c, lp + "o.W", {}}, wd{c, lp + "down.W", {}};
                    for (uint32_t r = 0; r < G * d; ++r)
                        for (uint32_t k = 0; k < e; ++k)
                            wo.v.push_back(
                                i * e + k >= E
                                    ? 0.0f
                                    : w.wo.at((h * G + r / d) * D + s * d + r % d, i * e + k));
                    for (uint32_t r = 0; r < f; ++r)
                        for (uint32_t k = 0; k < e; ++k)
                            wd.v.push_back(j * f + r >= F || i * e + k >= E
                                               ? 0.0f
                                               : w.wd.at(j * f + r, i * e + k));
                    plan.preset.push_back(std::move(wo));
                    plan.preset.push_back(std::move(wd));
                    // The cache's tokens of row i (the last row's last slot is the new token's).
                    KernelPlan::Values kb{c, lp + "attn.K", {}}, vb{c, lp + "attn.V", {}};
                    for (uint64_t t = 0; t < kv.count(i); ++t)
                        for (uint32_t k = 0; k < d; ++k) {
                            kb.v.push_back(data.cacheK(l, h, kv.first(i) + t, s * d + k));
                            vb.v.push_back(data.cacheV(l, h, kv.first(i) + t, s * d + k));
                        }
                    plan.preset.push_back(std::move(kb));
                    plan.preset.push_back(std::move(vb));
                    if (i + 1 == P) {  // the projection's k and v, copied into the last slot
                        KernelPlan::Values kn{c, lp + "attn.Knew", {}}, vn{c, lp + "attn.Vnew", {}};
                        for (uint32_t k = 0; k < d; ++k) {
                            kn.v.push_back(float(ref.k[l][h * D + s * d + k]));
                            vn.v.push_back(float(ref.v[l][h * D + s * d + k]));
                        }
                        plan.expect.push_back(std::move(kn));
                        plan.expect.push_back(std::move(vn));
                    }
                }
        }
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < Q; ++j) {
                KernelPlan::Values xv{id(i, j), "x", {}};
                for (uint32_t z = 0; z < e && i * e + z < E; ++z)
                    xv.v.push_back(float(ref.out[i * e + z]));
                if (xv.v.empty()) continue;  // a row of padding only
                plan.expect.push_back(std::move(xv));
            }
        plan.tolerance = 1e-4;
    }
    return plan;
}

}  // namespace wsc::firmware::waferllm
