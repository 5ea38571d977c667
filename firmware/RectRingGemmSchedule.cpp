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

    for (uint32_t s = 0; s < L; ++s) {
        const bool shift = s + 1 < L;
        // At step s the front slot is s mod (b + 1); the incoming block goes to (s + b) mod (b +
        // 1).
        const uint32_t fa = s % (bw + 1), ia = (s + bw) % (bw + 1);
        const uint32_t fb = s % (bh + 1), ib = (s + bh) % (bh + 1);
        const bool sa = shift && W > 1, sb = shift && H > 1;
        // A ring of one core keeps its blocks: the front moves to the back by renaming only
        // when nothing is sent, so single-core rings hold all L blocks (bw = L) and never wrap.
        for (uint32_t c = 0; c < nc; ++c) {
            Program& prog = plan.fw.program(plan.cores[c]);
            if (sa) rp.emitSend(prog, a_path[c], As[c][fa], a_bytes);
            if (sb) rp.emitSend(prog, b_path[c], Bs[c][fb], b_bytes);
        }
        for (uint32_t c = 0; c < nc; ++c) {
            if (sa) rp.emitRelays(plan.fw, a_path[c], a_bytes);
            if (sb) rp.emitRelays(plan.fw, b_path[c], b_bytes);
        }
        for (uint32_t y = 0; y < H; ++y)
            for (uint32_t x = 0; x < W; ++x) {
                const uint32_t c = y * W + x;
                Program& prog = plan.fw.program(id(y, x));
                if (sa) rp.emitRecv(prog, a_path[y * W + row_ring_.next(x)], As[c][ia], a_bytes);
                if (sb) rp.emitRecv(prog, b_path[col_ring_.next(y) * W + x], Bs[c][ib], b_bytes);
                Instruction g;
                g.op = Opcode::Gemm, g.a = As[c][fa], g.b = Bs[c][fb], g.c = C[c];
                g.m = tm_, g.k = tk_, g.n = tn_,
                g.flags = Instruction::kAccumulate;  // C starts at zero
                prog.add(g);
            }
    }

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
