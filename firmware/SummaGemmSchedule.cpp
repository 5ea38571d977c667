#include "firmware/SummaGemmSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include "firmware/KernelShape.h"
#include "firmware/LineBroadcast.h"
#include "firmware/RoutePlanner.h"

namespace wsc::firmware {

SummaGemmSchedule::SummaGemmSchedule(uint32_t mesh_x, uint32_t mesh_y, uint32_t rows, uint32_t cols,
                                     uint32_t m, uint32_t k, uint32_t n, bool gather)
    : mesh_x_(mesh_x), mesh_y_(mesh_y), p_(rows), q_(cols), m_(m), k_(k), n_(n), gather_(gather) {
    const char* algo = gather ? "allgather" : "summa";
    checkKernelBlock(algo, mesh_x, mesh_y, rows, cols);
    l_ = std::lcm(rows, cols);
    checkDivisible(algo, "m", m, rows), checkDivisible(algo, "n", n, cols);
    checkDivisible(algo, rows == cols ? "k" : "k (lcm of the mesh sides)", k, l_);
    tm_ = m / rows, tk_ = k / l_, tn_ = n / cols;
}

KernelPlan SummaGemmSchedule::build(noc::Network& net) const {
    const uint32_t P = p_, Q = q_, L = l_, bw = L / Q, bh = L / P;
    KernelPlan plan;
    plan.algo = gather_ ? "allgather" : "summa";
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    auto id = [&](uint32_t i, uint32_t j) { return i * mesh_x_ + j; };
    const uint64_t a_bytes = uint64_t(tm_) * tk_ * 4, b_bytes = uint64_t(tk_) * tn_ * 4;

    // K-block kk of A row i sits on core (i, kk / bw), of B column j on core (kk / bh, j). One
    // broadcast per (owner, line), made when its first block is due, in step order with rows and
    // columns alternating, so when R runs out it is the late steps of both that fall back to
    // pipelining rather than all of one dimension. An owner's later blocks reuse its route.
    std::vector<std::unique_ptr<LineBroadcast>> row_bc(Q * P),
        col_bc(P * Q);  // [owner * lines + line]
    for (uint32_t kk = 0; kk < L; ++kk)
        for (uint32_t l = 0; l < std::max(P, Q); ++l) {
            if (kk % bw == 0 && l < P) {
                std::vector<uint32_t> row;
                for (uint32_t x = 0; x < Q; ++x) row.push_back(id(l, x));
                row_bc[(kk / bw) * P + l] = std::make_unique<LineBroadcast>(rp, row, kk / bw);
            }
            if (kk % bh == 0 && l < Q) {
                std::vector<uint32_t> col;
                for (uint32_t x = 0; x < P; ++x) col.push_back(id(x, l));
                col_bc[(kk / bh) * Q + l] = std::make_unique<LineBroadcast>(rp, col, kk / bh);
            }
        }

    CriticalPath worst;
    for (const auto* v : {&row_bc, &col_bc})
        for (const auto& bc : *v) {
            rp.keepWorst(worst, bc->path(std::max(a_bytes, b_bytes)));
        }

    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < Q; ++j) {
            Program& prog = plan.fw.program(id(i, j));
            // Own blocks: A K-blocks j bw .. j bw + bw - 1, B K-blocks i bh .. i bh + bh - 1
            // (one of each on a square mesh, named as before).
            std::vector<uint16_t> Aown(bw), Bown(bh);
            for (uint32_t t = 0; t < bw; ++t)
                Aown[t] = prog.addBuffer(bw == 1 ? "A" : fmt::format("A{}", t), tm_ * tk_);
            for (uint32_t t = 0; t < bh; ++t)
                Bown[t] = prog.addBuffer(bh == 1 ? "B" : fmt::format("B{}", t), tk_ * tn_);
            const uint16_t C = prog.addBuffer("C", tm_ * tn_);
            // SUMMA: two receive buffers per operand; allgather: one per K-block.
            const uint32_t nbuf = gather_ ? L : 2;
            std::vector<uint16_t> Ar(nbuf), Br(nbuf);
            for (uint32_t x = 0; x < nbuf; ++x) {
                Ar[x] = prog.addBuffer(fmt::format("Ar{}", x), tm_ * tk_);
                Br[x] = prog.addBuffer(fmt::format("Br{}", x), tk_ * tn_);
            }
            plan.cores.push_back(id(i, j));
            for (uint32_t t = 0; t < bw; ++t)
                plan.a.push_back(
                    {id(i, j), prog.buffer(Aown[t]).name, i * tm_, (j * bw + t) * tk_, tm_, tk_});
            for (uint32_t t = 0; t < bh; ++t)
                plan.b.push_back(
                    {id(i, j), prog.buffer(Bown[t]).name, (i * bh + t) * tk_, j * tn_, tk_, tn_});
            plan.c.push_back({id(i, j), "C", i * tm_, j * tn_, tm_, tn_});
            auto gemm = [&](uint32_t kk) {
                Instruction g;
                g.op = Opcode::Gemm, g.c = C, g.m = tm_, g.k = tk_, g.n = tn_;
                g.a = kk / bw == j ? Aown[kk % bw] : Ar[kk % nbuf];
                g.b = kk / bh == i ? Bown[kk % bh] : Br[kk % nbuf];
                g.flags = Instruction::kAccumulate;
                prog.add(g);
            };
            for (uint32_t kk = 0; kk < L; ++kk) {
                row_bc[(kk / bw) * P + i]->emit(prog, j, Aown[kk % bw], Ar[kk % nbuf], a_bytes);
                col_bc[(kk / bh) * Q + j]->emit(prog, i, Bown[kk % bh], Br[kk % nbuf], b_bytes);
                if (!gather_) gemm(kk);
            }
            if (gather_)
                for (uint32_t kk = 0; kk < L; ++kk) gemm(kk);
        }

    plan.steps = L;
    plan.step_path = worst;
    plan.total_path = {worst.hops * L, worst.stages * L, worst.bytes, {}};
    plan.useful_macs = uint64_t(m_) * k_ * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.rejected_multicasts = rp.rejectedMulticasts();
    plan.notes =
        fmt::format("{} of {} line broadcasts on multicast routes, the rest pipelined core to core",
                    rp.directRoutes(), 2 * P * Q);
    if (P != Q)
        plan.notes += fmt::format("; {}x{} mesh: K in lcm = {} blocks, {} A and {} B per core", P,
                                  Q, L, bw, bh);
    return plan;
}

}  // namespace wsc::firmware
