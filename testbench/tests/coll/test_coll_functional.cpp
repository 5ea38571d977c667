// Functional checks of the collectives library (firmware/collectives): real fp32 values through
// the cores and the NoC (CoreArray::run, no SystemC), every rank's output equal to the
// reference, on the die-level TEMP mesh (one core per die, 200 ns D2D links) and on a core mesh.
#include <catch2/catch.hpp>
#include <chrono>
#include <numeric>
#include <random>

#include "CollTestUtil.h"
#include "firmware/collectives/CollectiveEmitter.h"
#include "firmware/collectives/TreeSchedule.h"

using namespace wsc;
using namespace wsc::firmware::coll;

namespace {

// A contiguous ring of n dies on the 4 x 8 die array: a snake through a 2-wide column band, so
// every logical hop is one D2D link (n even); odd n closes with a 2-hop link.
std::vector<uint32_t> snake(uint32_t n, uint32_t x = 4) {
    std::vector<uint32_t> down, up;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t y = i / 2, col = i % 2;
        (col == 0 ? down : up).push_back(y * x + col);
    }
    std::reverse(up.begin(), up.end());
    down.insert(down.end(), up.begin(), up.end());
    return down;
}

CollectiveSpec ring(Collective k, std::vector<uint32_t> ranks, uint64_t elems, uint32_t pieces,
                    bool bidir) {
    CollectiveSpec s;
    s.kind = k, s.algo = Algorithm::Ring, s.ranks = std::move(ranks), s.elems = elems;
    s.pieces = pieces, s.bidirectional = bidir, s.prefix = "t";
    return s;
}

const Collective kRingKinds[] = {Collective::AllReduce, Collective::ReduceScatter,
                                 Collective::AllGather};

}  // namespace

TEST_CASE("ring all-reduce, reduce-scatter and all-gather equal the reference on die-level rings",
          "[coll][ring]") {
    const noc::NocParams np = test::loadConfig("temp_4x8_die_level.yaml").noc;
    for (uint32_t n = 2; n <= 8; ++n)
        for (Collective k : kRingKinds)
            for (bool bidir : {false, true})
                for (uint32_t pieces : {1u, 3u})
                    // Not divisible by n (nor by 2 n pieces), and fewer elements than messages.
                    for (uint64_t elems : {uint64_t(37 * n + 5), uint64_t(5)}) {
                        test::checkCorrect(np, ring(k, snake(n), elems, pieces, bidir));
                        test::checkCorrect(np, ring(k, test::scattered(n, 32, n * 101 + elems),
                                                    elems, pieces, bidir));
                    }
}

TEST_CASE("ring collectives equal the reference on a core mesh, contiguous and scattered",
          "[coll][ring]") {
    const noc::NocParams np = test::meshParams(4, 4);
    for (uint32_t n : {2u, 3u, 5u, 8u, 16u})
        for (Collective k : kRingKinds)
            for (bool bidir : {false, true})
                for (uint32_t pieces : {1u, 4u}) {
                    std::vector<uint32_t> line(n);
                    std::iota(line.begin(), line.end(), 0);  // row-major: wrap hops are long
                    test::checkCorrect(np, ring(k, line, 1000 + n, pieces, bidir));
                    test::checkCorrect(np, ring(k, test::scattered(n, 16, n), 999, pieces, bidir));
                }
}

TEST_CASE("a reduce-scatter followed by an all-gather on the same buffers is an all-reduce",
          "[coll][ring]") {
    // The lead's lowering chains collectives on one prefix: RS leaves rank q's block q in the
    // very buffers the AG sends from.
    const noc::NocParams np = test::loadConfig("temp_4x8_die_level.yaml").noc;
    for (bool bidir : {false, true}) {
        CollectiveSpec rs =
            ring(Collective::ReduceScatter, test::scattered(6, 32, 3), 200, 2, bidir);
        CollectiveSpec ag = rs;
        ag.kind = Collective::AllGather;
        firmware::Firmware fw(32);
        const CollectiveLayout a = Collectives::emit(fw, rs);
        const CollectiveLayout b = Collectives::emit(fw, ag);
        for (uint32_t r = 0; r < 6; ++r) {
            // AG input buffers = RS output buffers, rank by rank.
            REQUIRE(a.ranks[r].output.size() == b.ranks[r].input.size());
            for (size_t i = 0; i < a.ranks[r].output.size(); ++i) {
                CHECK(a.ranks[r].output[i].buffer == b.ranks[r].input[i].buffer);
                CHECK(a.ranks[r].output[i].begin == b.ranks[r].input[i].begin);
            }
        }
        // Run both; the AG's output must be the sum (AG's reference would be its own inputs).
        CollectiveSpec ar = rs;
        ar.kind = Collective::AllReduce;
        noc::Network net(np, 1);
        core::CoreParams cp = test::bigCore();
        core::CoreArray cores(net, cp);
        cores.load(fw);
        for (uint32_t r = 0; r < 6; ++r)
            for (const Segment& g : a.ranks[r].input) {
                float* p = cores.core(rs.ranks[r]).buffer(g.buffer);
                for (uint64_t i = 0; i < g.count; ++i) p[i] = test::inputValue(r, g.begin + i);
            }
        cores.finish(cores.run());
        for (uint32_t r = 0; r < 6; ++r)
            for (const Segment& g : b.ranks[r].output) {
                const float* p = cores.core(rs.ranks[r]).buffer(g.buffer);
                for (uint64_t i = 0; i < g.count; ++i)
                    REQUIRE(p[i] == test::expectedValue(ar, r, g.begin + i));
            }
    }
}

