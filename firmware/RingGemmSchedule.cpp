#include "firmware/RingGemmSchedule.h"

#include <fmt/format.h>

#include <algorithm>

#include "firmware/KernelShape.h"
#include "firmware/RoutePlanner.h"

namespace wsc::firmware {

RingGemmSchedule::RingGemmSchedule(RingOrder::Kind ring, uint32_t mesh_x, uint32_t mesh_y,
                                   uint32_t p, uint32_t m, uint32_t k, uint32_t n,
                                   bool shift_alignment, bool b_placed)
    : ring_(ring, p ? p : 1),
      mesh_x_(mesh_x),
      mesh_y_(mesh_y),
      p_(p),
      m_(m),
      k_(k),
      n_(n),
      shift_align_(shift_alignment),
      b_placed_(b_placed) {
    const char* algo = ring == RingOrder::Kind::Interleave ? "meshgemm" : "cannon";
    checkKernelMesh(algo, mesh_x, mesh_y, p);
    checkDivisible(algo, "m", m, p), checkDivisible(algo, "k", k, p),
        checkDivisible(algo, "n", n, p);
    tm_ = m / p, tk_ = k / p, tn_ = n / p;
}

KernelPlan RingGemmSchedule::build(noc::Network& net) const {
    const uint32_t P = p_;
    const bool mesh = ring_.kind() == RingOrder::Kind::Interleave;
    KernelPlan plan;
    plan.algo = mesh ? "meshgemm" : "cannon";
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    auto id = [&](uint32_t i, uint32_t j) { return i * mesh_x_ + j; };
    const uint64_t a_bytes = uint64_t(tm_) * tk_ * 4, b_bytes = uint64_t(tk_) * tn_ * 4;

    // Routes: A goes to the predecessor in the row ring, B to the predecessor in the column ring.
    std::vector<RoutePlanner::Path> a_path(P * P), b_path(P * P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            a_path[i * P + j] = rp.unicast(id(i, j), id(i, ring_.prev(j)));
            b_path[i * P + j] = rp.unicast(id(i, j), id(ring_.prev(i), j));
        }

    std::vector<uint16_t> A0(P * P), A1(P * P), B0(P * P), B1(P * P), C(P * P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            Program& prog = plan.fw.program(id(i, j));
            A0[i * P + j] = prog.addBuffer("A0", tm_ * tk_),
                       A1[i * P + j] = prog.addBuffer("A1", tm_ * tk_);
            B0[i * P + j] = prog.addBuffer("B0", tk_ * tn_),
                       B1[i * P + j] = prog.addBuffer("B1", tk_ * tn_);
            C[i * P + j] = prog.addBuffer("C", tm_ * tn_);
            plan.cores.push_back(id(i, j));
            // Initial blocks: unaligned A(i, j), B(i, j), or already aligned.
            const uint32_t kk =
                shift_align_ ? 0 : ring_.at(uint64_t(ring_.position(i)) + ring_.position(j));
            plan.a.push_back({id(i, j), "A0", i * tm_, (shift_align_ ? j : kk) * tk_, tm_, tk_});
            const uint32_t kb = b_placed_
                                    ? ring_.at(uint64_t(ring_.position(i)) + ring_.position(j))
                                : shift_align_ ? i
                                               : kk;
            plan.b.push_back({id(i, j), "B0", kb * tk_, j * tn_, tk_, tn_});
            plan.c.push_back({id(i, j), "C", i * tm_, j * tn_, tm_, tn_});
        }

    // One shift of A (if `a`) and B (if `b`) on every core of the block, in one global order so
    // relays land in every program in the same sequence: sends, relays, receives. A0/B0 name the
    // current tiles, A1/B1 the incoming ones; a core that shifted swaps the names afterwards
    // (a rename, no copy and no cycle), so the same instructions serve every step.
    auto ins = [](Opcode op, uint16_t a, uint16_t b) {
        Instruction i;
        i.op = op, i.a = a, i.b = b;
        return i;
    };
    auto shift = [&](const std::vector<uint8_t>& do_a, const std::vector<uint8_t>& do_b,
                     bool compute) {
        for (uint32_t c = 0; c < P * P; ++c) {
            Program& prog = plan.fw.program(plan.cores[c]);
            if (do_a[c]) rp.emitSend(prog, a_path[c], A0[c], a_bytes);
            if (do_b[c]) rp.emitSend(prog, b_path[c], B0[c], b_bytes);
        }
        for (uint32_t c = 0; c < P * P; ++c) {
            if (do_a[c]) rp.emitRelays(plan.fw, a_path[c], a_bytes);
            if (do_b[c]) rp.emitRelays(plan.fw, b_path[c], b_bytes);
        }
        for (uint32_t i = 0; i < P; ++i)
            for (uint32_t j = 0; j < P; ++j) {
                const uint32_t c = i * P + j;
                Program& prog = plan.fw.program(id(i, j));
                // The tile comes from the ring successor, whose path ends here.
                const uint32_t sa = i * P + ring_.next(j), sb = ring_.next(i) * P + j;
                if (do_a[c]) rp.emitRecv(prog, a_path[sa], A1[c], a_bytes);
                if (do_b[c]) rp.emitRecv(prog, b_path[sb], B1[c], b_bytes);
                if (compute) {
                    Instruction g;
                    g.op = Opcode::Gemm, g.a = A0[c], g.b = B0[c], g.c = C[c];
                    g.m = tm_, g.k = tk_, g.n = tn_,
                    g.flags = Instruction::kAccumulate;  // C starts at zero
                    prog.add(g);
                }
                if (do_a[c]) prog.add(ins(Opcode::Swap, A0[c], A1[c]));
                if (do_b[c]) prog.add(ins(Opcode::Swap, B0[c], B1[c]));
            }
    };

    uint32_t align_steps = 0;
    if (shift_align_) {
        // Row i needs pos(i) shifts of A, column j needs pos(j) shifts of B. Unrolled (O(P)
        // instructions): the count differs per core while relays must keep one global order.
        for (uint32_t s = 0; s + 1 < P; ++s) {
            std::vector<uint8_t> da(P * P), db(P * P);
            bool any = false;
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < P; ++j) {
                    da[i * P + j] = s < ring_.position(i);
                    db[i * P + j] = !b_placed_ && s < ring_.position(j);
                    any |= da[i * P + j] || db[i * P + j];
                }
            if (!any) break;
            shift(da, db, false);
            ++align_steps;
        }
    }
    // P compute-shift steps; the last only computes. The P - 1 that shift are one loop body
    // (every core does the same step on renamed buffers), so a core's program is O(1) in P.
    const std::vector<uint8_t> all(P * P, 1), none(P * P, 0);
    if (P > 1) {
        Instruction loop;
        loop.op = Opcode::Loop, loop.n = P - 1;
        for (uint32_t c : plan.cores) plan.fw.program(c).add(loop);
        shift(all, all, true);
        for (uint32_t c : plan.cores) plan.fw.program(c).add(ins(Opcode::EndLoop, kNoBuf, kNoBuf));
    }
    shift(none, none, true);

    plan.steps = P + align_steps;
    CriticalPath worst;
    worst.bytes = std::max(a_bytes, b_bytes);
    for (const auto* v : {&a_path, &b_path})
        for (const auto& p : *v) rp.keepWorst(worst, rp.pathOf(p, worst.bytes));
    plan.step_path = worst;
    plan.total_path = {
        worst.hops * (plan.steps - 1), worst.stages * (plan.steps - 1), worst.bytes, {}};
    plan.useful_macs = uint64_t(m_) * k_ * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    plan.notes = fmt::format("{} ring (longest logical hop {} physical hops), alignment {}",
                             mesh ? "interleaved" : "linear", ring_.maxHop(),
                             shift_align_ ? fmt::format("by {} shift steps{}", align_steps,
                                                        b_placed_ ? " of A (B placed aligned)" : "")
                                          : "by placement");
    return plan;
}

}  // namespace wsc::firmware
