// WaferLLM kernels (issue 7): every algorithm equals a plain reference in functional mode on
// several shapes and mesh sizes (odd P included); the interleaved ring is Algorithm 1; MeshGEMM's
// per-step critical path stays at 2 hops as P grows while Cannon's and SUMMA's grow; K-tree group
// counts follow the facts file; routes stay within the route limit, and a too-small limit makes
// transfers relay through cores that pay the relay cost.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <numeric>
#include <stdexcept>

#include "KernelTestUtil.h"
#include "firmware/LoopUnroller.h"
#include "firmware/ProgramText.h"
#include "firmware/ReduceTree.h"
#include "firmware/RingOrder.h"
#include "testbench/KernelTestbench.h"

using namespace wsc;

namespace {

using test::wseCore;
using test::wseNoc;

tb::KernelResult run(const std::string& op, const std::string& algo, uint32_t p, uint32_t m,
                     uint32_t k, uint32_t n, noc::NocParams np = wseNoc()) {
    tb::KernelSpec s;
    s.op = op, s.algo = algo, s.p = p, s.m = m, s.k = k, s.n = n;
    return tb::KernelTestbench::run(np, wseCore(), s);
}

}  // namespace

TEST_CASE("interleaved ring equals WaferLLM Algorithm 1 and spans at most two hops") {
    for (uint32_t p = 3; p <= 64; ++p) {
        const firmware::RingOrder ring(firmware::RingOrder::Kind::Interleave, p);
        for (uint32_t i = 0; i < p; ++i) {
            uint32_t send = 0, recv = 0;
            firmware::RingOrder::interleave(i, p, send, recv);
            INFO("P = " << p << ", index " << i);
            CHECK(ring.next(i) == send);
            CHECK(ring.prev(i) == recv);
            CHECK(ring.position(i) == (i % 2 == 0 ? i / 2 : p - (i + 1) / 2));
        }
        CHECK(ring.maxHop() == 2);
        CHECK(firmware::RingOrder(firmware::RingOrder::Kind::Linear, p).maxHop() == p - 1);
    }
}

TEST_CASE("GEMM algorithms equal the reference on even and odd meshes") {
    for (const std::string algo : {"meshgemm", "cannon", "summa", "allgather"})
        for (uint32_t p : {1u, 2u, 3u, 4u, 5u}) {
            INFO(algo << " P = " << p);
            const auto r = run("gemm", algo, p, 4 * p, 2 * p, 3 * p);
            CHECK(r.checked);
            CHECK(r.correct);
        }
}

TEST_CASE("dist-GEMM-T (meshgemm-t) equals A x B^T without transposing B") {
    for (uint32_t p : {1u, 2u, 3u, 4u, 5u, 7u})
        for (const auto& mkn : {std::array<uint32_t, 3>{4, 2, 3}, std::array<uint32_t, 3>{1, 3, 2},
                                std::array<uint32_t, 3>{2, 2, 2}}) {
            INFO("P = " << p << " shape " << mkn[0] << "x" << mkn[1] << "x" << mkn[2]);
            const auto r = run("gemm", "meshgemm-t", p, mkn[0] * p, mkn[1] * p, mkn[2] * p);
            CHECK(r.checked);
            CHECK(r.correct);
            CHECK(r.max_abs_error == 0);
            CHECK(r.relays == 0);
        }
    // Not square in shape, and B's layout [n x k] differs from A x B's [k x n]: a plain GEMM
    // schedule on the same operands would not match the B^T reference.
    CHECK(tb::KernelTestbench::transB([] {
        tb::KernelSpec s;
        s.algo = "meshgemm-t";
        return s;
    }()));
    CHECK(tb::KernelTestbench::known("gemm", "meshgemm-t"));
    CHECK_FALSE(tb::KernelTestbench::known("gemv", "meshgemm-t"));
}