TEST_CASE("2D ring collectives (rows, then columns) equal the reference", "[coll][ring2d]") {
    const noc::NocParams np = test::loadConfig("temp_4x8_die_level.yaml").noc;
    struct G {
        uint32_t rows, cols;
    };
    for (G g : {G{2, 2}, G{2, 3}, G{3, 2}, G{3, 3}, G{4, 2}, G{1, 4}, G{4, 1}})
        for (Collective k : kRingKinds)
            for (bool bidir : {false, true})
                for (uint32_t pieces : {1u, 2u})
                    for (bool scatter : {false, true}) {
                        CollectiveSpec s;
                        s.kind = k, s.algo = Algorithm::Ring2D, s.rows = g.rows, s.cols = g.cols;
                        s.prefix = "h", s.pieces = pieces, s.bidirectional = bidir;
                        s.elems = 7 * g.rows * g.cols + 3;
                        if (scatter) {
                            s.ranks = test::scattered(g.rows * g.cols, 32, g.rows * 10 + g.cols);
                        } else {  // the top-left rows x cols dies of the 4-wide array
                            for (uint32_t i = 0; i < g.rows; ++i)
                                for (uint32_t j = 0; j < g.cols; ++j) s.ranks.push_back(i * 4 + j);
                        }
                        test::checkCorrect(np, s);
                    }
}

TEST_CASE("direct all-to-all equals the reference, staggered or not", "[coll][alltoall]") {
    const noc::NocParams die = test::loadConfig("temp_4x8_die_level.yaml").noc;
    const noc::NocParams mesh = test::meshParams(4, 4);
    for (uint32_t n = 2; n <= 8; ++n)
        for (bool staggered : {true, false})
            for (uint32_t pieces : {1u, 3u})
                for (uint64_t elems : {uint64_t(11 * n + 3), uint64_t(n - 1)}) {
                    CollectiveSpec s;
                    s.kind = Collective::AllToAll, s.algo = Algorithm::Direct, s.prefix = "a";
                    s.elems = elems, s.pieces = pieces, s.staggered = staggered;
                    s.ranks = test::scattered(n, 32, n + elems);
                    test::checkCorrect(die, s);
                    s.ranks = test::scattered(n, 16, n + elems + 1);
                    test::checkCorrect(mesh, s);
                }
}

TEST_CASE("binomial and grid trees: shape", "[coll][tree]") {
    const Tree t = TreeSchedule::binomial(8, 0);
    CHECK(t.children[0] == std::vector<uint32_t>{4, 2, 1});  // largest subtree first
    CHECK(t.children[4] == std::vector<uint32_t>{6, 5});
    CHECK(t.children[6] == std::vector<uint32_t>{7});
    CHECK(t.parent[5] == 4);
    CHECK(t.depth() == 3);
    const Tree r = TreeSchedule::binomial(5, 3);  // rooted at rank 3: relative 0 = rank 3
    CHECK(r.children[3] == std::vector<uint32_t>{2, 0, 4});
    CHECK(r.parent[1] == 0);
    CHECK(r.depth() == 2);
    const Tree g = TreeSchedule::grid(3, 4, 5);  // root at row 1, column 1
    CHECK(g.parent[5] == Tree::kNone);
    CHECK(g.children[5] == std::vector<uint32_t>{7, 6, 1, 9});  // row (cols 3, 2), column
    CHECK(g.parent[4] == 7);                                    // (1,0) from (1,3): rel. 3 = 2+1
    CHECK(g.parent[8] == 4);                                    // column 0 from row 1
    CHECK(g.depth() == 2 + 1);
}

