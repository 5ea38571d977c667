#include "firmware/waferllm/PrefillLayerSchedule.h"

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>

#include "firmware/FirmwareComposer.h"
#include "firmware/LineBroadcast.h"
#include "firmware/ReduceTree.h"
#include "firmware/RingGemmSchedule.h"
#include "firmware/RingGemmTSchedule.h"
#include "firmware/RoutePlanner.h"
#include "firmware/RouteReuseScope.h"
#include "firmware/TreeReduce.h"
#include "firmware/VectorOp.h"
#include "firmware/waferllm/HeadAttentionSchedule.h"

namespace wsc::firmware::waferllm {

namespace {

// Masked scores: exp(-1e30 - max) is exactly 0 in fp32, and every query row keeps its own key.
constexpr float kMasked = -1e30f;

}  // namespace

PrefillLayerSchedule::PrefillLayerSchedule(const Spec& s) : s_(s) {
    const LayerShape& L = s.layer;
    if (s.p == 0 || s.p > s.mesh_x || s.p > s.mesh_y)
        throw std::invalid_argument(
            fmt::format("prefill layer: a {0}x{0} core block does not fit the {1}x{2} mesh", s.p,
                        s.mesh_y, s.mesh_x));
    if (!L.hidden || !L.heads || !L.kv_heads || !L.head_dim || !L.ffn)
        throw std::invalid_argument(
            "prefill layer: hidden, heads, kv_heads, head_dim and ffn must all be > 0");
    if (L.heads % L.kv_heads)
        throw std::invalid_argument(fmt::format(
            "prefill layer: {} query heads do not group over {} KV heads", L.heads, L.kv_heads));
    if (uint64_t(L.heads) * L.head_dim != L.hidden)
        throw std::invalid_argument(
            fmt::format("prefill layer: heads x head_dim = {} x {} must equal hidden {} (the "
                        "scores are one product over the embedding)",
                        L.heads, L.head_dim, L.hidden));
    for (const auto& [v, what] : {std::pair<uint64_t, const char*>{s.prompt, "the prompt"},
                                  {L.hidden, "hidden"},
                                  {L.ffn, "ffn"}})
        if (v % s.p)
            throw std::invalid_argument(fmt::format(
                "prefill layer: {} ({}) does not split over the {} rows and columns of the block "
                "(MeshGEMM needs every dimension divisible by P)",
                what, v, s.p));
    if (s.prompt == 0) throw std::invalid_argument("prefill layer: the prompt needs a token");
    if (s.layers == 0) throw std::invalid_argument("prefill layer: layers must be >= 1");
    if (s.tree_k == 0) throw std::invalid_argument("prefill layer: the tree needs K >= 1");
    const bool per_head =
        !s.product_attention && HeadAttentionSchedule::applies(s.p, L.hidden, L.heads);
    if (s.functional && L.heads != 1 && !per_head)
        throw std::invalid_argument(fmt::format(
            "prefill layer: attention as one product over the embedding (WaferLLM's prefill "
            "kernel{}) is not the model's attention for {} heads: functional runs need one head, "
            "or heads dividing P; timing-only runs take any head count",
            s.product_attention
                ? ", as asked"
                : fmt::format("; {} heads do not tile the block's {} columns", L.heads, s.p),
            L.heads));
    const uint64_t tm = s.prompt / s.p, te = L.hidden / s.p, tf = L.ffn / s.p;
    for (const auto& [v, what] : {std::pair<uint64_t, const char*>{3ull * L.hidden, "3 x hidden"},
                                  {2ull * L.ffn, "2 x ffn"},
                                  {tm * tm, "a core's score tile"},
                                  {te * 3 * te, "a core's q/k/v weights"},
                                  {te * 2 * tf, "a core's gate/up weights"},
                                  {tm * 2 * tf, "a core's gate/up outputs"}})
        if (v > UINT32_MAX)
            throw std::invalid_argument(
                fmt::format("prefill layer: {} = {} does not fit 32 bits", what, v));
}

uint64_t PrefillLayerSchedule::wordHops() const {
    const uint64_t P = s_.p, E = s_.layer.hidden, F = s_.layer.ffn, T = s_.prompt;
    auto gemm = [&](uint64_t m, uint64_t k, uint64_t n, bool b_aligned) {
        return 2 * (P - 1) * (m * k + k * n) + 2 * (P - 1) * (m * k + (b_aligned ? 0 : k * n));
    };
    return gemm(T, E, 3 * E, true) + (2 * (P - 1) * T * E + 2 * P * T * T) + gemm(T, T, E, false) +
           gemm(T, E, E, true) + gemm(T, E, 2 * F, true) + gemm(T, F, E, true);
}

KernelPlan PrefillLayerSchedule::build(noc::Network& net) const {
    const uint32_t P = s_.p, X = s_.mesh_x, Y = s_.mesh_y;
    const LayerShape& Ls = s_.layer;
    const uint32_t E = Ls.hidden, F = Ls.ffn, T = s_.prompt;
    const uint32_t tm = T / P, te = E / P, tf = F / P;

    const RouteReuseScope reuse(net);  // shared routes for this build only
    KernelPlan plan;
    plan.algo = "prefill";
    plan.fw = Firmware(X * Y);
    plan.steps = s_.layers;
    RoutePlanner rp(net, X);
    TreeReduce tr(rp);
    auto id = [&](uint32_t i, uint32_t j) { return i * X + j; };
    auto prog = [&](uint32_t i, uint32_t j) -> Program& { return plan.fw.program(id(i, j)); };
    auto buf = [&](uint32_t i, uint32_t j, const std::string& name) {
        const uint16_t b = prog(i, j).findBuffer(name);
        if (b == kNoBuf) throw std::logic_error("prefill layer: no buffer " + name);
        return b;
    };
    const ReduceTree row_tree = ReduceTree::kTree(P, s_.tree_k);
    const uint32_t rootc = row_tree.root();

    // Per-head attention where the heads tile the columns; else WaferLLM's one product over E.
    const bool per_head = !s_.product_attention && HeadAttentionSchedule::applies(P, E, Ls.heads);
    std::vector<std::vector<uint32_t>> row(P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            plan.cores.push_back(id(i, j));
            row[i].push_back(id(i, j));
            Program& g = prog(i, j);
            const uint16_t x = g.addBuffer("x", tm * te);
            if (per_head)
                g.addBuffer("hmask", Ls.heads * tm * tm);
            else
                g.addBuffer("mask", tm * tm);
            for (uint32_t r = 0; r < tm; ++r) g.addView(fmt::format("x.r{}", r), x, r * te, te);
        }
    std::vector<LineBroadcast> rowbc;
    for (uint32_t i = 0; i < P; ++i) rowbc.emplace_back(rp, row[i], rootc);

    CriticalPath worst;
    uint32_t direct = 0, relayed = 0, rejected = 0;
    auto account = [&](const KernelPlan& k) {
        rp.keepWorst(worst, k.step_path);
        direct += k.direct_routes, relayed += k.relayed_paths, rejected += k.rejected_multicasts;
    };

    // `elems` values of buffer `name` on every core, combined along each row (K-tree to the
    // middle column) and multicast back, so every core of the row holds the result.
    auto rowAllreduce = [&](const std::string& p, const std::string& name, uint32_t elems,
                            Opcode op) {
        std::vector<std::vector<TreeReduce::Buffers>> bufs(P);
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                Program& g = prog(i, j);
                bufs[i].push_back(
                    {buf(i, j, name), g.addBuffer(p + "r0", elems), g.addBuffer(p + "r1", elems)});
            }
        for (uint32_t i = 0; i < P; ++i) {
            tr.emit(plan.fw, row_tree, row[i], bufs[i], elems, kNoBuf, op);
            if (P > 1)
                for (uint32_t j = 0; j < P; ++j)
                    rowbc[i].emit(prog(i, j), j, bufs[i][j].part, bufs[i][j].part,
                                  uint64_t(elems) * 4);
        }
    };

