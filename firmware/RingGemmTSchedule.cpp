#include "firmware/RingGemmTSchedule.h"

#include <fmt/format.h>

#include <algorithm>

#include "firmware/KernelShape.h"
#include "firmware/RoutePlanner.h"

namespace wsc::firmware {

RingGemmTSchedule::RingGemmTSchedule(uint32_t mesh_x, uint32_t mesh_y, uint32_t p, uint32_t m,
                                     uint32_t k, uint32_t n)
    : ring_(RingOrder::Kind::Interleave, p ? p : 1),
      mesh_x_(mesh_x),
      mesh_y_(mesh_y),
      p_(p),
      m_(m),
      k_(k),
      n_(n) {
    const char* algo = "meshgemm-t";
    checkKernelMesh(algo, mesh_x, mesh_y, p);
    checkDivisible(algo, "m", m, p), checkDivisible(algo, "k", k, p),
        checkDivisible(algo, "n", n, p);
    tm_ = m / p, tk_ = k / p, tn_ = n / p;
}

KernelPlan RingGemmTSchedule::build(noc::Network& net) const {
    const uint32_t P = p_;
    KernelPlan plan;
    plan.algo = "meshgemm-t";
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    auto id = [&](uint32_t i, uint32_t j) { return i * mesh_x_ + j; };
    const uint64_t b_bytes = uint64_t(tn_) * tk_ * 4, c_bytes = uint64_t(tm_) * tn_ * 4;
    const uint32_t c_elems = tm_ * tn_;

    // Routes: B to the predecessor in the column ring, partials to the predecessor in the row ring.
    std::vector<RoutePlanner::Path> b_path(P * P), c_path(P * P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            if (P == 1) continue;
            b_path[i * P + j] = rp.unicast(id(i, j), id(ring_.prev(i), j));
            c_path[i * P + j] = rp.unicast(id(i, j), id(i, ring_.prev(j)));
        }

    std::vector<uint16_t> A(P * P), B0(P * P), B1(P * P), T(P * P), R(P * P), C(P * P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            Program& prog = plan.fw.program(id(i, j));
            const uint32_t c = i * P + j;
            A[c] = prog.addBuffer("A", tm_ * tk_);
            B0[c] = prog.addBuffer("B0", tn_ * tk_), B1[c] = prog.addBuffer("B1", tn_ * tk_);
            T[c] = prog.addBuffer("T", c_elems), R[c] = prog.addBuffer("R", c_elems);
            C[c] = prog.addBuffer("C", c_elems);
            plan.cores.push_back(id(i, j));
            plan.a.push_back({id(i, j), "A", i * tm_, j * tk_, tm_, tk_});
            plan.b.push_back({id(i, j), "B0", i * tn_, j * tk_, tn_, tk_});  // B is [n x k]
            plan.c.push_back({id(i, j), "C", i * tm_, j * tn_, tm_, tn_});
        }

    std::vector<uint8_t> pb(P * P, 0);  // which buffer holds the current B tile
    for (uint32_t s = 0; s < P; ++s) {
        const bool shift = s + 1 < P;
        // B shift (double-buffered, overlapping this step's multiply): sends, relays, receives.
        if (shift) {
            for (uint32_t c = 0; c < P * P; ++c)
                rp.emitSend(plan.fw.program(plan.cores[c]), b_path[c], pb[c] ? B1[c] : B0[c],
                            b_bytes);
            for (uint32_t c = 0; c < P * P; ++c) rp.emitRelays(plan.fw, b_path[c], b_bytes);
            for (uint32_t i = 0; i < P; ++i)
                for (uint32_t j = 0; j < P; ++j) {
                    const uint32_t c = i * P + j;
                    rp.emitRecv(plan.fw.program(id(i, j)), b_path[ring_.next(i) * P + j],
                                pb[c] ? B0[c] : B1[c], b_bytes);
                }
        }
        // Partial products: T = A(i, j) * B(r, j)^T (into C directly on a 1 x 1 mesh).
        for (uint32_t c = 0; c < P * P; ++c) {
            Instruction g;
            g.op = Opcode::Gemm, g.a = A[c], g.b = pb[c] ? B1[c] : B0[c],
            g.c = P == 1 ? C[c] : T[c];
            g.m = tm_, g.k = tk_, g.n = tn_, g.flags = Instruction::kTransB;
            plan.fw.program(plan.cores[c]).add(g);
        }
        // ReduceAdd along every row ring into core (i, r), each message to the ring predecessor:
        // the chain visits ring positions pos(r) - 1, pos(r) - 2, ..., pos(r) + 1, then r itself.
        if (P > 1)
            for (uint32_t i = 0; i < P; ++i) {
                const uint32_t r = ring_.at(uint64_t(ring_.position(i)) + s);
                const uint32_t root_pos = ring_.position(r);
                for (uint32_t t = 0; t < P; ++t) {
                    const uint32_t j =
                        ring_.at(uint64_t(root_pos) + P - 1 - t);  // t-th core of the chain
                    const uint32_t c = i * P + j;
                    Program& prog = plan.fw.program(id(i, j));
                    if (t > 0) {
                        const uint32_t from = i * P + ring_.next(j);
                        rp.emitRecv(prog, c_path[from], R[c], c_bytes);
                        Instruction add;
                        add.op = Opcode::VAdd, add.a = T[c], add.b = R[c],
                        add.c = t + 1 == P ? C[c] : T[c];
                        add.n = c_elems;
                        prog.add(add);
                    }
                    if (t + 1 < P) {
                        rp.emitSend(prog, c_path[c], T[c], c_bytes);
                        rp.emitRelays(plan.fw, c_path[c], c_bytes);
                    }
                }
            }
        for (uint32_t c = 0; c < P * P; ++c) pb[c] ^= uint8_t(shift);
    }

    plan.steps = P;
    CriticalPath worst;
    worst.bytes = std::max(b_bytes, c_bytes);
    for (const auto* v : {&b_path, &c_path})
        for (const auto& p : *v) {
            worst.hops = std::max(worst.hops, p.hops);
            worst.stages = std::max<uint32_t>(worst.stages, 1 + uint32_t(p.relays.size()));
        }
    if (P == 1) worst = {};
    plan.step_path = worst;
    // Per step: one B shift overlapped with the multiply, and a P - 1 message reduce chain.
    plan.total_path = {worst.hops * P * (P > 1 ? P - 1 : 0), worst.stages * P * (P > 1 ? P - 1 : 0),
                       worst.bytes};
    plan.useful_macs = uint64_t(m_) * k_ * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    plan.notes = fmt::format(
        "interleaved rings (longest logical hop {} physical hops), B shifted along columns, "
        "partials reduce-added along rows, no transpose, no alignment",
        ring_.maxHop());
    return plan;
}

}  // namespace wsc::firmware