TEST_CASE("dist-GEMM-T reduces with a K-tree of any K and stays correct") {
    for (uint32_t kk : {1u, 2u, 3u})
        for (uint32_t p : {2u, 5u, 8u, 9u}) {
            tb::KernelSpec s;
            s.op = "gemm", s.algo = "meshgemm-t", s.p = p, s.m = 2 * p, s.k = p, s.n = p;
            s.tree_k = kk;
            INFO("K = " << kk << " P = " << p);
            const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
            CHECK(r.correct);
            CHECK(r.relays == 0);
            CHECK(r.routes_per_core <= 24);
        }
    // The step's critical path is the tree's, far below the P - 1 stages of a chain.
    for (uint32_t p : {8u, 16u, 32u}) {
        tb::KernelSpec s;
        s.op = "gemm", s.algo = "meshgemm-t", s.p = p, s.m = s.k = s.n = p;
        const auto plan = tb::KernelTestbench::plan(wseNoc(), s);
        INFO("P = " << p);
        CHECK(plan.step_path.stages >= 2);
        CHECK(plan.step_path.stages <= 2 * firmware::ReduceTree::groupsFor(p));
        CHECK(plan.step_path.stages < p - 1);
        CHECK(plan.relayed_paths == 0);  // every tree's routes fit the 24 entries
        CHECK(plan.routes_per_core <= 24);
    }
    tb::KernelSpec s;
    s.op = "gemm", s.algo = "meshgemm-t", s.p = 2, s.m = s.k = s.n = 4, s.tree_k = 0;
    CHECK_THROWS_AS(tb::KernelTestbench::run(wseNoc(), wseCore(), s), std::invalid_argument);
}

TEST_CASE("dist-GEMM-T timing-only cycles equal functional cycles") {
    for (uint32_t p : {3u, 4u, 8u}) {
        tb::KernelSpec s;
        s.op = "gemm", s.algo = "meshgemm-t", s.p = p, s.m = 2 * p, s.k = 4 * p, s.n = 3 * p;
        const auto f = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
        s.functional = false;
        const auto t = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
        INFO("P = " << p);
        CHECK(f.correct);
        CHECK_FALSE(t.checked);
        CHECK(t.cycles == f.cycles);
        CHECK(t.useful_macs == f.useful_macs);
    }
}

TEST_CASE("MeshGEMM on non-square meshes by the lcm rule equals the reference") {
    // P rows x Q columns; K in lcm(P, Q) blocks. Includes 1 x Q and P x 1 lines.
    for (const auto& pq : {std::array<uint32_t, 2>{2, 3}, std::array<uint32_t, 2>{3, 2},
                           std::array<uint32_t, 2>{3, 4}, std::array<uint32_t, 2>{4, 6},
                           std::array<uint32_t, 2>{1, 3}, std::array<uint32_t, 2>{5, 1},
                           std::array<uint32_t, 2>{2, 5}}) {
        const uint32_t l = std::lcm(pq[0], pq[1]);
        for (const auto& f : {std::array<uint32_t, 3>{2, 1, 3}, std::array<uint32_t, 3>{1, 2, 1}}) {
            tb::KernelSpec s;
            s.op = "gemm", s.algo = "meshgemm", s.p = pq[0], s.q = pq[1];
            s.m = f[0] * pq[0], s.k = f[1] * l, s.n = f[2] * pq[1];
            INFO(pq[0] << "x" << pq[1] << " shape " << s.m << "x" << s.k << "x" << s.n);
            const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
            CHECK(r.checked);
            CHECK(r.correct);
            CHECK(r.steps == l);
            CHECK(r.relays == 0);
            CHECK(r.step_path.hops <= 2);
            s.functional = false;
            CHECK(tb::KernelTestbench::run(wseNoc(), wseCore(), s).cycles == r.cycles);
        }
    }
    // K must divide into lcm(P, Q) blocks.
    tb::KernelSpec s;
    s.op = "gemm", s.algo = "meshgemm", s.p = 2, s.q = 3, s.m = 4, s.k = 5, s.n = 6;
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                      Catch::Contains("multiple of 6"));
}

