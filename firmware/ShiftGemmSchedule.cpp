#include "firmware/ShiftGemmSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace wsc::firmware {

ShiftGemmSchedule::ShiftGemmSchedule(uint32_t mesh_x, uint32_t mesh_y, const GemmWorkload& w)
    : mesh_x_(mesh_x), mesh_y_(mesh_y), p_(w.mesh ? w.mesh : std::min(mesh_x, mesh_y)) {
    if (p_ == 0 || p_ > mesh_x || p_ > mesh_y)
        throw std::invalid_argument(fmt::format(
            "gemm: a {0}x{0} core block does not fit the {1}x{2} mesh", p_, mesh_x, mesh_y));
    if (w.m == 0 || w.k == 0 || w.n == 0 || w.m % p_ || w.k % p_ || w.n % p_)
        throw std::invalid_argument(fmt::format(
            "gemm: m, k and n ({}, {}, {}) must be positive multiples of the core block side {}",
            w.m, w.k, w.n, p_));
    tm_ = w.m / p_, tk_ = w.k / p_, tn_ = w.n / p_;
    // A buffer holds at most 2^32 - 1 elements (BufferDecl::elems): a bigger tile would wrap
    // (a 2^40-byte tile became "0 bytes").
    for (const uint64_t elems : {uint64_t(tm_) * tk_, uint64_t(tk_) * tn_, uint64_t(tm_) * tn_})
        if (elems > UINT32_MAX)
            throw std::invalid_argument(fmt::format(
                "gemm: a {}x{}x{} tile per core needs buffers of {} elements, more than a core's "
                "buffer can hold (2^32 - 1); use a larger core block (mesh)",
                tm_, tk_, tn_, elems));
    b_base_ = a_base_ + uint64_t(p_) * p_ * tileBytes(tm_, tk_);
    c_base_ = b_base_ + uint64_t(p_) * p_ * tileBytes(tk_, tn_);
}

Firmware ShiftGemmSchedule::build() const {
    Firmware fw(mesh_x_ * mesh_y_);
    const uint32_t P = p_;
    for (uint32_t i = 0; i < P; ++i) {
        for (uint32_t j = 0; j < P; ++j) {
            Program& prog = fw.program(core(i, j));
            const uint16_t A[2] = {prog.addBuffer("A0", tm_ * tk_),
                                   prog.addBuffer("A1", tm_ * tk_)};
            const uint16_t B[2] = {prog.addBuffer("B0", tk_ * tn_),
                                   prog.addBuffer("B1", tk_ * tn_)};
            const uint16_t C = prog.addBuffer("C", tm_ * tn_);
            const uint32_t left = core(i, (j + P - 1) % P), right = core(i, (j + 1) % P);
            const uint32_t up = core((i + P - 1) % P, j), down = core((i + 1) % P, j);
            const uint64_t a_bytes = tileBytes(tm_, tk_), b_bytes = tileBytes(tk_, tn_);

            Instruction ld;
            ld.op = Opcode::DmaLoad;
            ld.c = A[0], ld.addr = aTile(i, (i + j) % P), ld.bytes = a_bytes;
            prog.add(ld);
            ld.c = B[0], ld.addr = bTile((i + j) % P, j), ld.bytes = b_bytes;
            prog.add(ld);

            auto step = [&](uint32_t s, bool shift) {
                const uint32_t cur = s % 2, nxt = 1 - cur;
                if (shift) {
                    Instruction x;
                    x.op = Opcode::Send, x.a = A[cur], x.peer = left, x.bytes = a_bytes;
                    prog.add(x);
                    x.a = B[cur], x.peer = up, x.bytes = b_bytes;
                    prog.add(x);
                    Instruction r;
                    r.op = Opcode::Recv, r.c = A[nxt], r.peer = right, r.bytes = a_bytes;
                    prog.add(r);
                    r.c = B[nxt], r.peer = down, r.bytes = b_bytes;
                    prog.add(r);
                }
                Instruction g;
                g.op = Opcode::Gemm, g.a = A[cur], g.b = B[cur], g.c = C;
                g.m = tm_, g.k = tk_, g.n = tn_;
                g.flags = Instruction::kAccumulate;  // C starts at zero
                prog.add(g);
            };
            // Steps 0 .. P-2 shift; the last one only computes. Pairs of steps share one loop
            // body so the double buffers alternate inside it and the program stays O(1) in P.
            const uint32_t pairs = (P - 1) / 2;
            if (pairs > 0) {
                Instruction l;
                l.op = Opcode::Loop, l.n = pairs;
                prog.add(l);
                step(0, true);
                step(1, true);
                Instruction e;
                e.op = Opcode::EndLoop;
                prog.add(e);
            }
            for (uint32_t s = 2 * pairs; s < P; ++s) step(s, s + 1 < P);

            Instruction st;
            st.op = Opcode::DmaStore;
            st.a = C, st.addr = cTile(i, j), st.bytes = tileBytes(tm_, tn_);
            prog.add(st);
        }
    }
    return fw;
}

}  // namespace wsc::firmware
