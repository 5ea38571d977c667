// PE-array cycles against the fold model (SCALE-Sim's fill + stream + drain per fold):
// hand-computed values over a table of (shape, dataflow, array size, MACs/cycle, dtype), an
// independent fold-by-fold sum, and the cycles a core actually spends on one GEMM instruction.
#include <catch2/catch.hpp>

#include "../noc/NocTestUtil.h"
#include "core/CoreArray.h"
#include "core/PeArray.h"

using namespace wsc;
using core::DataflowKind;
using firmware::DType;

namespace {

struct Case {
    uint32_t rows, cols;
    DataflowKind df;
    uint32_t m, k, n;
    uint32_t macs_per_cycle;
    DType dtype;
    uint64_t expected;  // worked out by hand in the comment
};

// Fold by fold: every (row fold, column fold) uses r <= R rows and c <= C columns and takes
// (r - 1 + c - 1) fill + T' stream + r drain cycles.
uint64_t foldByFold(const Case& t) {
    uint64_t sr, sc, T;
    switch (t.df) {
        case DataflowKind::OutputStationary:
            sr = t.m, sc = t.n, T = t.k;
            break;
        case DataflowKind::WeightStationary:
            sr = t.k, sc = t.n, T = t.m;
            break;
        default:
            sr = t.k, sc = t.m, T = t.n;
            break;
    }
    const uint64_t per = uint64_t(t.macs_per_cycle) * 32;
    const uint64_t stream =
        std::max<uint64_t>(1, (T * firmware::dtypeBits(t.dtype) + per - 1) / per);
    uint64_t total = 0;
    for (uint64_t r0 = 0; r0 < sr; r0 += t.rows)
        for (uint64_t c0 = 0; c0 < sc; c0 += t.cols) {
            const uint64_t r = std::min<uint64_t>(t.rows, sr - r0),
                           c = std::min<uint64_t>(t.cols, sc - c0);
            total += (r - 1 + c - 1) + stream + r;
        }
    return total;
}

const Case kCases[] = {
    // 4x4 OS 16x16x16: S_R=16 S_C=16 T=16, 4x4 folds: 2*16*4 + 16*4 + 16*14 = 416
    {4, 4, DataflowKind::OutputStationary, 16, 16, 16, 1, DType::FP32, 416},
    {4, 4, DataflowKind::WeightStationary, 16, 16, 16, 1, DType::FP32, 416},
    {4, 4, DataflowKind::InputStationary, 16, 16, 16, 1, DType::FP32, 416},
    // ragged: OS 5x7x3: folds (4 rows, 3 cols) 16 + (1, 3) 10 = 26
    {4, 4, DataflowKind::OutputStationary, 5, 7, 3, 1, DType::FP32, 26},
    // WS 5x7x3: S_R=k=7, S_C=3, T=5: (4,3) 14 + (3,3) 12 = 26
    {4, 4, DataflowKind::WeightStationary, 5, 7, 3, 1, DType::FP32, 26},
    // IS 5x7x3: S_R=k=7, S_C=m=5, T=3: (4,4) 13 + (4,1) 10 + (3,4) 11 + (3,1) 8 = 42
    {4, 4, DataflowKind::InputStationary, 5, 7, 3, 1, DType::FP32, 42},
    // 8x8 OS 64x32x64: 2*64*8 + 64*8 + 64*30 = 3456
    {8, 8, DataflowKind::OutputStationary, 64, 32, 64, 1, DType::FP32, 3456},
    // fp16 on 32-bit PEs packs two per MAC: T' = 8 for k = 16; 2x8 OS 4x16x8: 2*4 + 8*2 + 2*6 = 36
    {2, 8, DataflowKind::OutputStationary, 4, 16, 8, 1, DType::FP16, 36},
    // 4 MACs per PE per cycle: T' = 64/4 = 16; one fold: 2*4 + 4 + 14 = 26
    {4, 4, DataflowKind::OutputStationary, 4, 64, 4, 4, DType::FP32, 26},
    // a single MAC: fill 0, stream 1, drain 1
    {1, 1, DataflowKind::OutputStationary, 1, 1, 1, 1, DType::FP32, 2},
    // GEMV (m = 1) k=64 n=32: OS 2*1*8 + 32*1 + 8*62 = 544; WS 2*64*8 + 32*16 + 128*(1-2) = 1408
    {4, 4, DataflowKind::OutputStationary, 1, 64, 32, 1, DType::FP32, 544},
    {4, 4, DataflowKind::WeightStationary, 1, 64, 32, 1, DType::FP32, 1408},
    // a wide, short array: 2x16 IS 8x8x100: S_R=8 (4 folds), S_C=8 (1 fold), T=100: 2*8 + 8*4 +
    // 4*98 = 440
    {2, 16, DataflowKind::InputStationary, 8, 8, 100, 1, DType::FP32, 440},
};

}  // namespace