TEST_CASE("SUMMA, allgather and Cannon on non-square meshes equal the reference") {
    for (const auto& pq : {std::array<uint32_t, 2>{2, 3}, std::array<uint32_t, 2>{3, 4},
                           std::array<uint32_t, 2>{4, 2}, std::array<uint32_t, 2>{1, 3},
                           std::array<uint32_t, 2>{3, 1}})
        for (const std::string algo : {"summa", "allgather", "cannon"}) {
            const uint32_t l = std::lcm(pq[0], pq[1]);
            tb::KernelSpec s;
            s.op = "gemm", s.algo = algo, s.p = pq[0], s.q = pq[1];
            s.m = 2 * pq[0], s.k = 2 * l, s.n = 3 * pq[1];
            INFO(algo << " " << pq[0] << "x" << pq[1]);
            const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
            CHECK(r.checked);
            CHECK(r.correct);
            CHECK(r.steps == l);
            CHECK(r.useful_macs == uint64_t(s.m) * s.k * s.n);
            s.functional = false;
            CHECK(tb::KernelTestbench::run(wseNoc(), wseCore(), s).cycles == r.cycles);
        }
    // Cannon's ring is the physical order: its wrap crosses the line (Q - 1 hops on a row).
    tb::KernelSpec s;
    s.op = "gemm", s.algo = "cannon", s.p = 3, s.q = 6, s.m = 3, s.k = 6, s.n = 6;
    CHECK(tb::KernelTestbench::plan(wseNoc(), s).step_path.hops == 5);
    s.algo = "meshgemm";
    CHECK(tb::KernelTestbench::plan(wseNoc(), s).step_path.hops == 2);
    // SUMMA on 2 x 4: each owner's blocks share its broadcast route (2 + 4 owners per line).
    s.algo = "summa", s.p = 2, s.q = 4, s.m = 2, s.k = 8, s.n = 4;
    const auto plan = tb::KernelTestbench::plan(wseNoc(), s);
    CHECK(plan.direct_routes == 2 * 4 + 4 * 2);
}

TEST_CASE("GEMV algorithms on non-square meshes equal the reference") {
    for (const auto& pq : {std::array<uint32_t, 2>{2, 3}, std::array<uint32_t, 2>{3, 4},
                           std::array<uint32_t, 2>{4, 2}, std::array<uint32_t, 2>{9, 2},
                           std::array<uint32_t, 2>{1, 3}})
        for (const std::string algo : {"meshgemv", "pipeline", "ring"})
            for (bool bc : {false, true}) {
                tb::KernelSpec s;
                s.op = "gemv", s.algo = algo, s.p = pq[0], s.q = pq[1], s.m = 1;
                s.k = 4 * pq[0], s.n = 3 * pq[1], s.broadcast = bc;
                INFO(algo << " " << pq[0] << "x" << pq[1] << " broadcast " << bc);
                const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
                CHECK(r.checked);
                CHECK(r.correct);
                s.functional = false;
                CHECK(tb::KernelTestbench::run(wseNoc(), wseCore(), s).cycles == r.cycles);
            }
    // 9 rows: the K-tree's levels are those of a 9-row column, whatever the width.
    tb::KernelSpec s;
    s.op = "gemv", s.algo = "meshgemv", s.p = 9, s.q = 2, s.m = 1, s.k = 9, s.n = 2;
    const auto plan = tb::KernelTestbench::plan(wseNoc(), s);
    CHECK(plan.step_path.stages == firmware::ReduceTree::kTree(9, 2).stages());
}

TEST_CASE("non-square requests that cannot run are refused with the reason") {
    tb::KernelSpec s;
    s.op = "gemm", s.algo = "meshgemm-t", s.p = 2, s.q = 3, s.m = 6, s.k = 6, s.n = 6;
    CHECK_THROWS_WITH(
        tb::KernelTestbench::run(wseNoc(), wseCore(), s),
        Catch::Contains("needs a square mesh, got 2x3") && Catch::Contains("no lcm form"));
    s.algo = "cannon", s.shift_align = true;
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                      Catch::Contains("--shift-align needs a square mesh"));
}

TEST_CASE("GEMM with message alignment equals the reference") {
    for (const std::string algo : {"meshgemm", "cannon"})
        for (uint32_t p : {3u, 4u, 6u}) {
            tb::KernelSpec s;
            s.op = "gemm", s.algo = algo, s.p = p, s.m = 2 * p, s.k = 3 * p, s.n = p,
            s.shift_align = true;
            INFO(algo << " P = " << p);
            const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
            CHECK(r.correct);
            CHECK(r.steps > p);  // the alignment shifts count as steps
        }
}

TEST_CASE("GEMV algorithms equal the reference, with and without broadcast") {
    for (const std::string algo : {"meshgemv", "pipeline", "ring"})
        for (uint32_t p : {1u, 2u, 3u, 5u, 8u})
            for (bool bc : {false, true}) {
                tb::KernelSpec s;
                s.op = "gemv", s.algo = algo, s.p = p, s.m = 1, s.k = 4 * p, s.n = 3 * p,
                s.broadcast = bc;
                INFO(algo << " P = " << p << " broadcast " << bc);
                const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
                CHECK(r.correct);
            }
}

