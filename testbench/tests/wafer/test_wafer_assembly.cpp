// hw::Wafer / hw::Die: the named SystemC hierarchy built from one YAML, HBM stacks at the edge
// routers the config names, a core's DMA to its own die's stack through that router (link
// counters, data), the nested stats JSON, and the GEMM on a wafer with per-die HBM.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>

#include "hw/HardwareLoader.h"
#include "hw/HierarchyStats.h"
#include "hw/ScenarioLoader.h"
#include "hw/Wafer.h"
#include "testbench/GemmTestbench.h"

using namespace wsc;

namespace {
// 2 x 2 dies of 2 x 2 cores (a 4 x 4 mesh), 32 B flits and links, one HBM stack per die beside
// its east edge, reached through the edge router at position 1 (die-local (1, 1)).
const char* kWafer = R"(
wafer:
  dies: {x: 2, y: 2}
  cores_per_die: {x: 2, y: 2}
  die_pitch: 10 mm
  core_pitch: 2 mm
noc:
  clock: 1 GHz
  flit_size: 32 B
  router: {pipeline: 1 cycle, vcs: 2, vc_buffer: 8 flits}
  link: {latency: 1 cycle, width: 32 B}
  d2d: {bandwidth: 32 GB/s, latency: 4 ns}
core:
  sram: {capacity: 64 KB}
  dma: {queue: 4, burst: 256 B}
  memory: {max_outstanding: 16}
hbm:
  stacks: 1
  attach: [{edge: east, at: 1}]
)";

std::string config(const char* name) {
    return std::string(WSC_SOURCE_DIR) + "/configs/" + name;
}

uint32_t linkOut(const noc::Network& net, uint32_t router, uint8_t port) {
    return net.router(router).outLink(port);
}
}  // namespace

TEST_CASE("wafer: the SystemC hierarchy has the named dies and their HBM stacks", "[wafer][hw]") {
    const hw::HardwareConfig h = hw::HardwareLoader::loadString(kWafer, "t.yaml");
    hw::Wafer wafer("wafer", h);
    REQUIRE(wafer.dies() == 4);
    for (uint32_t y = 0; y < 2; ++y)
        for (uint32_t x = 0; x < 2; ++x) {
            const std::string die = "wafer.die_" + std::to_string(x) + "_" + std::to_string(y);
            INFO(die);
            CHECK(dynamic_cast<hw::Die*>(sc_core::sc_find_object(die.c_str())) != nullptr);
            CHECK(dynamic_cast<hw::MemoryStack*>(
                      sc_core::sc_find_object((die + ".hbm_0").c_str())) != nullptr);
            CHECK(dynamic_cast<dram::HbmTarget*>(
                      sc_core::sc_find_object((die + ".hbm_0.controller").c_str())) != nullptr);
            CHECK(dynamic_cast<core::MemoryBridge*>(
                      sc_core::sc_find_object((die + ".hbm_0.bridge").c_str())) != nullptr);
            CHECK(sc_core::sc_find_object((die + ".hbm_1").c_str()) == nullptr);
            const hw::Die& d = wafer.die(x, y);
            CHECK(std::string(d.name()) == die);
            CHECK(d.routers().size() == 4);
            // East edge, position 1: die-local (1, 1).
            CHECK(d.stackRouter(0) == wafer.topology().router(2 * x + 1, 2 * y + 1));
            CHECK(d.edgeRouters(hw::HbmAttachParams::Edge::East) ==
                  std::vector<uint32_t>{wafer.topology().router(2 * x + 1, 2 * y),
                                        wafer.topology().router(2 * x + 1, 2 * y + 1)});
        }
    CHECK(dynamic_cast<noc::NocShell*>(sc_core::sc_find_object("wafer.noc")) != nullptr);
    // Router membership follows the die array.
    CHECK(wafer.die(1, 0).contains(wafer.topology().router(3, 1)));
    CHECK(!wafer.die(1, 0).contains(wafer.topology().router(1, 1)));
    CHECK(&wafer.dieOfRouter(wafer.topology().router(2, 3)) == &wafer.die(1, 1));
}