    // h = x * rsqrt(mean(x^2) + eps) * g, token by token.
    auto norm = [&](const std::string& p) {
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                Program& g = prog(i, j);
                g.addBuffer(p + "g", te);
                const uint16_t h = g.addBuffer(p + "h", tm * te), ss = g.addBuffer(p + "ss", tm);
                for (uint32_t r = 0; r < tm; ++r) {
                    g.addView(fmt::format("{}h.r{}", p, r), h, r * te, te);
                    const uint16_t sr = g.addView(fmt::format("{}ss.r{}", p, r), ss, r, 1);
                    g.add(vectorOp(Opcode::VSqSum, buf(i, j, fmt::format("x.r{}", r)), kNoBuf, sr,
                                   te));
                }
            }
        rowAllreduce(p + "ar.", p + "ss", tm, Opcode::VAdd);
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                Program& g = prog(i, j);
                const uint16_t ss = buf(i, j, p + "ss"), gs = buf(i, j, p + "g");
                g.add(vectorOp(Opcode::VScale, ss, kNoBuf, ss, tm, 1.0f / float(E)));
                g.add(vectorOp(Opcode::VRsqrt, ss, kNoBuf, ss, tm, Ls.eps));
                for (uint32_t r = 0; r < tm; ++r) {
                    const uint16_t hr = buf(i, j, fmt::format("{}h.r{}", p, r));
                    g.add(vectorOp(Opcode::VBMul, buf(i, j, fmt::format("x.r{}", r)),
                                   buf(i, j, fmt::format("{}ss.r{}", p, r)), hr, te));
                    g.add(vectorOp(Opcode::VMul, hr, gs, hr, te));
                }
            }
    };

    // The weights of each MeshGEMM whose B is a weight: its prefix, where its tiles sit, and its
    // logical B (row, column) as the functional run fills it.
    struct Weight {
        uint32_t layer;
        std::string buffer;  // composed name of the B tile
        std::vector<TilePlacement> tiles;
        int which;  // 0 qkv, 1 o, 2 up, 3 down
    };
    std::vector<Weight> weights;

    // MeshGEMM on the block: A copied in from `a_from` (the GEMM shifts its A buffers and swaps
    // their names, so it gets its own); B likewise from `b_from`, or (empty) a weight placed
    // aligned before the run.
    auto gemm = [&](const std::string& p, uint32_t m, uint32_t k, uint32_t n,
                    const std::string& a_from, const std::string& b_from) {
        const uint32_t am = m / P * (k / P), bn = k / P * (n / P);
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                Program& g = prog(i, j);
                const uint16_t a0 = g.addBuffer(p + "A0", am);
                g.add(vectorOp(Opcode::VCopy, buf(i, j, a_from), kNoBuf, a0, am));
                if (!b_from.empty()) {
                    const uint16_t b0 = g.addBuffer(p + "B0", bn);
                    g.add(vectorOp(Opcode::VCopy, buf(i, j, b_from), kNoBuf, b0, bn));
                }
            }
        const KernelPlan g =
            RingGemmSchedule(RingOrder::Kind::Interleave, X, Y, P, m, k, n, true, b_from.empty())
                .build(net);
        account(g);
        FirmwareComposer::append(plan.fw, g.fw, p, [&](uint32_t, const std::string& name) {
            if (name == "A0" || (name == "B0" && !b_from.empty())) return p + name;
            return std::string();
        });
        return g;
    };
    auto addInto = [&](const std::string& other) {
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                const uint16_t x = buf(i, j, "x");
                prog(i, j).add(vectorOp(Opcode::VAdd, x, buf(i, j, other), x, tm * te));
            }
    };

    for (uint32_t l = 0; l < s_.layers; ++l) {
        const std::string lp = s_.layers > 1 ? fmt::format("L{}.", l) : std::string();
        plan.beginPhase("norm1");
        norm(lp + "n1.");
        plan.beginPhase("qkv");
        {
            const KernelPlan g = gemm(lp + "qkv.", T, E, 3 * E, lp + "n1.h", "");
            weights.push_back({l, lp + "qkv.B0", g.b, 0});
        }
        // Each token's q, k and v slices out of the projection's [q | k | v] rows.
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                Program& g = prog(i, j);
                const uint16_t c = buf(i, j, lp + "qkv.C");
                const char* names[3] = {"q", "k", "v"};
                for (int part = 0; part < 3; ++part) {
                    const uint16_t dst = g.addBuffer(lp + names[part], tm * te);
                    for (uint32_t r = 0; r < tm; ++r) {
                        const uint16_t from = g.addView(fmt::format("{}qkv.C.r{}.{}", lp, r, part),
                                                        c, (r * 3 + part) * te, te);
                        const uint16_t to =
                            g.addView(fmt::format("{}{}.r{}", lp, names[part], r), dst, r * te, te);
                        g.add(vectorOp(Opcode::VCopy, from, kNoBuf, to, te));
                    }
                }
            }
        if (per_head) {
            plan.beginPhase("attention");
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < P; ++j) {
                    Program& g = prog(i, j);
                    // k and v are copied in: the schedule shifts its own tiles.
                    const uint16_t k0 = g.addBuffer(lp + "att.k0", tm * te);
                    const uint16_t v0 = g.addBuffer(lp + "att.v0", tm * te);
                    g.add(vectorOp(Opcode::VCopy, buf(i, j, lp + "k"), kNoBuf, k0, tm * te));
                    g.add(vectorOp(Opcode::VCopy, buf(i, j, lp + "v"), kNoBuf, v0, tm * te));
                }
            const KernelPlan g =
                HeadAttentionSchedule(X, Y, P, T, E, Ls.heads, s_.tree_k).build(net);
            account(g);
            FirmwareComposer::append(plan.fw, g.fw, lp + "att.",
                                     [&](uint32_t, const std::string& name) {
                                         if (name == "q") return lp + "q";
                                         if (name == "k0" || name == "v0")
                                             return lp + "att." + name;
                                         if (name == "mask") return std::string("hmask");
                                         return std::string();
                                     });
        } else {
            plan.beginPhase("scores");
            {  // S = q k^T; k is copied in (dist-GEMM-T receives over its B buffers)
                for (uint32_t i = 0; i < P; ++i)
                    for (uint32_t j = 0; j < P; ++j) {
                        Program& g = prog(i, j);
                        const uint16_t b0 = g.addBuffer(lp + "att.B0", tm * te);
                        g.add(vectorOp(Opcode::VCopy, buf(i, j, lp + "k"), kNoBuf, b0, tm * te));
                    }
                const KernelPlan g = RingGemmTSchedule(X, Y, P, T, E, T, s_.tree_k).build(net);
                account(g);
                FirmwareComposer::append(plan.fw, g.fw, lp + "att.",
                                         [&](uint32_t, const std::string& name) {
                                             if (name == "A") return lp + "q";
                                             if (name == "B0") return lp + "att.B0";
                                             return std::string();
                                         });
            }
            plan.beginPhase("softmax");
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < P; ++j) {
                    Program& g = prog(i, j);
                    const uint16_t S = buf(i, j, lp + "att.C");
                    g.add(vectorOp(Opcode::VAdd, S, buf(i, j, "mask"), S, tm * tm));
                    const uint16_t mx = g.addBuffer(lp + "mx", tm), sm = g.addBuffer(lp + "sm", tm);
                    for (uint32_t r = 0; r < tm; ++r) {
                        const uint16_t sr = g.addView(fmt::format("{}S.r{}", lp, r), S, r * tm, tm);
                        const uint16_t mr = g.addView(fmt::format("{}mx.r{}", lp, r), mx, r, 1);
                        g.addView(fmt::format("{}sm.r{}", lp, r), sm, r, 1);
                        g.add(vectorOp(Opcode::VRedMax, sr, kNoBuf, mr, tm));
                    }
                }
            rowAllreduce(lp + "mxar.", lp + "mx", tm, Opcode::VMax);
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < P; ++j) {
                    Program& g = prog(i, j);
                    const uint16_t S = buf(i, j, lp + "att.C");
                    for (uint32_t r = 0; r < tm; ++r) {
                        const uint16_t sr = buf(i, j, fmt::format("{}S.r{}", lp, r));
                        g.add(vectorOp(Opcode::VBSub, sr, buf(i, j, fmt::format("{}mx.r{}", lp, r)),
                                       sr, tm));
                    }
                    g.add(vectorOp(Opcode::VExp, S, kNoBuf, S, tm * tm));
                    for (uint32_t r = 0; r < tm; ++r)
                        g.add(vectorOp(Opcode::VRedSum, buf(i, j, fmt::format("{}S.r{}", lp, r)),
                                       kNoBuf, buf(i, j, fmt::format("{}sm.r{}", lp, r)), tm));
                }
            rowAllreduce(lp + "smar.", lp + "sm", tm, Opcode::VAdd);
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < P; ++j) {
                    Program& g = prog(i, j);
                    const uint16_t sm = buf(i, j, lp + "sm");
                    g.add(vectorOp(Opcode::VRecip, sm, kNoBuf, sm, tm));
                    for (uint32_t r = 0; r < tm; ++r) {
                        const uint16_t sr = buf(i, j, fmt::format("{}S.r{}", lp, r));
                        g.add(vectorOp(Opcode::VBMul, sr, buf(i, j, fmt::format("{}sm.r{}", lp, r)),
                                       sr, tm));
                    }
                }
            plan.beginPhase("context");
            gemm(lp + "ctx.", T, T, E, lp + "att.C", lp + "v");
        }
        plan.beginPhase("o");
        {
            const KernelPlan g =
                gemm(lp + "o.", T, E, E, per_head ? lp + "att.out" : lp + "ctx.C", "");
            weights.push_back({l, lp + "o.B0", g.b, 1});
        }
        addInto(lp + "o.C");
        plan.beginPhase("norm2");
        norm(lp + "n2.");
        plan.beginPhase("up");
        {
            const KernelPlan g = gemm(lp + "up.", T, E, 2 * F, lp + "n2.h", "");
            weights.push_back({l, lp + "up.B0", g.b, 2});
        }
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                Program& g = prog(i, j);
                const uint16_t c = buf(i, j, lp + "up.C"), act = g.addBuffer(lp + "act", tm * tf);
                for (uint32_t r = 0; r < tm; ++r) {
                    const uint16_t gate =
                        g.addView(fmt::format("{}gate.r{}", lp, r), c, r * 2 * tf, tf);
                    const uint16_t up =
                        g.addView(fmt::format("{}upv.r{}", lp, r), c, r * 2 * tf + tf, tf);
                    const uint16_t ar = g.addView(fmt::format("{}act.r{}", lp, r), act, r * tf, tf);
                    g.add(vectorOp(Opcode::VSilu, gate, kNoBuf, ar, tf));
                    g.add(vectorOp(Opcode::VMul, ar, up, ar, tf));
                }
            }
        plan.beginPhase("down");
        {
            const KernelPlan g = gemm(lp + "down.", T, F, E, lp + "act", "");
            weights.push_back({l, lp + "down.B0", g.b, 3});
        }
        addInto(lp + "down.C");
    }

    if (s_.sram_bytes)
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                uint64_t bytes = 0;
                for (const auto& b : prog(i, j).buffers()) bytes += b.allocBytes();
                if (bytes > s_.sram_bytes)
                    throw std::invalid_argument(fmt::format(
                        "prefill layer: core {} (row {}, column {}) needs {} B of SRAM for a "
                        "{}-token prompt through {} layer(s) (weights, activations, score tile "
                        "and GEMM buffers), over its {} B",
                        id(i, j), i, j, bytes, T, s_.layers, s_.sram_bytes));
            }

    plan.useful_macs =
        uint64_t(s_.layers) * T * (3ull * E * E + 2ull * T * E + uint64_t(E) * E + 3ull * E * F);
    plan.step_path = worst, plan.total_path = worst;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = direct, plan.relayed_paths = relayed, plan.rejected_multicasts = rejected;
    plan.notes = fmt::format(
        "{} layer(s) of E {}, FFN {}, a {}-token prompt on {}x{} cores ({} tokens x {} features "
        "per core); attention {}; {} route(s) shared between operations",
        s_.layers, E, F, T, P, P, tm, te,
        per_head ? fmt::format("per head, {} heads side by side ({} column(s) each)", Ls.heads,
                               P / Ls.heads)
                 : fmt::format("as one product over the embedding ({} heads do not tile {} "
                               "columns)",
                               Ls.heads, P),
        net.reusedRoutes());

    if (s_.functional) {
        std::unique_ptr<DecodeModelData> own;
        if (!s_.data) own = std::make_unique<DecodeModelData>(Ls, s_.layers, 0, s_.seed);
        const DecodeModelData& data = s_.data ? *s_.data : *own;
        if (data.layers() != s_.layers)
            throw std::invalid_argument(
                fmt::format("prefill layer: the model data holds {} layer(s); the run needs {}",
                            data.layers(), s_.layers));
        // K and V are E wide: query head h's features hold KV head h / G's.
        const uint32_t D = Ls.head_dim, G = Ls.heads / Ls.kv_heads, KV = Ls.kv_heads * D;
        auto kvCol = [&](uint32_t f) { return f / D / G * D + f % D; };
        const std::vector<float> x = data.promptInput(T);
        const DecodeModelData::Prefill ref = data.prefillReference(x, T);
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                KernelPlan::Values xv{id(i, j), "x", {}}, mv{id(i, j), "mask", {}};
                for (uint32_t r = 0; r < tm; ++r) {
                    for (uint32_t c = 0; c < te; ++c)
                        xv.v.push_back(x[size_t(i * tm + r) * E + j * te + c]);
                    for (uint32_t c = 0; c < tm && !per_head; ++c)
                        mv.v.push_back(j * tm + c > i * tm + r ? kMasked : 0.0f);
                }
                if (per_head)
                    mv = {id(i, j), "hmask",
                          HeadAttentionSchedule(X, Y, P, T, E, Ls.heads, s_.tree_k).mask(i, j)};
                plan.preset.push_back(std::move(xv)), plan.preset.push_back(std::move(mv));
            }
        for (uint32_t l = 0; l < s_.layers; ++l) {
            const std::string lp = s_.layers > 1 ? fmt::format("L{}.", l) : std::string();
            const DecodeModelData::Layer& w = data.layer(l);
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < P; ++j) {
                    KernelPlan::Values g1{id(i, j), lp + "n1.g", {}}, g2{id(i, j), lp + "n2.g", {}};
                    for (uint32_t c = 0; c < te; ++c)
                        g1.v.push_back(w.g1[j * te + c]), g2.v.push_back(w.g2[j * te + c]);
                    plan.preset.push_back(std::move(g1)), plan.preset.push_back(std::move(g2));
                    // The prompt's k and v, where the projection leaves them (the cache).
                    KernelPlan::Values kv{id(i, j), lp + "k", {}}, vv{id(i, j), lp + "v", {}};
                    for (uint32_t r = 0; r < tm; ++r)
                        for (uint32_t c = 0; c < te; ++c) {
                            const size_t at = size_t(i * tm + r) * KV + kvCol(j * te + c);
                            kv.v.push_back(float(ref.k[l][at])),
                                vv.v.push_back(float(ref.v[l][at]));
                        }
                    plan.expect.push_back(std::move(kv)), plan.expect.push_back(std::move(vv));
                }
        }
        // Logical B of each weight GEMM; qkv and up have their columns pre-permuted so core
        // column j's outputs are its features of each part side by side.
        for (const Weight& wt : weights) {
            const DecodeModelData::Layer& w = data.layer(wt.layer);
            auto at = [&](uint32_t r, uint32_t c) -> float {
                switch (wt.which) {
                    case 0: {
                        const uint32_t jc = c / (3 * te), part = c % (3 * te) / te,
                                       col = jc * te + c % te;
                        return part == 0 ? w.wq.at(r, col)
                                         : (part == 1 ? w.wk : w.wv).at(r, kvCol(col));
                    }
                    case 1:
                        return w.wo.at(r, c);
                    case 2: {
                        const uint32_t jc = c / (2 * tf), part = c % (2 * tf) / tf,
                                       col = jc * tf + c % tf;
                        return (part == 0 ? w.wg : w.wu).at(r, col);
                    }
                    default:
                        return w.wd.at(r, c);
                }
            };
            for (const TilePlacement& t : wt.tiles) {
                KernelPlan::Values v{t.core, wt.buffer, {}};
                for (uint32_t r = 0; r < t.rows; ++r)
                    for (uint32_t c = 0; c < t.cols; ++c) v.v.push_back(at(t.row0 + r, t.col0 + c));
                plan.preset.push_back(std::move(v));
            }
        }
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                KernelPlan::Values xv{id(i, j), "x", {}};
                for (uint32_t r = 0; r < tm; ++r)
                    for (uint32_t c = 0; c < te; ++c)
                        xv.v.push_back(float(ref.out[size_t(i * tm + r) * E + j * te + c]));
                plan.expect.push_back(std::move(xv));
            }
        plan.tolerance = 1e-4;
    }
    return plan;
}

}  // namespace wsc::firmware::waferllm