TEST_CASE("MeshGEMV with K = 1, 2 and 3 levels equals the reference") {
    for (uint32_t kk : {1u, 2u, 3u}) {
        tb::KernelSpec s;
        s.op = "gemv", s.algo = "meshgemv", s.p = 9, s.m = 1, s.k = 18, s.n = 27, s.tree_k = kk;
        INFO("K = " << kk);
        CHECK(tb::KernelTestbench::run(wseNoc(), wseCore(), s).correct);
    }
}

TEST_CASE("K-tree group counts follow the facts file") {
    CHECK(firmware::ReduceTree::groupsFor(64) == 8);
    CHECK(firmware::ReduceTree::groupsFor(128) == 8);
    CHECK(firmware::ReduceTree::groupsFor(256) == 16);
    CHECK(firmware::ReduceTree::groupsFor(512) == 16);
    const auto t = firmware::ReduceTree::kTree(64, 2);
    REQUIRE(t.levels().size() == 2);
    CHECK(t.levels()[0].size() == 8);
    CHECK(t.levels()[1].size() == 1);
    CHECK(t.root() == 27);  // the middle of the middles: groups of 8 rooted at 3, 11, ..., 59
    CHECK(t.stages() == 4 + 4);
    CHECK(firmware::ReduceTree::chain(64, 0).stages() == 63);
}

namespace {

// Plays a tree out on sets: every line index starts with its own partial; each group's members
// hand their sets one member towards the root. The root must end with every partial, once.
std::vector<uint32_t> reduceOnSets(const firmware::ReduceTree& t, uint32_t n) {
    std::vector<std::vector<uint32_t>> have(n);
    for (uint32_t i = 0; i < n; ++i) have[i] = {i};
    for (const auto& lv : t.levels())
        for (const auto& g : lv) {
            for (uint32_t x = 0; x < g.root; ++x) {  // low side, outermost first
                auto& to = have[g.members[x + 1]];
                to.insert(to.end(), have[g.members[x]].begin(), have[g.members[x]].end());
                have[g.members[x]].clear();
            }
            for (uint32_t x = uint32_t(g.members.size()) - 1; x > g.root; --x) {
                auto& to = have[g.members[x - 1]];
                to.insert(to.end(), have[g.members[x]].begin(), have[g.members[x]].end());
                have[g.members[x]].clear();
            }
        }
    std::sort(have[t.root()].begin(), have[t.root()].end());
    return have[t.root()];
}

}  // namespace

TEST_CASE("a K-tree reduces every partial exactly once into its root, any root") {
    for (uint32_t n : {1u, 2u, 3u, 7u, 16u, 33u, 64u})
        for (uint32_t k : {1u, 2u, 3u}) {
            std::vector<uint32_t> all(n);
            std::iota(all.begin(), all.end(), 0u);
            INFO("n = " << n << " K = " << k);
            const auto mid = firmware::ReduceTree::kTree(n, k);
            CHECK(reduceOnSets(mid, n) == all);
            CHECK(mid.levels().size() <= k);
            for (uint32_t r = 0; r < n; ++r) {
                INFO("root " << r);
                const auto t = firmware::ReduceTree::kTree(n, k, r);
                CHECK(t.root() == r);
                CHECK(reduceOnSets(t, n) == all);
                // Below the last level the groups are those of the middle-rooted tree: fixed
                // routes whatever the root (at most one extra level carries the sum to r).
                CHECK(t.levels().size() <= mid.levels().size() + 1);
                for (size_t l = 0; l + 1 < mid.levels().size(); ++l)
                    for (size_t g = 0; g < mid.levels()[l].size(); ++g)
                        CHECK(t.levels()[l][g].rootIndex() == mid.levels()[l][g].rootIndex());
            }
        }
    CHECK_THROWS_AS(firmware::ReduceTree::kTree(4, 2, 4), std::invalid_argument);
    CHECK_THROWS_AS(firmware::ReduceTree::kTree(4, 0), std::invalid_argument);
}