TEST_CASE("broadcast and reduce trees and send-recv equal the reference", "[coll][tree]") {
    const noc::NocParams die = test::loadConfig("temp_4x8_die_level.yaml").noc;
    const noc::NocParams mesh = test::meshParams(4, 4);
    for (Collective k : {Collective::Broadcast, Collective::Reduce})
        for (uint32_t n = 2; n <= 8; ++n)
            for (uint32_t pieces : {1u, 3u}) {
                CollectiveSpec s;
                s.kind = k, s.algo = Algorithm::Tree, s.prefix = "b", s.pieces = pieces;
                s.elems = 13 * n + 1, s.root = (n * 5) % n;
                s.ranks = test::scattered(n, 32, n * 7);
                test::checkCorrect(die, s);
                s.root = n - 1;
                s.ranks = test::scattered(n, 16, n * 7 + 1);
                test::checkCorrect(mesh, s);
            }
    struct G {
        uint32_t rows, cols, root;
    };
    for (Collective k : {Collective::Broadcast, Collective::Reduce})
        for (G g : {G{2, 2, 0}, G{2, 4, 5}, G{3, 3, 4}, G{4, 4, 14}, G{1, 5, 2}}) {
            CollectiveSpec s;
            s.kind = k, s.algo = Algorithm::Tree2D, s.prefix = "g", s.pieces = 2;
            s.rows = g.rows, s.cols = g.cols, s.root = g.root, s.elems = 100;
            for (uint32_t i = 0; i < g.rows; ++i)
                for (uint32_t j = 0; j < g.cols; ++j) s.ranks.push_back(i * 4 + j);
            test::checkCorrect(mesh, s);
            test::checkCorrect(die, s);
        }
    for (uint32_t pieces : {1u, 4u}) {
        CollectiveSpec s;
        s.kind = Collective::SendRecv, s.algo = Algorithm::Direct, s.prefix = "p";
        s.elems = 1001, s.pieces = pieces, s.ranks = {31, 2};
        test::checkCorrect(die, s);
        s.ranks = {0, 15};
        test::checkCorrect(mesh, s);
    }
}

TEST_CASE("collectives reuse their buffers by name: a hundred all-reduces cost SRAM once",
          "[coll][buffers]") {
    const noc::NocParams np = test::meshParams(4, 4);
    CollectiveSpec s = ring(Collective::AllReduce, {0, 1, 5, 4}, 103, 2, true);
    firmware::Firmware fw(16);
    Collectives::emit(fw, s);
    const auto once = fw.program(5).buffers().size();
    const uint64_t bytes = Collectives::sramBytes(s);
    uint64_t declared = 0;
    for (const auto& d : fw.program(5).buffers()) declared += d.bytes();
    CHECK(declared == bytes);
    // Data: 103 elements (each half of each block, in pieces) + receive buffers of one piece
    // per direction and slot.
    CHECK(bytes >= 103 * 4);
    CHECK(bytes < 103 * 4 + 2 * 2 * 8 * 4);
    for (int i = 0; i < 99; ++i) Collectives::emit(fw, s);
    CHECK(fw.program(5).buffers().size() == once);
    // A smaller one with the same prefix fits in the same buffers.
    CollectiveSpec small = s;
    small.elems = 50;
    Collectives::emit(fw, small);
    CHECK(fw.program(5).buffers().size() == once);
    // A larger one grows the shared buffers to its size (SRAM of the prefix's largest use).
    CollectiveSpec big = s;
    big.elems = 500;
    const uint16_t b0 = fw.program(5).findBuffer("t.b0.h0.p0");
    const uint32_t before = fw.program(5).buffer(b0).elems;
    Collectives::emit(fw, big);
    CHECK(fw.program(5).buffer(b0).elems > before);
    // Another element type cannot share them, and says so.
    CollectiveSpec half = s;
    half.dtype = firmware::DType::FP16;
    CHECK_THROWS_WITH(Collectives::emit(fw, half),
                      Catch::Contains("already has a buffer 't.b0.h0.p0' of fp32") &&
                          Catch::Contains("another prefix"));
    // Two all-reduces in a row: the second reduces the first's result (4 x the sum).
    const test::CollRun r = test::runCollectives(np, test::bigCore(), {s, s}, true, false);
    CHECK(r.correct);
}

TEST_CASE("collective specs are validated with clear messages", "[coll][errors]") {
    firmware::Firmware fw(16);
    CollectiveSpec s = ring(Collective::AllReduce, {0, 1, 2}, 10, 1, false);
    auto bad = [&](CollectiveSpec b, const std::string& msg) {
        CHECK_THROWS_WITH(Collectives::emit(fw, b), Catch::Contains(msg));
    };
    CollectiveSpec b = s;
    b.ranks = {0, 1, 16};
    bad(b, "rank 2 is node 16, but the chip has 16 nodes");
    b = s, b.ranks = {0, 3, 0};
    bad(b, "node 0 is rank 0 and rank 2");
    b = s, b.prefix = "";
    bad(b, "needs a buffer-name prefix");
    b = s, b.elems = 0;
    bad(b, "has no elements");
    b = s, b.pieces = 0;
    bad(b, "pieces must be at least 1");
    b = s, b.algo = Algorithm::Tree;
    bad(b, "all-reduce has no tree algorithm");
    b = s, b.algo = Algorithm::Ring2D, b.rows = 2, b.cols = 2;
    bad(b, "a 2x2 grid does not hold its 3 ranks");
    b = s, b.kind = Collective::Broadcast, b.algo = Algorithm::Tree, b.root = 3;
    bad(b, "root rank 3 is not one of the 3 ranks");
    b = s, b.kind = Collective::SendRecv, b.algo = Algorithm::Direct;
    bad(b, "send-recv takes two ranks");
    b = s, b.kind = Collective::AllToAll, b.algo = Algorithm::Direct, b.bidirectional = true;
    bad(b, "only ring collectives are bidirectional");
}