TEST_CASE("wafer: a core's DMA reaches its own die's HBM through the stack's edge router",
          "[wafer][hw][hbm]") {
    const hw::HardwareConfig h = hw::HardwareLoader::loadString(kWafer, "t.yaml");
    hw::Wafer wafer("wafer", h);
    noc::Network& net = wafer.buildNetwork(1);
    core::CoreParams cp = h.core;
    cp.functional = true;
    core::CoreArray& cores = wafer.buildCores(cp);
    const noc::Topology& t = wafer.topology();
    // The core at (2, 3) is die (1, 1)'s local (0, 1); the die's stack sits at (3, 3), one hop
    // east.
    const uint32_t user = t.node(t.router(2, 3), 0);
    const uint32_t stack_router = t.router(3, 3);
    const uint32_t elems = 1000;  // 4000 B: 15 bursts of 256 B and one of 160 B
    firmware::Firmware fw(net.nodes());
    firmware::Program& p = fw.program(user);
    const uint16_t a = p.addBuffer("A", elems), b = p.addBuffer("B", elems);
    firmware::Instruction st;
    st.op = firmware::Opcode::DmaStore, st.a = a, st.addr = 0x4000, st.bytes = elems * 4;
    p.add(st);
    firmware::Instruction wa;
    wa.op = firmware::Opcode::WaitAll;
    p.add(wa);
    firmware::Instruction ld;
    ld.op = firmware::Opcode::DmaLoad, ld.c = b, ld.addr = st.addr, ld.bytes = st.bytes;
    p.add(ld);
    cores.load(std::move(fw));
    std::vector<float> data(elems);
    for (uint32_t e = 0; e < elems; ++e) data[e] = float(e) * 0.25f - 3.0f;
    std::memcpy(cores.core(user).sram().data(a), data.data(), elems * 4);
    wafer.attachMemory(true, true);
    REQUIRE(wafer.portOfCore(user) == 3);  // die (1, 1) is the fourth die, its only stack
    const uint64_t last = wafer.shell().run(net, cores);
    cores.finish(last);
    net.checkConservation();

    // The data came back, and it is in die (1, 1)'s stack.
    std::vector<float> got(cores.core(user).sram().data(b),
                           cores.core(user).sram().data(b) + elems);
    CHECK(got == data);
    std::vector<float> in_hbm(elems);
    wafer.die(1, 1).stack(0).hostRead(0x4000, in_hbm.data(), elems * 4);
    CHECK(in_hbm == data);
    // Every message is one packet of ceil(bytes / 32) flits: requests are 15 stores of 16 + 256 B
    // (9 flits), one of 16 + 160 B (6) and 16 header-only loads (1): 157 flits; the responses
    // are 16 one-flit store acks and the same 9/6-flit load data: 157 flits.
    const uint64_t flits = 15 * 9 + 6 + 16;
    CHECK(net.link(linkOut(net, t.router(2, 3), noc::Topology::kEast)).flits() == flits);
    CHECK(net.link(linkOut(net, stack_router, noc::Topology::kWest)).flits() == flits);
    CHECK(net.link(net.ni(t.node(stack_router, 0)).ej_link).flits() == flits);
    CHECK(net.link(net.ni(t.node(stack_router, 0)).inj_link).flits() == flits);
    // Nothing crossed a die boundary and no other stack saw a transaction.
    for (const noc::Link& l : net.links())
        if (l.kind() == noc::Link::Kind::D2D) CHECK(l.flits() == 0);
    for (uint32_t d = 0; d < 3; ++d) CHECK(wafer.die(d).stack(0).transactions() == 0);
    CHECK(wafer.die(1, 1).stack(0).transactions() == 32);
    const auto* port = wafer.die(1, 1).stack(0).nocPort();
    REQUIRE(port);
    CHECK(port->node() == t.node(stack_router, 0));
    CHECK(port->stats().hop_sum == 32);  // 32 bursts, one hop each

    // The stats writer nests them by instance name: wafer -> die_1_1 -> hbm_0 -> counters.
    nlohmann::json j;
    hw::HierarchyStats::dump(wafer, j);
    CHECK(j["dies"]["x"] == 2);
    CHECK(j["die_1_1"]["hbm_0"]["controller"]["transactions"] == 32);
    CHECK(j["die_1_1"]["hbm_0"]["controller"]["bytes_written"] == elems * 4);
    CHECK(j["die_1_1"]["hbm_0"]["noc_port"]["requests"] == 32);
    CHECK(j["die_0_0"]["hbm_0"]["controller"]["transactions"] == 0);
    CHECK(j["die_1_1"]["hbm_attach"][0]["router"] == "r(3,3)");
    CHECK(j["die_1_1"]["links"]["on_die"]["flits"] == 2 * flits);
    CHECK(j["die_1_1"]["links"]["d2d_out"]["flits"] == 0);
    CHECK(j["die_0_0"]["links"]["on_die"]["flits"] == 0);
}