TEST_CASE("PE-array cycles equal the closed-form fold model", "[core][pe]") {
    for (const Case& t : kCases) {
        core::PeArrayParams p;
        p.rows = t.rows, p.cols = t.cols, p.dataflow = t.df, p.macs_per_cycle = t.macs_per_cycle;
        core::PeArray pe(p);
        const core::PeTiming tm = pe.timing(t.m, t.k, t.n, t.dtype);
        INFO(pe.dataflow().name() << " " << t.rows << "x" << t.cols << " array, m=" << t.m
                                  << " k=" << t.k << " n=" << t.n);
        CHECK(tm.cycles == t.expected);
        CHECK(tm.cycles == foldByFold(t));
        CHECK(tm.macs == uint64_t(t.m) * t.k * t.n);
    }
}

TEST_CASE("several arrays share a GEMM's folds and the busiest one sets its time", "[core][pe]") {
    core::PeArrayParams p;
    p.rows = 4, p.cols = 4;
    // OS 8x8x8 on 4x4: 2 x 2 full folds of 2*4 + 4 + 8 - 2 = 18 cycles each.
    p.arrays = 1;
    CHECK(core::PeArray(p).timing(8, 8, 8, DType::FP32).cycles == 4 * 18);
    p.arrays = 4;  // one fold each
    CHECK(core::PeArray(p).timing(8, 8, 8, DType::FP32).cycles == 18);
    CHECK(core::PeArray(p).peakMacsPerCycle() == 64);
    p.arrays = 3;  // folds 0 and 3 on array 0
    CHECK(core::PeArray(p).timing(8, 8, 8, DType::FP32).cycles == 2 * 18);
    p.arrays = 64;  // more arrays than folds: the folds' own time
    CHECK(core::PeArray(p).timing(8, 8, 8, DType::FP32).cycles == 18);
    // Edge folds: OS 6x8x6 on 4x4: folds (4,4) 18, (4,2) 16, (2,4) 14, (2,2) 12; on 2 arrays
    // array 0 takes folds 0 and 2 (18 + 14), array 1 folds 1 and 3 (16 + 12).
    p.arrays = 2;
    CHECK(core::PeArray(p).timing(6, 8, 6, DType::FP32).cycles == 32);
    p.arrays = 0;
    CHECK_THROWS(core::PeArray(p));
}

TEST_CASE("a GEMM instruction occupies the core for exactly the fold-model cycles", "[core][pe]") {
    for (const Case& t : kCases) {
        if (t.dtype != DType::FP32) continue;
        auto np = test::meshParams(1, 1);
        noc::Network net(np);
        core::CoreParams cp;
        cp.pe.rows = t.rows, cp.pe.cols = t.cols, cp.pe.dataflow = t.df,
        cp.pe.macs_per_cycle = t.macs_per_cycle;
        cp.sram.capacity_bytes = 1 << 20;
        core::CoreArray cores(net, cp);
        firmware::Firmware fw(1);
        auto& prog = fw.program(0);
        const uint16_t a = prog.addBuffer("A", t.m * t.k), b = prog.addBuffer("B", t.k * t.n),
                       c = prog.addBuffer("C", t.m * t.n);
        firmware::Instruction g;
        g.op = firmware::Opcode::Gemm, g.a = a, g.b = b, g.c = c, g.m = t.m, g.k = t.k, g.n = t.n;
        prog.add(g);
        cores.load(fw);
        const uint64_t last = cores.run();
        cores.finish(last);
        const auto& s = cores.core(0).stats();
        INFO("m=" << t.m << " k=" << t.k << " n=" << t.n);
        CHECK(s.pe_busy == t.expected);
        CHECK(s.finish_cycle == t.expected);  // issued at cycle 0, retired when the array is done
        CHECK(s.cycles() == last + 1);
        CHECK(s.macs == uint64_t(t.m) * t.k * t.n);
    }
}