TEST_CASE("MeshGEMM's per-step critical path stays at 2 hops while Cannon's and SUMMA's grow") {
    uint32_t cannon_prev = 0, summa_prev = 0;
    for (uint32_t p : {8u, 16u, 32u, 64u}) {
        tb::KernelSpec s;
        s.op = "gemm", s.p = p, s.m = s.k = s.n = p;
        s.algo = "meshgemm";
        const auto mg = tb::KernelTestbench::plan(wseNoc(), s);
        s.algo = "cannon";
        const auto cn = tb::KernelTestbench::plan(wseNoc(), s);
        s.algo = "summa";
        const auto su = tb::KernelTestbench::plan(wseNoc(), s);
        INFO("P = " << p);
        CHECK(mg.step_path.hops == 2);
        CHECK(mg.step_path.stages == 1);
        CHECK(mg.relayed_paths == 0);
        CHECK(cn.step_path.hops == p - 1);
        CHECK(su.step_path.hops == p - 1);
        CHECK(cn.step_path.hops > cannon_prev);
        CHECK(su.step_path.hops * su.step_path.stages > summa_prev);
        cannon_prev = cn.step_path.hops, summa_prev = su.step_path.hops * su.step_path.stages;
        CHECK(mg.routes_per_core <= 24);
        CHECK(cn.routes_per_core <= 24);
        CHECK(su.routes_per_core <= 24);
    }
    // ... and the simulated small mesh agrees: MeshGEMM's steps are as short at P = 8 as at P = 4.
    const auto small = run("gemm", "meshgemm", 8, 16, 16, 16);
    const auto cannon = run("gemm", "cannon", 8, 16, 16, 16);
    CHECK(small.correct);
    CHECK(small.cycles < cannon.cycles);
}

TEST_CASE("SUMMA beyond the route limit pipelines its broadcasts and stays correct") {
    // 2P entries per router are needed; at P = 16 with 24 routes some broadcasts must pipeline.
    tb::KernelSpec s;
    s.op = "gemm", s.algo = "summa", s.p = 16, s.m = s.k = s.n = 32;
    const auto plan = tb::KernelTestbench::plan(wseNoc(), s);
    CHECK(plan.rejected_multicasts > 0);
    CHECK(plan.routes_per_core <= 24);
    CHECK(plan.step_path.stages > 1);
    CHECK(run("gemm", "summa", 16, 32, 32, 32).correct);
}

TEST_CASE("a route limit too small for direct routes makes cores relay and pay for it") {
    noc::NocParams np = wseNoc();
    np.route_limit = 1;  // Cannon's wrap-around routes cannot all pass
    const auto r = run("gemm", "cannon", 5, 10, 10, 10, np);
    CHECK(r.correct);
    CHECK(r.relayed_paths > 0);
    CHECK(r.relays > 0);
    CHECK(r.relay_cycles > 0);
    CHECK(r.routes_per_core <= 1);
}

TEST_CASE("timing-only mode gives the same cycles as functional mode") {
    for (const std::string algo : {"meshgemm", "summa"}) {
        tb::KernelSpec s;
        s.op = "gemm", s.algo = algo, s.p = 4, s.m = s.k = s.n = 16;
        const auto f = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
        s.functional = false;
        const auto t = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
        CHECK(f.cycles == t.cycles);
        CHECK_FALSE(t.checked);
    }
}

TEST_CASE("bad kernel requests are refused with a reason") {
    tb::KernelSpec s;
    s.op = "gemm", s.algo = "strassen", s.p = 2, s.m = s.k = s.n = 4;
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                      Catch::Contains("meshgemm"));
    s.algo = "meshgemm", s.m = 5;
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                      Catch::Contains("multiple of 2"));
    s.op = "conv";
    CHECK_THROWS_AS(tb::KernelTestbench::run(wseNoc(), wseCore(), s), std::invalid_argument);
}

namespace {

// Every number of a run that the firmware's form could change.
void checkSameRun(const tb::KernelResult& looped, const tb::KernelResult& flat) {
    CHECK(looped.cycles == flat.cycles);
    CHECK(looped.evaluations == flat.evaluations);
    CHECK(looped.macs == flat.macs);
    CHECK(looped.compute_cycles == flat.compute_cycles);
    CHECK(looped.sram_bytes == flat.sram_bytes);
    CHECK(looped.relays == flat.relays);
    CHECK(looped.relay_cycles == flat.relay_cycles);
    CHECK(looped.energy.total_pj == flat.energy.total_pj);
    CHECK(looped.correct == flat.correct);
    CHECK(looped.max_abs_error == flat.max_abs_error);
}

}  // namespace

