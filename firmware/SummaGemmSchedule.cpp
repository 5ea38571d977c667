#include "firmware/SummaGemmSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "firmware/KernelShape.h"
#include "firmware/LineBroadcast.h"
#include "firmware/RoutePlanner.h"

namespace wsc::firmware {

SummaGemmSchedule::SummaGemmSchedule(uint32_t mesh_x, uint32_t mesh_y, uint32_t p, uint32_t m,
                                     uint32_t k, uint32_t n, bool gather)
    : mesh_x_(mesh_x), mesh_y_(mesh_y), p_(p), m_(m), k_(k), n_(n), gather_(gather) {
    const char* algo = gather ? "allgather" : "summa";
    checkKernelMesh(algo, mesh_x, mesh_y, p);
    checkDivisible(algo, "m", m, p), checkDivisible(algo, "k", k, p),
        checkDivisible(algo, "n", n, p);
    tm_ = m / p, tk_ = k / p, tn_ = n / p;
}

KernelPlan SummaGemmSchedule::build(noc::Network& net) const {
    const uint32_t P = p_;
    KernelPlan plan;
    plan.algo = gather_ ? "allgather" : "summa";
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    auto id = [&](uint32_t i, uint32_t j) { return i * mesh_x_ + j; };
    const uint64_t a_bytes = uint64_t(tm_) * tk_ * 4, b_bytes = uint64_t(tk_) * tn_ * 4;

    // Routes in step order, rows and columns alternating, so when R runs out it is the late
    // steps of both that fall back to pipelining rather than all of one dimension.
    std::vector<std::unique_ptr<LineBroadcast>> row_bc(P * P), col_bc(P * P);  // [kk * P + line]
    for (uint32_t kk = 0; kk < P; ++kk)
        for (uint32_t l = 0; l < P; ++l) {
            std::vector<uint32_t> row, col;
            for (uint32_t x = 0; x < P; ++x) row.push_back(id(l, x)), col.push_back(id(x, l));
            row_bc[kk * P + l] = std::make_unique<LineBroadcast>(rp, row, kk);
            col_bc[kk * P + l] = std::make_unique<LineBroadcast>(rp, col, kk);
        }

    CriticalPath worst;
    for (const auto* v : {&row_bc, &col_bc})
        for (const auto& bc : *v) {
            const CriticalPath p = bc->path(std::max(a_bytes, b_bytes));
            worst.hops = std::max(worst.hops, p.hops),
            worst.stages = std::max(worst.stages, p.stages);
            worst.bytes = p.bytes;
        }

    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            Program& prog = plan.fw.program(id(i, j));
            const uint16_t Aown = prog.addBuffer("A", tm_ * tk_),
                           Bown = prog.addBuffer("B", tk_ * tn_);
            const uint16_t C = prog.addBuffer("C", tm_ * tn_);
            // SUMMA: two receive buffers per operand; allgather: one per remote block.
            const uint32_t nbuf = gather_ ? P : 2;
            std::vector<uint16_t> Ar(nbuf), Br(nbuf);
            for (uint32_t x = 0; x < nbuf; ++x) {
                Ar[x] = prog.addBuffer(fmt::format("Ar{}", x), tm_ * tk_);
                Br[x] = prog.addBuffer(fmt::format("Br{}", x), tk_ * tn_);
            }
            plan.cores.push_back(id(i, j));
            plan.a.push_back({id(i, j), "A", i * tm_, j * tk_, tm_, tk_});
            plan.b.push_back({id(i, j), "B", i * tk_, j * tn_, tk_, tn_});
            plan.c.push_back({id(i, j), "C", i * tm_, j * tn_, tm_, tn_});
            auto gemm = [&](uint32_t kk) {
                Instruction g;
                g.op = Opcode::Gemm, g.c = C, g.m = tm_, g.k = tk_, g.n = tn_;
                g.a = kk == j ? Aown : Ar[kk % nbuf];
                g.b = kk == i ? Bown : Br[kk % nbuf];
                g.flags = Instruction::kAccumulate;
                prog.add(g);
            };
            for (uint32_t kk = 0; kk < P; ++kk) {
                row_bc[kk * P + i]->emit(prog, j, Aown, Ar[kk % nbuf], a_bytes);
                col_bc[kk * P + j]->emit(prog, i, Bown, Br[kk % nbuf], b_bytes);
                if (!gather_) gemm(kk);
            }
            if (gather_)
                for (uint32_t kk = 0; kk < P; ++kk) gemm(kk);
        }

    plan.steps = P;
    plan.step_path = worst;
    plan.total_path = {worst.hops * P, worst.stages * P, worst.bytes};
    plan.useful_macs = uint64_t(m_) * k_ * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.rejected_multicasts = rp.rejectedMulticasts();
    plan.notes =
        fmt::format("{} of {} line broadcasts on multicast routes, the rest pipelined core to core",
                    rp.directRoutes(), 2 * P * P);
    return plan;
}

}  // namespace wsc::firmware
