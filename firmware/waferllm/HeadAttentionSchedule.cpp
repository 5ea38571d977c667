#include "firmware/waferllm/HeadAttentionSchedule.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>

#include "firmware/LineBroadcast.h"
#include "firmware/ReduceTree.h"
#include "firmware/RingOrder.h"
#include "firmware/RoutePlanner.h"
#include "firmware/TreeReduce.h"
#include "firmware/VectorOp.h"

namespace wsc::firmware::waferllm {

namespace {

Instruction gemm(uint16_t a, uint16_t b, uint16_t c, uint32_t m, uint32_t k, uint32_t n,
                 uint8_t flags) {
    Instruction g;
    g.op = Opcode::Gemm, g.a = a, g.b = b, g.c = c, g.m = m, g.k = k, g.n = n, g.flags = flags;
    return g;
}

}  // namespace

bool HeadAttentionSchedule::applies(uint32_t p, uint32_t hidden, uint32_t heads) {
    return p && heads && p % heads == 0 && hidden % p == 0;
}

HeadAttentionSchedule::HeadAttentionSchedule(uint32_t mesh_x, uint32_t mesh_y, uint32_t p,
                                             uint32_t tokens, uint32_t hidden, uint32_t heads,
                                             uint32_t tree_k)
    : mesh_x_(mesh_x), mesh_y_(mesh_y), p_(p), l_(tokens), e_(hidden), h_(heads), tree_k_(tree_k) {
    if (p == 0 || p > mesh_x || p > mesh_y)
        throw std::invalid_argument(fmt::format(
            "head attention: a {0}x{0} block does not fit the {1}x{2} mesh", p, mesh_y, mesh_x));
    if (!applies(p, hidden, heads) || tokens % p || tokens == 0)
        throw std::invalid_argument(fmt::format(
            "head attention: {} heads must divide the block's {} columns, and the hidden size {} "
            "and the {} tokens must split over them",
            heads, p, hidden, tokens));
    if (tree_k == 0) throw std::invalid_argument("head attention: the tree needs K >= 1");
    c_ = p / heads, tm_ = tokens / p, te_ = hidden / p;
    if (uint64_t(heads) * tm_ * tm_ > UINT32_MAX)
        throw std::invalid_argument("head attention: a core's score tile does not fit 32 bits");
}

std::vector<float> HeadAttentionSchedule::mask(uint32_t i, uint32_t j) const {
    const uint32_t u = j % c_;
    std::vector<float> m;
    m.reserve(size_t(h_) * tm_ * tm_);
    for (uint32_t b = 0; b < h_; ++b) {
        const uint64_t r = u + uint64_t(b) * c_;
        for (uint32_t q = 0; q < tm_; ++q)
            for (uint32_t k = 0; k < tm_; ++k)
                m.push_back(r * tm_ + k > uint64_t(i) * tm_ + q ? -1e30f : 0.0f);
    }
    return m;
}

KernelPlan HeadAttentionSchedule::build(noc::Network& net) const {
    const uint32_t P = p_, X = mesh_x_, H = h_, c = c_, tm = tm_, te = te_;
    const uint32_t tile = tm * te, sq = tm * tm;
    const RingOrder ring(RingOrder::Kind::Interleave, P);
    KernelPlan plan;
    plan.algo = "head-attention";
    plan.fw = Firmware(X * mesh_y_);
    RoutePlanner rp(net, X);
    TreeReduce tr(rp);
    auto id = [&](uint32_t i, uint32_t j) { return i * X + j; };
    auto prog = [&](uint32_t i, uint32_t j) -> Program& { return plan.fw.program(id(i, j)); };

    struct Bufs {
        uint16_t q, k[2], v[2], S, T[2], R0, R1, mask, Sb[2], out, mx, sm, neg, M, acc, zero;
        uint16_t ar0, ar1;
        std::vector<uint16_t> chunk, Mrow, accRow, mxRow, smRow, negRow;
    };
    std::vector<Bufs> B(P * P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            Program& g = prog(i, j);
            Bufs& b = B[i * P + j];
            plan.cores.push_back(id(i, j));
            b.q = g.addBuffer("q", tile);
            b.k[0] = g.addBuffer("k0", tile), b.k[1] = g.addBuffer("k1", tile);
            b.v[0] = g.addBuffer("v0", tile), b.v[1] = g.addBuffer("v1", tile);
            b.S = g.addBuffer("S", H * sq);
            for (uint32_t x = 0; x < H; ++x)
                b.chunk.push_back(g.addView(fmt::format("S.b{}", x), b.S, x * sq, sq));
            b.T[0] = g.addBuffer("T0", sq), b.T[1] = g.addBuffer("T1", sq);
            b.R0 = g.addBuffer("R0", sq), b.R1 = g.addBuffer("R1", sq);
            b.mask = g.addBuffer("mask", H * sq);
            b.Sb[0] = g.addBuffer("Sb0", sq), b.Sb[1] = g.addBuffer("Sb1", sq);
            b.out = g.addBuffer("out", tile);
            b.mx = g.addBuffer("mx", tm), b.sm = g.addBuffer("sm", tm);
            b.neg = g.addBuffer("neg", tm);
            b.ar0 = g.addBuffer("ar0", tm), b.ar1 = g.addBuffer("ar1", tm);
            b.M = g.addBuffer("M", sq), b.acc = g.addBuffer("acc", sq);
            b.zero = g.addBuffer("zero", tm);  // never written: stays 0
            for (uint32_t q = 0; q < tm; ++q) {
                b.Mrow.push_back(g.addView(fmt::format("M.r{}", q), b.M, q * tm, tm));
                b.accRow.push_back(g.addView(fmt::format("acc.r{}", q), b.acc, q * tm, tm));
                b.mxRow.push_back(g.addView(fmt::format("mx.r{}", q), b.mx, q, 1));
                b.smRow.push_back(g.addView(fmt::format("sm.r{}", q), b.sm, q, 1));
                b.negRow.push_back(g.addView(fmt::format("neg.r{}", q), b.neg, q, 1));
            }
        }
    // Segment h of row i: cores (i, h c + u), u < c.
    auto segment = [&](uint32_t i, uint32_t h) {
        std::vector<uint32_t> s;
        for (uint32_t u = 0; u < c; ++u) s.push_back(id(i, h * c + u));
        return s;
    };
    std::vector<ReduceTree> trees;  // rooted at segment column u
    for (uint32_t u = 0; u < c; ++u) trees.push_back(ReduceTree::kTree(c, tree_k_, u));
    const ReduceTree mid = ReduceTree::kTree(c, tree_k_);
    CriticalPath worst;

    // Column-ring shift of k or v: every core sends its current tile to the core of the
    // predecessor row in its column's ring and receives the successor row's into the other buffer
    // (sends, relays, receives).
    std::vector<RoutePlanner::Path> ring_path(P * P);
    if (P > 1)
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j)
                ring_path[i * P + j] = rp.unicast(id(i, j), id(ring.prev(i), j));
    const uint64_t tile_bytes = uint64_t(tile) * 4, sq_bytes = uint64_t(sq) * 4;
    auto shiftSends = [&](bool v, const std::vector<uint8_t>& cur) {
        for (uint32_t x = 0; x < P * P; ++x) {
            const Bufs& b = B[x];
            rp.emitSend(plan.fw.program(plan.cores[x]), ring_path[x], v ? b.v[cur[x]] : b.k[cur[x]],
                        tile_bytes);
        }
        for (uint32_t x = 0; x < P * P; ++x) rp.emitRelays(plan.fw, ring_path[x], tile_bytes);
    };
    auto shiftRecvs = [&](bool v, const std::vector<uint8_t>& cur) {
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                const Bufs& b = B[i * P + j];
                const uint8_t o = cur[i * P + j] ^ 1;
                rp.emitRecv(prog(i, j), ring_path[ring.next(i) * P + j], v ? b.v[o] : b.k[o],
                            tile_bytes);
            }
    };
    // Which key block row i holds at step s, and where its scores go.
    auto block = [&](uint32_t i, uint32_t s) { return ring.at(uint64_t(ring.position(i)) + s); };

    // Scores: step s's partials reduce-added along each segment into chunk r / c of core
    // (i, h c + r mod c); the reduce of step s - 1 follows step s's multiply in program order.
    auto emitReduce = [&](uint32_t s) {
        for (uint32_t i = 0; i < P; ++i) {
            const uint32_t r = block(i, s), u = r % c, ch = r / c;
            for (uint32_t h = 0; h < H; ++h) {
                const std::vector<uint32_t> seg = segment(i, h);
                std::vector<TreeReduce::Buffers> rb;
                for (uint32_t x = 0; x < c; ++x) {
                    const Bufs& b = B[i * P + h * c + x];
                    rb.push_back({b.T[s % 2], b.R0, b.R1});
                }
                tr.emit(plan.fw, trees[u], seg, rb, sq, B[i * P + h * c + u].chunk[ch]);
            }
        }
    };
    std::vector<uint8_t> cur(P * P, 0);
    for (uint32_t s = 0; s < P; ++s) {
        const bool shift = s + 1 < P;
        if (shift) shiftSends(false, cur), shiftRecvs(false, cur);
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                const Bufs& b = B[i * P + j];
                const uint32_t r = block(i, s);
                // One column per head: the product is the score block itself.
                const uint16_t into = c == 1 ? b.chunk[r] : b.T[s % 2];
                prog(i, j).add(
                    gemm(b.q, b.k[cur[i * P + j]], into, tm, te, tm, Instruction::kTransB));
            }
        if (c > 1 && s > 0) emitReduce(s - 1);
        if (shift)
            for (auto& x : cur) x ^= 1;
    }
    if (c > 1) emitReduce(P - 1);
    if (c > 1) rp.keepWorst(worst, tr.path(trees[0], segment(0, 0), sq_bytes));

    // Softmax over each query's keys: the H chunks, then the segment.
    std::vector<std::vector<LineBroadcast>> segbc(P);  // [row][head], from the middle
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t h = 0; h < H; ++h) segbc[i].emplace_back(rp, segment(i, h), mid.root());
    auto allreduce = [&](bool sum) {
        if (c == 1) return;
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t h = 0; h < H; ++h) {
                std::vector<TreeReduce::Buffers> rb;
                for (uint32_t x = 0; x < c; ++x) {
                    const Bufs& b = B[i * P + h * c + x];
                    rb.push_back({sum ? b.sm : b.mx, b.ar0, b.ar1});
                }
                tr.emit(plan.fw, mid, segment(i, h), rb, tm, kNoBuf,
                        sum ? Opcode::VAdd : Opcode::VMax);
                for (uint32_t x = 0; x < c; ++x) {
                    const uint16_t part = rb[x].part;
                    segbc[i][h].emit(prog(i, h * c + x), x, part, part, uint64_t(tm) * 4);
                }
            }
    };
    // acc = op over the chunks; then the per-query reduction of acc's rows into `into`.
    auto chunksThenRows = [&](Program& g, const Bufs& b, Opcode op, Opcode red,
                              const std::vector<uint16_t>& into) {
        g.add(vectorOp(Opcode::VCopy, b.chunk[0], kNoBuf, b.acc, sq));
        for (uint32_t x = 1; x < H; ++x) g.add(vectorOp(op, b.acc, b.chunk[x], b.acc, sq));
        for (uint32_t q = 0; q < tm; ++q) g.add(vectorOp(red, b.accRow[q], kNoBuf, into[q], tm));
    };
    // M's row q = v[q] for every key (0 - (-v[q])), then every chunk op= M.
    auto rowsApply = [&](Program& g, const Bufs& b, uint16_t v, Opcode op) {
        g.add(vectorOp(Opcode::VScale, v, kNoBuf, b.neg, tm, -1.0f));
        for (uint32_t q = 0; q < tm; ++q)
            g.add(vectorOp(Opcode::VBSub, b.zero, b.negRow[q], b.Mrow[q], tm));
        for (uint32_t x = 0; x < H; ++x) g.add(vectorOp(op, b.chunk[x], b.M, b.chunk[x], sq));
    };
    // The same local steps on every core of the block.
    auto onEachCore = [&](const std::function<void(Program&, const Bufs&)>& f) {
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) f(prog(i, j), B[i * P + j]);
    };
    onEachCore([&](Program& g, const Bufs& b) {
        g.add(vectorOp(Opcode::VAdd, b.S, b.mask, b.S, H * sq));
        chunksThenRows(g, b, Opcode::VMax, Opcode::VRedMax, b.mxRow);
    });
    allreduce(false);
    onEachCore([&](Program& g, const Bufs& b) {
        rowsApply(g, b, b.mx, Opcode::VSub);
        g.add(vectorOp(Opcode::VExp, b.S, kNoBuf, b.S, H * sq));
        chunksThenRows(g, b, Opcode::VAdd, Opcode::VRedSum, b.smRow);
    });
    allreduce(true);
    onEachCore([&](Program& g, const Bufs& b) {
        g.add(vectorOp(Opcode::VRecip, b.sm, kNoBuf, b.sm, tm));
        rowsApply(g, b, b.sm, Opcode::VMul);
    });

    // Context: v shifts as k did; the holder of S_h(i, r) multicasts it along the segment.
    std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<LineBroadcast>> from;  // (row*H+h, u)
    auto bcast = [&](uint32_t i, uint32_t h, uint32_t u) -> const LineBroadcast& {
        auto& p = from[{i * H + h, u}];
        if (!p) p = std::make_unique<LineBroadcast>(rp, segment(i, h), u);
        return *p;
    };
    std::fill(cur.begin(), cur.end(), 0);
    for (uint32_t s = 0; s < P; ++s) {
        const bool shift = s + 1 < P;
        if (shift) shiftSends(true, cur);
        if (c > 1)
            for (uint32_t i = 0; i < P; ++i) {
                const uint32_t r = block(i, s), u = r % c, ch = r / c;
                for (uint32_t h = 0; h < H; ++h)
                    for (uint32_t x = 0; x < c; ++x) {
                        const Bufs& b = B[i * P + h * c + x];
                        bcast(i, h, u).emit(prog(i, h * c + x), x, b.chunk[ch], b.Sb[s % 2],
                                            sq_bytes);
                    }
            }
        if (shift) shiftRecvs(true, cur);
        for (uint32_t i = 0; i < P; ++i) {
            const uint32_t r = block(i, s), u = r % c, ch = r / c;
            for (uint32_t j = 0; j < P; ++j) {
                const Bufs& b = B[i * P + j];
                const uint16_t a = j % c == u ? b.chunk[ch] : b.Sb[s % 2];
                prog(i, j).add(
                    gemm(a, b.v[cur[i * P + j]], b.out, tm, tm, te, Instruction::kAccumulate));
            }
        }
        if (shift)
            for (auto& x : cur) x ^= 1;
    }
    if (c > 1) rp.keepWorst(worst, bcast(0, 0, 0).path(sq_bytes));
    if (P > 1) rp.keepWorst(worst, rp.pathOf(ring_path[0], tile_bytes));

    plan.steps = 2 * P;
    plan.step_path = worst, plan.total_path = worst;
    plan.useful_macs = 2ull * l_ * l_ * e_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    plan.notes =
        fmt::format("{} heads side by side, {} column(s) each; {} score chunks of {}x{} per core",
                    H, c, H, tm, tm);
    return plan;
}

}  // namespace wsc::firmware::waferllm
