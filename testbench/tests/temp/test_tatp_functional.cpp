// TATP and the naive ring TSPP on the TEMP die-level wafer (configs/temp_4x8_die_level.yaml),
// every group at once, in functional mode: forward O, backward dI and gradient dW equal a plain
// reference for N = 2..16, weight and input streaming, contiguous ring and tetris layouts.
#include <catch2/catch.hpp>

#include "hw/HardwareLoader.h"
#include "testbench/TatpTestbench.h"

using namespace wsc;
using firmware::temp::StreamSchedule;
using firmware::temp::TatpKernel;

namespace {
const hw::HardwareConfig& hw32() {
    static const hw::HardwareConfig h = hw::HardwareLoader::loadFile(
        std::string(WSC_SOURCE_DIR) + "/configs/temp_4x8_die_level.yaml");
    return h;
}

tb::TatpResult runOne(StreamSchedule::Algo algo, const std::string& layout, uint32_t n, uint32_t m,
                      uint32_t h, uint32_t k) {
    tb::TatpRunSpec s;
    s.layout = layout, s.n = n;
    s.kernel.algo = algo;
    s.kernel.m = m, s.kernel.h = h, s.kernel.k = k;
    return tb::TatpTestbench::run(hw32().noc, hw32().core, s);
}
}  // namespace

// One process per test case (SystemC elaborates once): each case runs several groups' worth of
// dies in one network, so one case per (algorithm, layout) covers N = 2..16.
TEST_CASE("TATP equals the reference on ring groups, N = 2..16", "[temp][functional]") {
    for (uint32_t n : {2u, 4u, 8u, 16u}) {
        INFO("N = " << n);
        // m > k: weight streaming; m < k: input streaming.
        for (auto [m, k] : {std::pair<uint32_t, uint32_t>{4 * n, 2 * n}, {2 * n, 4 * n}}) {
            const auto r = runOne(StreamSchedule::Algo::Tatp, "ring", n, m, 8, k);
            INFO(r.notes);
            CHECK(r.checked);
            CHECK(r.correct);
            CHECK(r.max_chain_hops == (n > 1 ? 1u : 0u));
        }
    }
}

TEST_CASE("the naive ring equals the reference on rings and lines, N = 2..16",
          "[temp][functional]") {
    for (const char* layout : {"ring", "line"})
        for (uint32_t n : {2u, 4u, 8u, 16u}) {
            if (std::string(layout) == "line" && n == 16)
                continue;  // a 4 x 8 wafer has no line of 16
            INFO(layout << " N = " << n);
            for (auto [m, k] : {std::pair<uint32_t, uint32_t>{4 * n, 2 * n}, {2 * n, 4 * n}}) {
                const auto r = runOne(StreamSchedule::Algo::Ring, layout, n, m, 8, k);
                CHECK(r.correct);
                if (std::string(layout) == "line" && n > 2) CHECK(r.wrap_hops == n - 1);
            }
        }
}

TEST_CASE("TATP equals the reference on lines, tetris runs and strided groups",
          "[temp][functional]") {
    for (const char* layout : {"line", "tetris"})
        for (uint32_t n : {2u, 4u, 8u, 16u}) {
            if (std::string(layout) == "line" && n == 16) continue;
            INFO(layout << " N = " << n);
            for (auto [m, k] : {std::pair<uint32_t, uint32_t>{4 * n, 2 * n}, {2 * n, 4 * n}}) {
                const auto r = runOne(StreamSchedule::Algo::Tatp, layout, n, m, 8, k);
                CHECK(r.correct);
                CHECK(r.max_chain_hops == 1);
            }
        }
    // TEMP Fig. 11's TATP groups on the top 4 x 4 dies: every chain step is two hops.
    for (auto algo : {StreamSchedule::Algo::Tatp, StreamSchedule::Algo::Ring}) {
        const auto r = runOne(algo, "0,2,10,8;1,3,11,9;4,6,14,12;5,7,15,13", 4, 16, 8, 8);
        CHECK(r.correct);
        CHECK(r.max_chain_hops == 2);
    }
}

