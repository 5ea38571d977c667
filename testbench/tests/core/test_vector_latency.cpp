// Per-op vector latency: every vector op has its own pipeline depth (VectorParams::op_latency,
// the `core.vector.op_latency` YAML map); an unset op keeps its class latency.
#include <catch2/catch.hpp>

#include "core/VectorUnit.h"
#include "hw/HardwareLoader.h"

using namespace wsc;
using firmware::Opcode;

namespace {

constexpr uint64_t kN = 1000;

Opcode vop(size_t i) {
    return static_cast<Opcode>(static_cast<size_t>(Opcode::VAdd) + i);
}

// cycles = latency + max(ceil(n / lanes), ceil(bytes / port)) - 1 (+ ceil(log2 lanes) if reducing)
uint64_t closedForm(const core::VectorParams& p, uint32_t port, Opcode op, uint64_t n) {
    const bool red = firmware::isReduction(op);
    const uint64_t lat = p.latencyOf(static_cast<size_t>(op) - static_cast<size_t>(Opcode::VAdd),
                                     firmware::isSpecialVectorOp(op));
    const uint64_t bytes = (n * core::VectorUnit::inputs(op) + (red ? 1 : n)) * 4;
    uint32_t tree = 0;
    while ((1u << tree) < p.lanes) ++tree;
    return lat + std::max((n + p.lanes - 1) / p.lanes, (bytes + port - 1) / port) - 1 +
           (red ? tree : 0);
}

}  // namespace

TEST_CASE("unset per-op latencies keep the two latency classes", "[core][vector]") {
    core::VectorParams p;
    for (size_t i = 0; i < core::VectorParams::kOps; ++i)
        CHECK(p.latencyOf(i, firmware::isSpecialVectorOp(vop(i))) ==
              (firmware::isSpecialVectorOp(vop(i)) ? p.special_latency : p.latency));
    // vadd latency 2 (default class), 1000 elements, 4 lanes, 16 B port: 2 + max(250, 750) - 1
    CHECK(core::VectorUnit(p, 16).cycles(Opcode::VAdd, kN, firmware::DType::FP32) == 751);
    // vexp latency 8 (special class): 8 + max(250, 500) - 1
    CHECK(core::VectorUnit(p, 16).cycles(Opcode::VExp, kN, firmware::DType::FP32) == 507);
}

TEST_CASE("changing one op's latency changes exactly that op's cycles", "[core][vector]") {
    const core::VectorParams base;
    const core::VectorUnit ref(base, 16);
    for (size_t j = 0; j < core::VectorParams::kOps; ++j) {
        core::VectorParams p = base;
        const uint32_t old_lat = base.latencyOf(j, firmware::isSpecialVectorOp(vop(j)));
        p.op_latency[j] = old_lat + 7;
        const core::VectorUnit vu(p, 16);
        for (size_t i = 0; i < core::VectorParams::kOps; ++i) {
            INFO("changed " << firmware::opcodeName(vop(j)) << ", op "
                            << firmware::opcodeName(vop(i)));
            const uint64_t before = ref.cycles(vop(i), kN, firmware::DType::FP32);
            const uint64_t after = vu.cycles(vop(i), kN, firmware::DType::FP32);
            CHECK(after == closedForm(p, 16, vop(i), kN));
            CHECK(after == before + (i == j ? 7 : 0));
        }
    }
}

TEST_CASE("core.vector.op_latency loads per-op latencies in cycles", "[core][vector][config]") {
    const std::string noc = R"(noc:
  clock: 1 GHz
  flit_size: 4 B
  topology: {mesh: {x: 2, y: 2}}
  link: {latency: 1 cycle, width: 4 B}
)";
    const auto hw = hw::HardwareLoader::loadString(noc + R"(core:
  vector: {lanes: 4, latency: 3 cycles, special_latency: 9 cycles, op_latency: {vexp: 20 cycles, vredsum: 5 ns}}
)",
                                                   "hw.yaml");
    const auto& v = hw.core.vector;
    const auto idx = [](Opcode op) {
        return static_cast<size_t>(op) - static_cast<size_t>(Opcode::VAdd);
    };
    CHECK(v.latencyOf(idx(Opcode::VExp), true) == 20);
    CHECK(v.latencyOf(idx(Opcode::VRedSum), false) == 5);
    CHECK(v.latencyOf(idx(Opcode::VAdd), false) == 3);  // unset: its class
    CHECK(v.latencyOf(idx(Opcode::VGelu), true) == 9);
    CHECK_THROWS(hw::HardwareLoader::loadString(
        noc + "core:\n  vector: {op_latency: {vfoo: 2 cycles}}\n", "hw.yaml"));
}
