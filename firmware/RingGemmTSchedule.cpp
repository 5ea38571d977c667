#include "firmware/RingGemmTSchedule.h"

#include <fmt/format.h>

#include <algorithm>

#include "firmware/KernelShape.h"
#include "firmware/RoutePlanner.h"
#include "firmware/TreeReduce.h"

namespace wsc::firmware {

RingGemmTSchedule::RingGemmTSchedule(uint32_t mesh_x, uint32_t mesh_y, uint32_t p, uint32_t m,
                                     uint32_t k, uint32_t n, uint32_t tree_k)
    : ring_(RingOrder::Kind::Interleave, p ? p : 1),
      mesh_x_(mesh_x),
      mesh_y_(mesh_y),
      p_(p),
      m_(m),
      k_(k),
      n_(n),
      tree_k_(tree_k) {
    const char* algo = "meshgemm-t";
    checkKernelMesh(algo, mesh_x, mesh_y, p);
    if (tree_k == 0) throw std::invalid_argument("meshgemm-t: the reduce tree needs K >= 1 levels");
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

    // Routes: B to the predecessor in the column ring; the reduce trees lay theirs as they go.
    std::vector<RoutePlanner::Path> b_path(P * P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j)
            if (P > 1) b_path[i * P + j] = rp.unicast(id(i, j), id(ring_.prev(i), j));

    std::vector<uint16_t> A(P * P), B0(P * P), B1(P * P), C(P * P);
    // Two partial buffers (T0, T1) so step s's multiply runs while step s - 1's partials are
    // reduced; both share the two receive buffers.
    std::vector<TreeReduce::Buffers> red[2] = {std::vector<TreeReduce::Buffers>(P * P),
                                               std::vector<TreeReduce::Buffers>(P * P)};
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            Program& prog = plan.fw.program(id(i, j));
            const uint32_t c = i * P + j;
            A[c] = prog.addBuffer("A", tm_ * tk_);
            B0[c] = prog.addBuffer("B0", tn_ * tk_), B1[c] = prog.addBuffer("B1", tn_ * tk_);
            red[0][c].part = prog.addBuffer("T0", c_elems);
            red[1][c].part = prog.addBuffer("T1", c_elems);
            red[0][c].r0 = red[1][c].r0 = prog.addBuffer("R0", c_elems);
            red[0][c].r1 = red[1][c].r1 = prog.addBuffer("R1", c_elems);
            C[c] = prog.addBuffer("C", c_elems);
            plan.cores.push_back(id(i, j));
            plan.a.push_back({id(i, j), "A", i * tm_, j * tk_, tm_, tk_});
            plan.b.push_back({id(i, j), "B0", i * tn_, j * tk_, tn_, tk_});  // B is [n x k]
            plan.c.push_back({id(i, j), "C", i * tm_, j * tn_, tm_, tn_});
        }

    // One tree per root column: row i's root at step s is r = ring.at(pos(i) + s).
    std::vector<ReduceTree> trees;
    for (uint32_t r = 0; r < P; ++r) trees.push_back(ReduceTree::kTree(P, tree_k_, r));
    TreeReduce reduce(rp);
    // ReduceAdd of step s's partials (T[s % 2]) in every row into core (i, r); the root's last add
    // writes C(i, r).
    auto emitReduce = [&](uint32_t s) {
        if (P == 1) return;
        for (uint32_t i = 0; i < P; ++i) {
            const uint32_t r = ring_.at(uint64_t(ring_.position(i)) + s);
            std::vector<uint32_t> row(P);
            for (uint32_t j = 0; j < P; ++j) row[j] = id(i, j);
            const std::vector<TreeReduce::Buffers> rb(red[s % 2].begin() + i * P,
                                                      red[s % 2].begin() + (i + 1) * P);
            reduce.emit(plan.fw, trees[r], row, rb, c_elems, C[i * P + r]);
        }
    };
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
        // Partial products: T[s % 2] = A(i, j) * B(r, j)^T (into C directly on a 1 x 1 mesh).
        for (uint32_t c = 0; c < P * P; ++c) {
            Instruction g;
            g.op = Opcode::Gemm, g.a = A[c], g.b = pb[c] ? B1[c] : B0[c],
            g.c = P == 1 ? C[c] : red[s % 2][c].part;
            g.m = tm_, g.k = tk_, g.n = tn_, g.flags = Instruction::kTransB;
            plan.fw.program(plan.cores[c]).add(g);
        }
        // The previous step's ReduceAdd goes after this multiply in every core's in-order stream,
        // so it overlaps the multiply instead of holding it back.
        if (s > 0) emitReduce(s - 1);
        for (uint32_t c = 0; c < P * P; ++c) pb[c] ^= uint8_t(shift);
    }
    emitReduce(P - 1);

    plan.steps = P;
    // A step's critical path is its ReduceAdd (the B shift overlaps the multiply): the worst
    // tree over all roots, on the routes actually laid.
    CriticalPath worst;
    if (P > 1) {
        std::vector<uint32_t> row0(P);
        for (uint32_t j = 0; j < P; ++j) row0[j] = id(0, j);
        for (const ReduceTree& t : trees) {
            rp.keepWorst(worst, reduce.path(t, row0, c_bytes));
        }
    }
    plan.step_path = worst;
    plan.total_path = {worst.hops * P, worst.stages * P, worst.bytes, {}};
    plan.useful_macs = uint64_t(m_) * k_ * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    plan.notes = fmt::format(
        "interleaved column rings (longest logical hop {} physical hops) shift B, partials "
        "reduce-added along rows by a K = {} tree ({}), no transpose, no alignment",
        ring_.maxHop(), tree_k_, P > 1 ? trees[0].describe() : "none");
    return plan;
}

}  // namespace wsc::firmware
