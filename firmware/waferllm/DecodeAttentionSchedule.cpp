#include "firmware/waferllm/DecodeAttentionSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "firmware/KernelShape.h"
#include "firmware/LineBroadcast.h"
#include "firmware/ReduceTree.h"
#include "firmware/RoutePlanner.h"
#include "firmware/TreeReduce.h"

namespace wsc::firmware::waferllm {

DecodeAttentionSchedule::DecodeAttentionSchedule(const Spec& s) : s_(s) {
    const char* algo = "decode attention";
    if (s.rows == 0 || s.cols == 0 || s.row0 + s.rows > s.mesh_y || s.col0 + s.cols > s.mesh_x)
        throw std::invalid_argument(
            fmt::format("decode attention: a {}x{} core block at row {}, column {} does not fit "
                        "the {}x{} mesh",
                        s.rows, s.cols, s.row0, s.col0, s.mesh_y, s.mesh_x));
    checkDivisible(algo, "head_dim", s.head_dim, s.cols);
    if (s.q_heads == 0 || s.q_heads > 64)
        throw std::invalid_argument(fmt::format(
            "decode attention: {} query heads per KV head; expected 1 to 64", s.q_heads));
    if (s.prompt == 0) throw std::invalid_argument("decode attention: the prompt needs a token");
    if (s.tree_k == 0) throw std::invalid_argument("decode attention: the tree needs K >= 1");
    d_ = s.head_dim / s.cols;
}

uint64_t DecodeAttentionSchedule::coreBytes(uint64_t n, bool gets, bool root) const {
    const uint64_t d = d_, G = s_.q_heads;
    return 4 * (n * (2 * d + 3 * G) + (gets ? 2 * d : 0) + G * (d + 6 + 3 * d + (root ? d : 0)));
}

uint64_t DecodeAttentionSchedule::rowCapacity(uint64_t sram) const {
    // The worst core: a receiver on the root row; the bottom row holds one slot more.
    const uint64_t fixed = coreBytes(0, true, true) + rxReserve(0),
                   per = coreBytes(1, false, false) - coreBytes(0, false, false) + rxReserve(1) -
                         rxReserve(0);
    if (sram < fixed + per) return 0;
    return (sram - fixed) / per - 1;
}

namespace {

struct CoreBufs {
    uint16_t K = kNoBuf, V = kNoBuf, Ki = kNoBuf, Vi = kNoBuf;
    std::vector<uint16_t> q, S, S0, S1, mx, m0, m1, l, l0, l1, O, O0, O1, out;
};

}  // namespace

KernelPlan DecodeAttentionSchedule::build(noc::Network& net) const {
    const uint32_t P = s_.rows, Q = s_.cols, d = d_, G = s_.q_heads, X = s_.mesh_x;
    KvCache kv(s_.policy, P, s_.prompt);
    kv.advance(s_.generated);
    const std::vector<KvCache::Move> moves = kv.nextMoves();
    std::vector<uint8_t> sends(P, 0), gets(P, 0);
    for (const auto& m : moves) sends[m.from] = 1, gets[m.to] = 1;
    const uint64_t token = s_.prompt + s_.generated;  // the new token's index
    const std::vector<uint64_t> n = kv.stepTokens(
        fmt::format("decode attention ({})", KvCache::name(s_.policy)), d, s_.prompt, s_.generated);

    KernelPlan plan;
    plan.algo = KvCache::name(s_.policy);
    plan.fw = Firmware(s_.mesh_x * s_.mesh_y);
    plan.steps = 1;
    plan.useful_macs = 2ull * G * (token + 1) * s_.head_dim;
    RoutePlanner rp(net, X);
    TreeReduce tr(rp);
    auto id = [&](uint32_t r, uint32_t j) { return (s_.row0 + r) * X + s_.col0 + j; };
    const ReduceTree row_tree = ReduceTree::kTree(Q, s_.tree_k);
    const ReduceTree col_tree = ReduceTree::kTree(P, s_.tree_k);
    const uint32_t root = col_tree.root();  // the row whose cores end with the output

    std::vector<CoreBufs> B(size_t(P) * Q);
    for (uint32_t r = 0; r < P; ++r)
        for (uint32_t j = 0; j < Q; ++j) {
            Program& prog = plan.fw.program(id(r, j));
            CoreBufs& b = B[size_t(r) * Q + j];
            const uint32_t nr = uint32_t(n[r]);
            b.K = prog.addBuffer("K", nr * d), b.V = prog.addBuffer("V", nr * d);
            if (gets[r]) b.Ki = prog.addBuffer("Ki", d), b.Vi = prog.addBuffer("Vi", d);
            for (uint32_t h = 0; h < G; ++h) {
                auto add = [&](const char* name, uint32_t elems) {
                    return prog.addBuffer(fmt::format("{}{}", name, h), elems);
                };
                b.q.push_back(add("q", d));
                b.S.push_back(add("s", nr)), b.S0.push_back(add("s_r0_", nr));
                b.S1.push_back(add("s_r1_", nr));
                b.mx.push_back(add("max", 1)), b.m0.push_back(add("max_r0_", 1));
                b.m1.push_back(add("max_r1_", 1));
                b.l.push_back(add("sum", 1)), b.l0.push_back(add("sum_r0_", 1));
                b.l1.push_back(add("sum_r1_", 1));
                b.O.push_back(add("o", d)), b.O0.push_back(add("o_r0_", d));
                b.O1.push_back(add("o_r1_", d));
                b.out.push_back(r == root ? add("out", d) : kNoBuf);
            }
            plan.cores.push_back(id(r, j));
        }

    // KV moves first: the oldest token of each moving row (its first slot) goes one hop up.
    for (const auto& m : moves)
        for (uint32_t j = 0; j < Q; ++j) {
            const RoutePlanner::Path p = rp.unicast(id(m.from, j), id(m.to, j));
            Program& src = plan.fw.program(id(m.from, j));
            Program& dst = plan.fw.program(id(m.to, j));
            const CoreBufs& bs = B[size_t(m.from) * Q + j];
            const CoreBufs& bd = B[size_t(m.to) * Q + j];
            for (int kv_part = 0; kv_part < 2; ++kv_part) {
                rp.emitSend(src, p, kv_part ? bs.V : bs.K, uint64_t(d) * 4);
                rp.emitRelays(plan.fw, p, uint64_t(d) * 4);
                rp.emitRecv(dst, p, kv_part ? bd.Vi : bd.Ki, uint64_t(d) * 4);
            }
        }

    // Scores, then the row allreduce of each head's scores (every core of a row ends with them).
    for (uint32_t r = 0; r < P; ++r)
        for (uint32_t j = 0; j < Q; ++j) {
            Program& prog = plan.fw.program(id(r, j));
            const CoreBufs& b = B[size_t(r) * Q + j];
            for (uint32_t h = 0; h < G; ++h) {
                Instruction g;
                g.op = Opcode::Gemm, g.a = b.q[h], g.b = b.K, g.c = b.S[h];
                g.m = 1, g.k = d, g.n = uint32_t(n[r]), g.flags = Instruction::kTransB;
                prog.add(g);
            }
        }
    std::vector<LineBroadcast> row_bc, col_bc;
    std::vector<std::vector<uint32_t>> row_cores(P), col_cores(Q);
    for (uint32_t r = 0; r < P; ++r) {
        for (uint32_t j = 0; j < Q; ++j) row_cores[r].push_back(id(r, j));
        row_bc.emplace_back(rp, row_cores[r], row_tree.root());
    }
    for (uint32_t j = 0; j < Q; ++j) {
        for (uint32_t r = 0; r < P; ++r) col_cores[j].push_back(id(r, j));
        col_bc.emplace_back(rp, col_cores[j], root);
    }
    // Quantity (x, x0, x1) of head h (a partial and its two receive buffers) reduced along a
    // line of cores: the row's score allreduce and the column's maximum, sum and values.
    using Bufs = std::vector<uint16_t> CoreBufs::*;
    auto reduceLine = [&](const ReduceTree& tree, const std::vector<uint32_t>& cores, Bufs x,
                          Bufs x0, Bufs x1, uint32_t h, uint32_t elems, Opcode op = Opcode::VAdd) {
        std::vector<TreeReduce::Buffers> v;
        for (uint32_t c : cores) {
            const CoreBufs& b = B[size_t(c / X - s_.row0) * Q + c % X - s_.col0];
            v.push_back({(b.*x)[h], (b.*x0)[h], (b.*x1)[h]});
        }
        tr.emit(plan.fw, tree, cores, v, elems, kNoBuf, op);
    };
    for (uint32_t h = 0; h < G; ++h)
        for (uint32_t r = 0; r < P; ++r) {
            const uint32_t nr = uint32_t(n[r]);
            reduceLine(row_tree, row_cores[r], &CoreBufs::S, &CoreBufs::S0, &CoreBufs::S1, h, nr);
            for (uint32_t j = 0; j < Q; ++j) {
                const CoreBufs& b = B[size_t(r) * Q + j];
                row_bc[r].emit(plan.fw.program(id(r, j)), j, b.S[h], b.S[h], uint64_t(nr) * 4);
            }
        }
    // Softmax's maximum over the column's rows (allreduce), exp, sums and the weighted values.
    auto vec = [](Program& prog, Opcode op, uint16_t a, uint16_t b, uint16_t c, uint32_t elems) {
        Instruction i;
        i.op = op, i.a = a, i.b = b, i.c = c, i.n = elems;
        prog.add(i);
    };
    for (uint32_t r = 0; r < P; ++r)
        for (uint32_t j = 0; j < Q; ++j)
            for (uint32_t h = 0; h < G; ++h) {
                const CoreBufs& b = B[size_t(r) * Q + j];
                vec(plan.fw.program(id(r, j)), Opcode::VRedMax, b.S[h], kNoBuf, b.mx[h],
                    uint32_t(n[r]));
            }
    for (uint32_t h = 0; h < G; ++h)
        for (uint32_t j = 0; j < Q; ++j) {
            reduceLine(col_tree, col_cores[j], &CoreBufs::mx, &CoreBufs::m0, &CoreBufs::m1, h, 1,
                       Opcode::VMax);
            for (uint32_t r = 0; r < P; ++r) {
                const CoreBufs& b = B[size_t(r) * Q + j];
                col_bc[j].emit(plan.fw.program(id(r, j)), r, b.mx[h], b.mx[h], 4);
            }
        }
    for (uint32_t r = 0; r < P; ++r)
        for (uint32_t j = 0; j < Q; ++j)
            for (uint32_t h = 0; h < G; ++h) {
                Program& prog = plan.fw.program(id(r, j));
                const CoreBufs& b = B[size_t(r) * Q + j];
                const uint32_t nr = uint32_t(n[r]);
                vec(prog, Opcode::VBSub, b.S[h], b.mx[h], b.S[h], nr);
                vec(prog, Opcode::VExp, b.S[h], kNoBuf, b.S[h], nr);
                vec(prog, Opcode::VRedSum, b.S[h], kNoBuf, b.l[h], nr);
                Instruction g;
                g.op = Opcode::Gemm, g.a = b.S[h], g.b = b.V, g.c = b.O[h];
                g.m = 1, g.k = nr, g.n = d;
                prog.add(g);
            }
    // The sums and the weighted values reduce to the column's root, which scales.
    for (uint32_t h = 0; h < G; ++h)
        for (uint32_t j = 0; j < Q; ++j) {
            reduceLine(col_tree, col_cores[j], &CoreBufs::l, &CoreBufs::l0, &CoreBufs::l1, h, 1);
            reduceLine(col_tree, col_cores[j], &CoreBufs::O, &CoreBufs::O0, &CoreBufs::O1, h, d);
            Program& prog = plan.fw.program(id(root, j));
            const CoreBufs& b = B[size_t(root) * Q + j];
            vec(prog, Opcode::VRecip, b.l[h], kNoBuf, b.l[h], 1);
            vec(prog, Opcode::VBMul, b.O[h], b.l[h], b.out[h], d);
        }

    // What the step holds: stop before simulating a core that would overflow its SRAM.
    if (s_.sram_bytes)
        for (uint32_t r = 0; r < P; ++r)
            for (uint32_t j = 0; j < Q; ++j) {
                uint64_t bufs = 0;
                for (const auto& bd : plan.fw.program(id(r, j)).buffers()) bufs += bd.allocBytes();
                const uint64_t all = bufs + rxReserve(n[r]);
                if (all > s_.sram_bytes) {
                    const uint64_t kvb = n[r] * kvBytesPerToken();
                    throw std::invalid_argument(fmt::format(
                        "decode attention ({}): core {} (row {}, column {}) needs {} B of SRAM "
                        "at decode step {} (token {}): {} B of K and V for the {} tokens its row "
                        "holds, {} B of other buffers and {} B kept for early arrivals, over its "
                        "{} B",
                        KvCache::name(s_.policy), id(r, j), r, j, all, s_.generated + 1, token, kvb,
                        n[r], bufs - kvb, rxReserve(n[r]), s_.sram_bytes));
                }
            }

    // PLMR numbers: the widest row's score allreduce is the step's longest transfer chain.
    uint32_t wide = 0;
    for (uint32_t r = 1; r < P; ++r)
        if (n[r] > n[wide]) wide = r;
    // PLMR L: the longer of the widest row's score allreduce and a column's output reduction.
    plan.step_path = tr.path(row_tree, row_cores[wide], n[wide] * 4);
    rp.keepWorst(plan.step_path, tr.path(col_tree, col_cores[0], uint64_t(d) * 4));
    plan.total_path = plan.step_path;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    plan.rejected_multicasts = rp.rejectedMulticasts();
    uint64_t lo = n[0], hi = n[0];
    for (uint64_t x : n) lo = std::min(lo, x), hi = std::max(hi, x);
    plan.notes = fmt::format(
        "KV cache {}: {} tokens ({} prompt + {} decoded + this step's) over {} rows, {}..{} per "
        "row ({} B of K and V per core at most); {} KV move{} of one token one row up this step",
        KvCache::name(s_.policy), token + 1, s_.prompt, s_.generated, P, lo, hi,
        hi * kvBytesPerToken(), moves.size(), moves.size() == 1 ? "" : "s");
    if (s_.sram_bytes) {
        const uint64_t cap = rowCapacity(s_.sram_bytes);
        plan.notes += fmt::format(
            "; a row holds at least {} tokens in {} B of SRAM (sized for its fullest core), so "
            "after this prompt concat decodes at least {} tokens and shift {}",
            cap, s_.sram_bytes, KvCache::maxGenerate(KvCache::Policy::Concat, P, s_.prompt, cap),
            KvCache::maxGenerate(KvCache::Policy::Shift, P, s_.prompt, cap));
    }

    if (s_.functional) {
        // q, K, V in [-1, 1]; q pre-scaled by 1 / sqrt(D) as the projection's weights would be.
        std::mt19937_64 rng(s_.seed);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        const uint32_t D = s_.head_dim;
        const float scale = 1.0f / std::sqrt(float(D));
        std::vector<std::vector<float>> q(G, std::vector<float>(D));
        for (auto& v : q)
            for (float& x : v) x = u(rng) * scale;
        const uint64_t T = token + 1;
        std::vector<float> K(T * D), V(T * D);
        for (float& x : K) x = u(rng);
        for (float& x : V) x = u(rng);
        auto slice = [&](const std::vector<float>& m, uint64_t t, uint32_t j) {
            return std::vector<float>(m.begin() + t * D + j * d, m.begin() + t * D + (j + 1) * d);
        };
        for (uint32_t r = 0; r < P; ++r) {
            const uint64_t f = kv.first(r);
            for (uint32_t j = 0; j < Q; ++j) {
                KernelPlan::Values kb{id(r, j), "K", {}}, vb{id(r, j), "V", {}};
                for (uint64_t t = 0; t < n[r]; ++t) {
                    const uint64_t tok = r + 1 == P && t + 1 == n[r] ? token : f + t;
                    const auto ks = slice(K, tok, j), vs = slice(V, tok, j);
                    kb.v.insert(kb.v.end(), ks.begin(), ks.end());
                    vb.v.insert(vb.v.end(), vs.begin(), vs.end());
                }
                plan.preset.push_back(std::move(kb));
                plan.preset.push_back(std::move(vb));
                for (uint32_t h = 0; h < G; ++h)
                    plan.preset.push_back(
                        {id(r, j), fmt::format("q{}", h),
                         std::vector<float>(q[h].begin() + j * d, q[h].begin() + (j + 1) * d)});
            }
        }
        for (uint32_t h = 0; h < G; ++h) {
            std::vector<double> sc(T);
            double mx = -1e300;
            for (uint64_t t = 0; t < T; ++t) {
                double s = 0;
                for (uint32_t k = 0; k < D; ++k) s += double(q[h][k]) * K[t * D + k];
                sc[t] = s, mx = std::max(mx, s);
            }
            double sum = 0;
            std::vector<double> o(D, 0.0);
            for (uint64_t t = 0; t < T; ++t) {
                const double e = std::exp(sc[t] - mx);
                sum += e;
                for (uint32_t k = 0; k < D; ++k) o[k] += e * V[t * D + k];
            }
            for (uint32_t j = 0; j < Q; ++j) {
                KernelPlan::Values ov{id(root, j), fmt::format("out{}", h), {}};
                for (uint32_t k = 0; k < d; ++k) ov.v.push_back(float(o[j * d + k] / sum));
                plan.expect.push_back(std::move(ov));
            }
        }
        for (const auto& m : moves)
            for (uint32_t j = 0; j < Q; ++j) {
                const uint64_t oldest = kv.first(m.from);
                plan.expect.push_back({id(m.to, j), "Ki", slice(K, oldest, j)});
                plan.expect.push_back({id(m.to, j), "Vi", slice(V, oldest, j)});
            }
        plan.tolerance = 1e-5;
    }
    return plan;
}

}  // namespace wsc::firmware::waferllm
