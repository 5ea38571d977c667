// A GEMM spread over 2x2, 3x3 and 4x4 core meshes, exchanging tiles over the NoC, equals a plain
// reference GEMM; the same run in timing-only mode takes exactly the same cycles, per core and
// per stall cause. Each TEST_CASE runs in its own process (SystemC elaborates once), and one
// shell and memory system serve both runs of a case.
#include <catch2/catch.hpp>

#include "../noc/NocTestUtil.h"
#include "core/CoreParams.h"
#include "hw/MemorySystem.h"
#include "testbench/GemmTestbench.h"

using namespace wsc;

namespace {

noc::NocParams mesh(uint32_t side) {
    auto p = test::meshParams(side, side, 1, 2, 8);
    p.flit_bytes = 4;  // WSE-2-like 32-bit flits
    p.link.width_bytes = p.local_link.width_bytes = p.d2d.width_bytes = 4;
    return p;
}

void checkSame(const tb::GemmResult& f, const tb::GemmResult& t) {
    REQUIRE(f.cycles == t.cycles);
    REQUIRE(f.stats.size() == t.stats.size());
    for (size_t i = 0; i < f.stats.size(); ++i) {
        INFO(f.names[i]);
        CHECK(f.stats[i].busy == t.stats[i].busy);
        CHECK(f.stats[i].idle == t.stats[i].idle);
        CHECK(f.stats[i].stall == t.stats[i].stall);
        CHECK(f.stats[i].finish_cycle == t.stats[i].finish_cycle);
        CHECK(f.stats[i].bytes_in == t.stats[i].bytes_in);
        CHECK(f.stats[i].macs == t.stats[i].macs);
    }
}

void runBoth(uint32_t side, const firmware::GemmWorkload& w, const core::CoreParams& cp) {
    noc::NocShell shell("noc", 1e9);
    hw::MemorySystem mem(cp, 1e9);
    const auto np = mesh(side);
    firmware::GemmWorkload fw = w;
    fw.functional = true;
    const tb::GemmResult f = tb::GemmTestbench::run(np, cp, fw, shell, mem);
    REQUIRE(f.checked);
    CHECK(f.correct);
    CHECK(f.max_abs_error == 0);
    CHECK(f.macs == uint64_t(w.m) * w.k * w.n);
    for (const auto& s : f.stats) {
        CHECK(s.cycles() == f.cycles);  // every cycle is busy, stalled or idle exactly once
        CHECK(s.bytes_in > 0);
    }
    firmware::GemmWorkload tw = w;
    tw.functional = false;
    const tb::GemmResult t = tb::GemmTestbench::run(np, cp, tw, shell, mem);
    CHECK_FALSE(t.checked);
    checkSame(f, t);
}

}  // namespace

TEST_CASE("GEMM on a 2x2 core mesh equals the reference and timing-only has identical cycles",
          "[core][gemm]") {
    firmware::GemmWorkload w;
    w.m = 32, w.k = 32, w.n = 32, w.seed = 3;
    runBoth(2, w, core::CoreParams{});
}

TEST_CASE("GEMM on a 4x4 core mesh equals the reference and timing-only has identical cycles",
          "[core][gemm]") {
    firmware::GemmWorkload w;
    w.m = 32, w.k = 64, w.n = 48, w.seed = 7;
    runBoth(4, w, core::CoreParams{});
}

TEST_CASE("GEMM on a 3x3 block of a 4x4 mesh, weight-stationary, two memory ports",
          "[core][gemm]") {
    firmware::GemmWorkload w;
    w.m = 12, w.k = 24, w.n = 18, w.mesh = 3, w.seed = 11;
    core::CoreParams cp;
    cp.pe.dataflow = core::DataflowKind::WeightStationary;
    cp.memory.ports = 2;
    runBoth(4, w, cp);
}

TEST_CASE("GEMM with memory_path noc: DMA crosses the NoC and C still equals the reference",
          "[core][gemm][noc]") {
    firmware::GemmWorkload w;
    w.m = 32, w.k = 32, w.n = 32, w.seed = 3;
    const core::CoreParams cp;
    noc::NocShell shell("noc", 1e9);
    hw::MemorySystem mem(cp, 1e9);
    const auto np = mesh(2);
    const tb::GemmResult direct = tb::GemmTestbench::run(np, cp, w, shell, mem);
    REQUIRE(mem.nocPorts().empty());
    firmware::GemmWorkload nw = w;
    nw.memory_over_noc = true;
    const tb::GemmResult f = tb::GemmTestbench::run(np, cp, nw, shell, mem);
    REQUIRE(mem.nocPorts().size() == 1);
    REQUIRE(f.checked);
    CHECK(f.correct);
    CHECK(f.max_abs_error == 0);
    CHECK(f.c == direct.c);
    CHECK(f.macs == direct.macs);
    CHECK(f.memory_transactions - direct.memory_transactions ==
          direct.memory_transactions);  // cumulative per MemorySystem
    CHECK(f.cycles > direct.cycles);    // bursts now pay NoC hops and headers
    // Timing-only over the NoC takes the same cycles.
    nw.functional = false;
    const tb::GemmResult t = tb::GemmTestbench::run(np, cp, nw, shell, mem);
    checkSame(f, t);
}