TEST_CASE("looped ring GEMMs run exactly as their unrolled form (issue 12, item 4)") {
    // The ring schedules loop over their steps and rotate buffers by SWAP; LoopUnroller gives
    // the straight-line program they stand for. Both must issue the same instructions on the
    // same storage in the same cycles: cycles, evaluations, stats, energy and C equal.
    struct Case {
        std::string algo;
        uint32_t p, q, s;
        bool shift_align;
        uint32_t route_limit;
    };
    const std::vector<Case> cases = {
        {"meshgemm", 1, 0, 8, false, 24},  {"meshgemm", 2, 0, 8, false, 24},
        {"meshgemm", 5, 0, 20, false, 24}, {"meshgemm", 8, 0, 32, false, 24},
        {"cannon", 7, 0, 14, false, 24},   {"meshgemm", 6, 0, 12, true, 24},
        {"cannon", 4, 0, 8, true, 24},     {"meshgemm", 5, 0, 10, false, 1},
        {"meshgemm", 3, 4, 24, false, 24}, {"cannon", 4, 6, 24, false, 24},
        {"meshgemm", 1, 3, 6, false, 24},  {"meshgemm", 3, 1, 6, false, 24},
        {"meshgemm", 2, 5, 20, false, 2}};
    for (const Case& c : cases) {
        INFO(c.algo << " " << c.p << "x" << c.q << " S=" << c.s << " shift_align " << c.shift_align
                    << " route_limit " << c.route_limit);
        tb::KernelSpec s;
        s.op = "gemm", s.algo = c.algo, s.p = c.p, s.q = c.q, s.m = s.k = s.n = c.s;
        s.shift_align = c.shift_align;
        noc::NocParams np = wseNoc();
        np.route_limit = c.route_limit;
        const tb::KernelResult looped = tb::KernelTestbench::run(np, wseCore(), s);
        s.unroll = true;
        const tb::KernelResult flat = tb::KernelTestbench::run(np, wseCore(), s);
        CHECK(looped.correct);
        checkSameRun(looped, flat);
        if (c.route_limit < 24 && c.p > 2) CHECK(looped.relays > 0);  // relays in loop bodies
        // (Program lengths: the O(1) test below; for P <= 2 the loop is longer than its body.)
    }
}

TEST_CASE("ring GEMM programs are O(1) instructions per core in P (issue 12, item 4)") {
    // Placement-aligned MeshGEMM / Cannon: the same program length at every P (loop, two
    // sends, two receives, a GEMM, two swaps, endloop, the last GEMM); unrolled it grows with P.
    auto longest = [](const firmware::Firmware& fw) {
        size_t n = 0;
        for (uint32_t c = 0; c < fw.cores(); ++c) n = std::max(n, fw.program(c).code().size());
        return n;
    };
    for (const char* algo : {"meshgemm", "cannon"}) {
        std::vector<size_t> lengths;
        for (uint32_t p : {4u, 8u, 16u, 32u}) {
            tb::KernelSpec s;
            s.op = "gemm", s.algo = algo, s.p = p, s.m = s.k = s.n = 2 * p;
            const firmware::KernelPlan plan = tb::KernelTestbench::plan(wseNoc(), s);
            lengths.push_back(longest(plan.fw));
            CHECK(longest(firmware::LoopUnroller::unroll(plan.fw)) == 5 * (p - 1) + 1);
        }
        INFO(algo);
        CHECK(lengths.front() == 10);
        CHECK(std::all_of(lengths.begin(), lengths.end(),
                          [&](size_t n) { return n == lengths.front(); }));
    }
}

TEST_CASE("looped kernel firmware survives its text form (issue 12, item 4)") {
    // The generators' loops and swaps are part of the ISA's text: dump, parse, and the programs
    // are the same instruction for instruction (buffers by name, loops indented).
    for (const char* algo : {"meshgemm", "cannon"}) {
        tb::KernelSpec s;
        s.op = "gemm", s.algo = algo, s.p = 4, s.q = algo[0] == 'c' ? 6 : 0, s.m = s.k = s.n = 24;
        const firmware::KernelPlan plan = tb::KernelTestbench::plan(wseNoc(), s);
        const std::string text = firmware::ProgramText::dump(plan.fw);
        INFO(algo << "\n" << text.substr(0, 2000));
        CHECK_THAT(text, Catch::Contains("\n  swap a=A0 b=A1\n") && Catch::Contains("endloop\n"));
        const firmware::Firmware back = firmware::ProgramText::parse(text, "kernel.fw");
        REQUIRE(back.cores() == plan.fw.cores());
        for (uint32_t c = 0; c < back.cores(); ++c) {
            const auto &a = plan.fw.program(c).code(), &b = back.program(c).code();
            REQUIRE(a.size() == b.size());
            for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
        }
    }
}