TEST_CASE("TATP's one-hop rounds beat the ring's wrap on lines and tie on rings",
          "[temp][timing]") {
    // A line of 4 dies: the ring's wrap crosses 3 D2D hops of 200 ns every round; TATP never
    // waits for more than one. On a physical ring the two move the same bytes one hop per round.
    const auto ring_line = runOne(StreamSchedule::Algo::Ring, "line", 4, 32, 64, 16);
    const auto tatp_line = runOne(StreamSchedule::Algo::Tatp, "line", 4, 32, 64, 16);
    const auto ring_ring = runOne(StreamSchedule::Algo::Ring, "ring", 4, 32, 64, 16);
    const auto tatp_ring = runOne(StreamSchedule::Algo::Tatp, "ring", 4, 32, 64, 16);
    CHECK(tatp_line.cycles < ring_line.cycles);
    CHECK(double(tatp_ring.cycles) == Approx(double(ring_ring.cycles)).epsilon(0.05));
    CHECK(double(tatp_line.cycles) == Approx(double(tatp_ring.cycles)).epsilon(0.05));
}

TEST_CASE("TCME's mapping shortens TEMP Fig. 11's step and keeps the values", "[temp][tcme]") {
    // 4 x 4 dies (the top half of the 4 x 8 wafer): FSDP all-gathers of degree 4 beside TATP of
    // degree 4 on strided groups, as TEMP Sec. VI-B describes.
    auto one = [](const std::string& mapping, bool functional) {
        tb::TatpRunSpec s;
        s.layout = "2,0,8,10;3,1,9,11;6,4,12,14;7,5,13,15", s.n = 4;
        s.fsdp = "5,4,0,1;7,6,2,3;13,12,8,9;15,14,10,11";
        s.mapping = mapping, s.functional = functional;
        s.kernel.stages = {TatpKernel::Stage::Forward};
        if (functional) {
            s.kernel.m = 16, s.kernel.h = 8, s.kernel.k = 32, s.fsdp_elems = 64;
        } else {
            s.kernel.m = 1024, s.kernel.h = 4096, s.kernel.k = 4096, s.fsdp_elems = 2097152;
        }
        return tb::TatpTestbench::run(hw32().noc, hw32().core, s);
    };
    const auto smap = one("smap", false), tcme = one("tcme", false);
    CHECK(smap.load_at_max == 48);
    CHECK(tcme.load_at_max == 28);
    CHECK(!tcme.moves.empty());
    CHECK(tcme.cycles < smap.cycles);  // measured 20203 against 22063
    CHECK(one("tcme", true).correct);
}

TEST_CASE("TCME's multicast trees keep the values and shorten a folded chain's step",
          "[temp][tcme]") {
    // Chain 0 -> 2 -> 1 -> 3 along the wafer's first row: in round 0 die 1 sends its block to
    // 2 and 3 and die 2 to 0 and 1, each pair over a shared link. Merged into multicast trees
    // (chain order kept), the shared links carry each block once.
    auto one = [](bool merge, bool functional) {
        tb::TatpRunSpec s;
        s.layout = "0,2,1,3", s.n = 4;
        s.mapping = merge ? "tcme" : "smap";
        s.tcme_moves = {false, false, true};
        s.functional = functional;
        s.auto_stream = false, s.kernel.stream = TatpKernel::Stream::Weight;
        if (functional) {
            s.kernel.m = 32, s.kernel.h = 64, s.kernel.k = 16;
        } else {
            s.kernel.m = 64, s.kernel.h = 4096, s.kernel.k = 1024;
            s.kernel.stages = {TatpKernel::Stage::Forward};
        }
        return tb::TatpTestbench::run(hw32().noc, hw32().core, s);
    };
    const auto plain = one(false, false), merged = one(true, false);
    CHECK(plain.load_max == 3);
    CHECK(merged.load_max == 2);
    CHECK(merged.multicast_trees == 2);
    CHECK(merged.d2d_flits < plain.d2d_flits);
    CHECK(merged.cycles < plain.cycles);  // measured 9832 against 11896
    const auto f = one(true, true);
    CHECK(f.multicast_trees == 2);
    CHECK(f.correct);  // forward, backward (broadcasts on the trees) and gradient
}
