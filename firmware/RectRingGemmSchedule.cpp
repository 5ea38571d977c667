#include "firmware/RectRingGemmSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "firmware/KernelShape.h"
#include "firmware/RoutePlanner.h"

namespace wsc::firmware {

RectRingGemmSchedule::RectRingGemmSchedule(RingOrder::Kind kind, uint32_t mesh_x, uint32_t mesh_y,
                                           uint32_t rows, uint32_t cols, uint32_t m, uint32_t k,
                                           uint32_t n)
    : row_ring_(kind, cols ? cols : 1),
      col_ring_(kind, rows ? rows : 1),
      mesh_x_(mesh_x),
      mesh_y_(mesh_y),
      rows_(rows),
      cols_(cols),
      m_(m),
      k_(k),
      n_(n) {
    const char* algo = kind == RingOrder::Kind::Interleave ? "meshgemm" : "cannon";
    checkKernelBlock(algo, mesh_x, mesh_y, rows, cols);
    l_ = std::lcm(rows, cols);
    checkDivisible(algo, "m", m, rows), checkDivisible(algo, "n", n, cols);
    checkDivisible(algo, "k (lcm of the mesh sides)", k, l_);
    tm_ = m / rows, tk_ = k / l_, tn_ = n / cols;
}

KernelPlan RectRingGemmSchedule::build(noc::Network& net) const {
    const uint32_t H = rows_, W = cols_, L = l_, bw = L / W, bh = L / H;
    KernelPlan plan;
    plan.algo = row_ring_.kind() == RingOrder::Kind::Interleave ? "meshgemm" : "cannon";
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    auto id = [&](uint32_t y, uint32_t x) { return y * mesh_x_ + x; };
    const uint64_t a_bytes = uint64_t(tm_) * tk_ * 4, b_bytes = uint64_t(tk_) * tn_ * 4;
    const uint32_t nc = H * W;

    std::vector<RoutePlanner::Path> a_path(nc), b_path(nc);
    for (uint32_t y = 0; y < H; ++y)
        for (uint32_t x = 0; x < W; ++x) {
            if (W > 1) a_path[y * W + x] = rp.unicast(id(y, x), id(y, row_ring_.prev(x)));
            if (H > 1) b_path[y * W + x] = rp.unicast(id(y, x), id(col_ring_.prev(y), x));
        }

    // Circular slot buffers: bw + 1 for A, bh + 1 for B (one spare takes the incoming block).
    std::vector<std::vector<uint16_t>> As(nc), Bs(nc);
    std::vector<uint16_t> C(nc);
    for (uint32_t y = 0; y < H; ++y)
        for (uint32_t x = 0; x < W; ++x) {
            const uint32_t c = y * W + x;
            Program& prog = plan.fw.program(id(y, x));
            const uint32_t px = row_ring_.position(x), py = col_ring_.position(y);
            for (uint32_t t = 0; t <= bw; ++t)
                As[c].push_back(prog.addBuffer(fmt::format("A{}", t), tm_ * tk_));
            for (uint32_t t = 0; t <= bh; ++t)
                Bs[c].push_back(prog.addBuffer(fmt::format("B{}", t), tk_ * tn_));
            C[c] = prog.addBuffer("C", tm_ * tn_);
            plan.cores.push_back(id(y, x));
            // Slot t of A holds K-block px bw + py bh + t; slot t of B K-block py bh + px bw + t.
            for (uint32_t t = 0; t < bw; ++t)
                plan.a.push_back({id(y, x), fmt::format("A{}", t), y * tm_,
                                  ((px * bw + py * bh + t) % L) * tk_, tm_, tk_});
            for (uint32_t t = 0; t < bh; ++t)
                plan.b.push_back({id(y, x), fmt::format("B{}", t),
                                  ((py * bh + px * bw + t) % L) * tk_, x * tn_, tk_, tn_});
            plan.c.push_back({id(y, x), "C", y * tm_, x * tn_, tm_, tn_});
        }

    // Slot names rotate instead of the data: after each step name t refers to the storage name
    // t + 1 had (bw swaps for A, bh for B: a rename, no copy, no cycle), so name 0 is always the
    // front slot and name b the one the incoming block lands in. The L - 1 steps that shift are
    // then the same instructions every step: one loop body, O(bw + bh) instructions per core
    // (as many as it has slots) instead of O(L).
    auto emitStep = [&](bool shift) {
        const bool sa = shift && W > 1, sb = shift && H > 1;
        // A ring of one core keeps its blocks: the front moves to the back by renaming only
        // when nothing is sent, so single-core rings hold all L blocks (bw = L) and never wrap.
        for (uint32_t c = 0; c < nc; ++c) {
            Program& prog = plan.fw.program(plan.cores[c]);
            if (sa) rp.emitSend(prog, a_path[c], As[c][0], a_bytes);
            if (sb) rp.emitSend(prog, b_path[c], Bs[c][0], b_bytes);
        }
        for (uint32_t c = 0; c < nc; ++c) {
            if (sa) rp.emitRelays(plan.fw, a_path[c], a_bytes);
            if (sb) rp.emitRelays(plan.fw, b_path[c], b_bytes);
        }
        for (uint32_t y = 0; y < H; ++y)
            for (uint32_t x = 0; x < W; ++x) {
                const uint32_t c = y * W + x;
                Program& prog = plan.fw.program(id(y, x));
                if (sa) rp.emitRecv(prog, a_path[y * W + row_ring_.next(x)], As[c][bw], a_bytes);
                if (sb) rp.emitRecv(prog, b_path[col_ring_.next(y) * W + x], Bs[c][bh], b_bytes);
                Instruction g;
                g.op = Opcode::Gemm, g.a = As[c][0], g.b = Bs[c][0], g.c = C[c];
                g.m = tm_, g.k = tk_, g.n = tn_,
                g.flags = Instruction::kAccumulate;  // C starts at zero
                prog.add(g);
                if (!shift) continue;
                Instruction sw;
                sw.op = Opcode::Swap;
                for (uint32_t t = 0; t < bw; ++t)
                    sw.a = As[c][t], sw.b = As[c][t + 1], prog.add(sw);
                for (uint32_t t = 0; t < bh; ++t)
                    sw.a = Bs[c][t], sw.b = Bs[c][t + 1], prog.add(sw);
            }
    };
    if (L > 1) {
        Instruction loop;
        loop.op = Opcode::Loop, loop.n = L - 1;
        for (uint32_t c : plan.cores) plan.fw.program(c).add(loop);
        emitStep(true);
        Instruction end;
        end.op = Opcode::EndLoop;
        for (uint32_t c : plan.cores) plan.fw.program(c).add(end);
    }
    emitStep(false);

    plan.steps = L;
    CriticalPath worst;
    worst.bytes = std::max(W > 1 ? a_bytes : 0, H > 1 ? b_bytes : 0);
    for (const auto* v : {&a_path, &b_path})
        for (const auto& p : *v) {
            if (p.src == p.dst) continue;
            rp.keepWorst(worst, rp.pathOf(p, worst.bytes));
        }
    plan.step_path = worst;
    plan.total_path = {worst.hops * (L - 1), worst.stages * (L - 1), worst.bytes, {}};
    plan.useful_macs = uint64_t(m_) * k_ * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    plan.notes = fmt::format(
        "{}x{} mesh by the lcm rule: K in lcm = {} blocks, {} A and {} B blocks per core, "
        "{} rings, alignment by placement",
        H, W, L, bw, bh,
        row_ring_.kind() == RingOrder::Kind::Interleave ? "interleaved" : "linear (Cannon)");
    return plan;
}

}  // namespace wsc::firmware