namespace {
// small_wafer_hbm.yaml's GEMM on a fresh wafer (each test case is its own process: the stacks'
// refresh and open rows carry over between runs in one process, so runs compare across cases).
tb::GemmResult smallWaferHbm(bool functional, bool over_noc, nlohmann::json* stats,
                             hw::Wafer** out = nullptr) {
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(config("small_wafer_hbm.yaml"));
    hw::HardwareConfig h;
    h.noc = sc.noc, h.core = sc.core, h.wafer = sc.wafer, h.hbm = sc.hbm,
    h.hbm_attach = sc.hbm_attach, h.energy = sc.energy;
    REQUIRE(sc.gemm.memory_over_noc);
    static hw::Wafer wafer("wafer", h);
    if (out) *out = &wafer;
    firmware::GemmWorkload w = sc.gemm;
    w.functional = functional;
    w.memory_over_noc = over_noc;
    tb::GemmRunOptions opt;
    opt.stats = stats;
    return tb::GemmTestbench::run(wafer, w, opt);
}
// Cycles of that GEMM measured with DMA over the NoC (functional and timing-only must agree).
constexpr uint64_t kSmallWaferHbmCycles = 451;
}  // namespace

TEST_CASE("wafer: GEMM with DMA over the NoC to each die's nearest stack equals the reference",
          "[wafer][hw][hbm][gemm]") {
    nlohmann::json stats;
    hw::Wafer* wafer = nullptr;
    const tb::GemmResult r = smallWaferHbm(true, true, &stats, &wafer);
    CHECK(r.correct);
    CHECK(r.cycles == kSmallWaferHbmCycles);
    // Each core used a stack of its own die, the nearest one: west-half cores the west stack.
    const noc::Topology& t = wafer->topology();
    for (uint32_t c = 0; c < t.nodes(); ++c) {
        const uint32_t rt = t.routerOfNode(c);
        const uint32_t port = wafer->portOfCore(c);
        INFO("core " << c);
        CHECK(port / 2 == t.dieOf(rt));
        CHECK(port % 2 == (t.x(rt) % 2 == 0 ? 0u : 1u));
    }
    // Every stack served its cores and the stats JSON has all of them under their dies; no
    // memory message crossed a D2D link, so every port request came from its own die.
    for (const char* d : {"die_0_0", "die_1_0", "die_0_1", "die_1_1"})
        for (const char* s : {"hbm_0", "hbm_1"}) {
            INFO(d << "." << s);
            CHECK(stats["wafer"][d][s]["controller"]["transactions"].get<uint64_t>() > 0);
            // One hop (the core on the row below) or none (the attach router's own core).
            const auto& p = stats["wafer"][d][s]["noc_port"];
            CHECK(p["hops_sum"].get<uint64_t>() < p["requests"].get<uint64_t>());
        }
}

TEST_CASE("wafer: GEMM over the NoC to per-die HBM, timing-only, has the functional cycles",
          "[wafer][hw][hbm][gemm]") {
    const tb::GemmResult r = smallWaferHbm(false, true, nullptr);
    CHECK(!r.checked);
    CHECK(r.cycles == kSmallWaferHbmCycles);
}

TEST_CASE("wafer: GEMM with direct DMA to per-die HBM equals the reference and is faster",
          "[wafer][hw][hbm][gemm]") {
    const tb::GemmResult r = smallWaferHbm(true, false, nullptr);
    CHECK(r.correct);
    CHECK(r.cycles < kSmallWaferHbmCycles);
}

