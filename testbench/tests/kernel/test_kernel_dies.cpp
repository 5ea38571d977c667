// Kernels on configs of several dies (issue 12): the P x Q mesh is laid onto the config's dies,
// so the hops that cross a die edge are D2D links and cost their latency; the path estimate
// counts them; a mesh larger than the wafer is refused. Nothing is flattened onto one die.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "hw/HardwareLoader.h"
#include "noc/Network.h"
#include "noc/Topology.h"
#include "testbench/KernelTestbench.h"

using namespace wsc;

namespace {

// 2 x 2 dies of 2 x 2 WSE-2-like cores (single-cycle hops, 4 B flits); D2D at `d2d_ns` (1 GHz:
// one cycle per ns) and 4 B per cycle, FEC-free (dies 1 mm apart). 64-flit VC buffers hold all
// a link carries in one of these runs, so no flit waits for a credit to come back over a long
// D2D link (with 8 flits, the third tile on a link waits a credit round trip: see the last test).
hw::HardwareConfig dies2x2(uint32_t d2d_ns, uint32_t vc_buffer = 64) {
    return hw::HardwareLoader::loadString(fmt::format(R"(wafer:
  dies: {{x: 2, y: 2}}
  cores_per_die: {{x: 2, y: 2}}
  die_pitch: 1 mm
  core_pitch: 0.25 mm
noc:
  clock: 1 GHz
  flit_size: 4 B
  route_limit: 24
  router: {{model: delay_line, pipeline: 0 cycles, vcs: 2, vc_buffer: {} flits}}
  link: {{latency: 1 cycle, width: 4 B}}
  local_link: {{latency: 2 cycles, width: 4 B}}
  d2d: {{bandwidth: 4 GB/s, latency: {} ns}}
core:
  pe_array: {{rows: 1, cols: 1, macs_per_cycle: 1, data_bits: 32, dataflow: os}}
  vector: {{lanes: 1}}
)",
                                                      vc_buffer, d2d_ns),
                                          "dies2x2.yaml");
}

tb::KernelResult run(const hw::HardwareConfig& h, const std::string& op, const std::string& algo,
                     uint32_t p, uint32_t q, uint32_t m, uint32_t k, uint32_t n) {
    tb::KernelSpec s;
    s.op = op, s.algo = algo, s.p = p, s.q = q, s.m = m, s.k = k, s.n = n;
    return tb::KernelTestbench::run(h.noc, h.core, s);
}

}  // namespace

TEST_CASE("a kernel on a 2x2-die config crosses D2D links where its mesh crosses dies",
          "[kernel][dies]") {
    const auto h = dies2x2(50);
    tb::KernelSpec s;
    s.op = "gemm", s.algo = "meshgemm", s.p = 4;
    const noc::NocParams np = tb::KernelTestbench::meshNoc(h.noc, s);
    CHECK(np.topology.x == 4);
    CHECK(np.topology.y == 4);
    CHECK(np.topology.die_x == 2);
    CHECK(np.topology.die_y == 2);
    const noc::Network net(np);
    const noc::Topology& t = net.topology();
    CHECK(t.isD2D(t.router(1, 0), noc::Topology::kEast));  // x 1 -> 2: across the die edge
    CHECK_FALSE(t.isD2D(t.router(0, 0), noc::Topology::kEast));
    CHECK(t.isD2D(t.router(0, 1), noc::Topology::kSouth));  // y 1 -> 2
    // A 2 x 2 block sits on one die: no D2D link on its paths.
    s.p = 2;
    CHECK(tb::KernelTestbench::meshNoc(h.noc, s).topology.x == 2);
}

TEST_CASE("a kernel on a 2x2-die config charges D2D latency on the hops that cross dies",
          "[kernel][dies]") {
    // Pipeline GEMV on one column of 4 cores, rows 0-1 on one die and 2-3 on the next: the
    // partial sums go 3 -> 2 -> 1 -> 0 one stage after another, and exactly one of the three
    // hops (2 -> 1) crosses the die edge. Every extra nanosecond of D2D latency is one more
    // cycle of the run and of the zero-load path estimate.
    const auto fast = run(dies2x2(1), "gemv", "pipeline", 4, 1, 1, 8, 4);
    const auto slow = run(dies2x2(101), "gemv", "pipeline", 4, 1, 1, 8, 4);
    REQUIRE(fast.correct);
    REQUIRE(slow.correct);
    CHECK(slow.cycles - fast.cycles == 100);
    CHECK(slow.step_path_cycles - fast.step_path_cycles == 100);
    CHECK(slow.step_path.hops == 3);
    // The D2D link carried the message (16 B): its bits are counted as D2D bits.
    CHECK(slow.events.d2d_bits == 16 * 8);
    CHECK(fast.events.d2d_bits == 16 * 8);

    // MeshGEMM on the whole 4 x 4: ring 0, 2, 3, 1, so in every row the logical hops 2 -> 0 and
    // 1 -> 3 cross the die edge (x 1 | 2) and in every column likewise (y 1 | 2). A tile's chain
    // of dependences runs through 3 shifts, each an A hop (row) or a B hop (column); after an A
    // hop across the edge the core sits at column 1 or 2, whose A hops stay on one die, and the
    // same holds for B, so a chain crosses at most 2 die edges and one (A across, then B across)
    // does. Once D2D latency dominates, each further ns costs exactly 2 cycles. The per-step
    // estimate is the slowest shift: one D2D hop.
    const auto m1 = run(dies2x2(1), "gemm", "meshgemm", 4, 0, 8, 8, 8);
    const auto m101 = run(dies2x2(101), "gemm", "meshgemm", 4, 0, 8, 8, 8);
    const auto m201 = run(dies2x2(201), "gemm", "meshgemm", 4, 0, 8, 8, 8);
    CHECK(m1.correct);
    CHECK(m101.correct);
    CHECK(m201.correct);
    CHECK(m201.cycles - m101.cycles == 2 * 100);
    CHECK(m101.step_path_cycles - m1.step_path_cycles == 100);
    CHECK(m201.step_path_cycles - m101.step_path_cycles == 100);
    // SUMMA broadcasts along every row and column in each of its 4 steps, and every broadcast
    // crosses the die edge: 4 crossings on the chain.
    const auto s101 = run(dies2x2(101), "gemm", "summa", 4, 0, 8, 8, 8);
    const auto s201 = run(dies2x2(201), "gemm", "summa", 4, 0, 8, 8, 8);
    CHECK(s201.cycles - s101.cycles == 4 * 100);
}

TEST_CASE("a D2D link whose credit round trip exceeds its VC buffer throttles a kernel",
          "[kernel][dies]") {
    // With 8-flit VC buffers a 101-cycle D2D link's credits come back 202 cycles after the
    // flits crossed; MeshGEMM's third 4-flit tile on a link finds the VC still short of credits
    // (the first two used all 8) and waits for them: slower than with deep buffers, never
    // faster, and still correct. Nothing is lost or reordered.
    const auto deep = run(dies2x2(101, 64), "gemm", "meshgemm", 4, 0, 8, 8, 8);
    const auto shallow = run(dies2x2(101, 8), "gemm", "meshgemm", 4, 0, 8, 8, 8);
    CHECK(shallow.correct);
    CHECK(shallow.cycles > deep.cycles + 50);
}

TEST_CASE("a kernel mesh larger than the wafer is refused naming both sizes", "[kernel][dies]") {
    CHECK_THROWS_WITH(run(dies2x2(1), "gemm", "meshgemm", 8, 0, 8, 8, 8),
                      Catch::Contains("8x8 core mesh does not fit the config's 4x4 cores") &&
                          Catch::Contains("2x2 dies of 2x2 cores"));
    CHECK_THROWS_AS(run(dies2x2(1), "gemv", "meshgemv", 2, 5, 1, 2, 5), std::invalid_argument);
}