TEST_CASE("wafer: paper configs give every die its stacks at the edge routers they name",
          "[wafer][hw][hbm][configs]") {
    // TEMP Table I at core level: 4 x 8 dies of 8 x 8 cores, 3 stacks per die.
    const hw::HardwareConfig temp =
        hw::HardwareLoader::loadFile(config("temp_4x8_dies_8x8_cores.yaml"));
    hw::Wafer t("temp", temp);
    REQUIRE(t.dies() == 32);
    const noc::Topology& tt = t.topology();
    for (uint32_t d = 0; d < t.dies(); ++d) {
        hw::Die& die = t.die(d);
        REQUIRE(die.stacks() == 3);
        const uint32_t x0 = die.x() * 8, y0 = die.y() * 8;
        // Two stacks share the west side (routers 0-3, 4-7), one takes the whole east side.
        for (uint32_t i = 0; i < 8; ++i) {
            CHECK(die.stackRouters(i < 4 ? 0 : 2).at(i % 4) == tt.router(x0, y0 + i));
            CHECK(die.stackRouters(1).at(i) == tt.router(x0 + 7, y0 + i));
        }
        CHECK(die.stackRouters(0).size() == 4);
        CHECK(die.stackRouters(2).size() == 4);
        // A core uses the stack and router of its own row on its nearer side.
        CHECK(die.nearestStack(tt.router(x0 + 2, y0 + 5)) == 2);
        CHECK(die.nearestAttach(2, tt.router(x0 + 2, y0 + 5)) == 1);
        CHECK(die.nearestStack(tt.router(x0 + 5, y0 + 1)) == 1);
        CHECK(die.nearestAttach(1, tt.router(x0 + 5, y0 + 1)) == 1);
    }
    CHECK(t.ports() == 96);
    // MoEntwine 4 x 4 B200-like dies at die level: 8 stacks per die, all at the die's router.
    const hw::HardwareConfig moe = hw::HardwareLoader::loadFile(config("moentwine_4x4_b200.yaml"));
    hw::Wafer m("moe", moe);
    REQUIRE(m.dies() == 16);
    for (uint32_t d = 0; d < m.dies(); ++d) {
        REQUIRE(m.die(d).stacks() == 8);
        for (uint32_t k = 0; k < 8; ++k) CHECK(m.die(d).stackRouter(k) == m.die(d).routers()[0]);
    }
    CHECK(sc_core::sc_find_object("moe.die_3_3.hbm_7.controller") != nullptr);
}

TEST_CASE(
    "wafer: stacks attached across whole edges serve each core through its nearest edge router",
    "[wafer][hw][hbm][gemm][hbm_edge]") {
    // small_wafer_hbm.yaml with both stacks of every die attached through all (2) routers of
    // their edge: on these 2 x 2 dies every core sits at an attach router of its nearest stack,
    // so every burst is served at the core's own node (0 hops) and all 4 ports per die work.
    hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(config("small_wafer_hbm.yaml"));
    for (auto& s : sc.hbm_attach.stacks) s.at = {0, 1};
    hw::HardwareConfig h;
    h.noc = sc.noc, h.core = sc.core, h.wafer = sc.wafer, h.hbm = sc.hbm,
    h.hbm_attach = sc.hbm_attach, h.energy = sc.energy;
    hw::Wafer wafer("wafer", h);
    nlohmann::json stats;
    tb::GemmRunOptions opt;
    opt.stats = &stats;
    const tb::GemmResult r = tb::GemmTestbench::run(wafer, sc.gemm, opt);
    CHECK(r.correct);
    const noc::Topology& t = wafer.topology();
    for (uint32_t d = 0; d < wafer.dies(); ++d)
        for (uint32_t k = 0; k < 2; ++k) {
            hw::MemoryStack& s = wafer.die(d).stack(k);
            INFO("die " << d << " stack " << k);
            REQUIRE(s.nocPorts() == 2);
            CHECK(s.bridge().maxOutstanding() == 2 * 16);  // 16 per attach router
            for (uint32_t i = 0; i < 2; ++i) {
                const core::NocMemoryPort& p = *s.nocPort(i);
                CHECK(p.node() == t.node(wafer.die(d).stackRouters(k).at(i), 0));
                CHECK(p.stats().requests > 0);
                CHECK(p.stats().hop_sum == 0);
            }
            // Stacks stay the memory index: the west core of each row uses stack 0, the east 1.
            const std::string name = fmt::format("die_{}_{}", wafer.die(d).x(), wafer.die(d).y());
            const auto& ports = stats["wafer"][name][fmt::format("hbm_{}", k)]["noc_ports"];
            REQUIRE(ports.size() == 2);
            CHECK(ports[0]["requests"].get<uint64_t>() + ports[1]["requests"].get<uint64_t>() ==
                  s.transactions());
        }
    for (uint32_t c = 0; c < t.nodes(); ++c)
        CHECK(wafer.portOfCore(c) % 2 == (t.x(t.routerOfNode(c)) % 2 == 0 ? 0u : 1u));
}
