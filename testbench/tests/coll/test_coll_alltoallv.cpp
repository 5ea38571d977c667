// All-to-all-v (CollectiveSpec::counts, per-pair sizes): real fp32 values through the cores and
// the NoC checked per element at every rank's output, the uniform all-to-all given as counts
// emitting the very same programs as without, and the counts' validation.
#include <catch2/catch.hpp>
#include <numeric>
#include <random>

#include "CollTestUtil.h"
#include "core/CollectiveCosts.h"
#include "firmware/collectives/CollectiveTiming.h"

using namespace wsc;
using namespace wsc::firmware::coll;

namespace {

CollectiveSpec allToAllV(std::vector<uint32_t> ranks, std::vector<uint64_t> counts, uint32_t pieces,
                         bool staggered) {
    CollectiveSpec s;
    s.kind = Collective::AllToAll, s.algo = Algorithm::Direct, s.prefix = "v";
    s.ranks = std::move(ranks), s.counts = std::move(counts);
    s.pieces = pieces, s.staggered = staggered;
    return s;
}

// The uniform all-to-all of `elems` on n ranks as a pair matrix.
std::vector<uint64_t> uniformCounts(uint64_t elems, uint32_t n) {
    std::vector<uint64_t> m;
    for (uint32_t q = 0; q < n; ++q)
        for (uint32_t j = 0; j < n; ++j) m.push_back(Partition::size(elems, n, j));
    return m;
}

uint64_t largestRow(const CollectiveSpec& s) {
    uint64_t most = 0;
    for (uint32_t q = 0; q < s.size(); ++q) most = std::max(most, test::allToAllInputElems(s, q));
    return most;
}

// Skewed matrices: zero pairs, a zero row (rank 1 of 4, rank 2 of 5 sends nothing), pairs
// smaller than the pieces, one hot pair; on 5 ranks rank 2 also receives nothing.
const std::vector<uint64_t> kSkew4 = {5,  0,  37, 2,   //
                                      0,  0,  0,  0,   //
                                      11, 1,  0,  64,  //
                                      3,  29, 0,  7};
const std::vector<uint64_t> kSkew5 = {0, 13, 0, 4, 100,  //
                                      2, 0,  0, 1, 50,   //
                                      0, 0,  0, 0, 0,    //
                                      7, 0,  0, 9, 33,   //
                                      1, 17, 0, 0, 0};

bool sameFirmware(const firmware::Firmware& a, const firmware::Firmware& b) {
    if (a.cores() != b.cores()) return false;
    for (uint32_t c = 0; c < a.cores(); ++c) {
        const firmware::Program &p = a.program(c), &q = b.program(c);
        if (!(p.code() == q.code())) return false;
        if (p.buffers().size() != q.buffers().size()) return false;
        for (size_t i = 0; i < p.buffers().size(); ++i) {
            const firmware::BufferDecl &x = p.buffers()[i], &y = q.buffers()[i];
            if (x.name != y.name || x.elems != y.elems || x.dtype != y.dtype) return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("all-to-all-v with skewed per-pair counts equals the reference", "[coll][alltoallv]") {
    const noc::NocParams die = test::loadConfig("temp_4x8_die_level.yaml").noc;
    const noc::NocParams mesh = test::meshParams(4, 4);
    for (const auto& counts : {kSkew4, kSkew5}) {
        const uint32_t n = counts.size() == 16 ? 4 : 5;
        for (bool staggered : {true, false})
            for (uint32_t pieces : {1u, 3u}) {
                CollectiveSpec s =
                    allToAllV(test::scattered(n, 32, n + pieces), counts, pieces, staggered);
                test::checkCorrect(die, s);
                s.elems = largestRow(s);  // elems given: the largest rank input
                s.ranks = test::scattered(n, 16, n + pieces + 1);
                test::checkCorrect(mesh, s);
            }
    }
    // Random skews: a fifth of the pairs empty, the rest 1 .. 40, one hot receiver getting 8x.
    std::mt19937_64 rng(7);
    for (uint32_t n : {4u, 5u})
        for (uint32_t trial = 0; trial < 3; ++trial) {
            std::vector<uint64_t> counts(n * n);
            const uint32_t hot = uint32_t(rng() % n);
            for (uint32_t q = 0; q < n; ++q)
                for (uint32_t j = 0; j < n; ++j) {
                    const uint64_t c = rng() % 5 == 0 ? 0 : 1 + rng() % 40;
                    counts[q * n + j] = j == hot ? 8 * c : c;
                }
            test::checkCorrect(
                die, allToAllV(test::scattered(n, 32, 100 + trial), counts, 2, trial % 2 == 0));
        }
}

TEST_CASE("all-to-all-v layout: inputs in destination order, outputs in source order",
          "[coll][alltoallv]") {
    firmware::Firmware fw(16);
    const CollectiveSpec s = allToAllV({0, 5, 10, 15}, kSkew4, 1, true);
    const CollectiveLayout lay = Collectives::emit(fw, s);
    // Rank 2 (row 11, 1, 0, 64): blocks for ranks 0, 1, 3 at 0, 11, 12; nothing for itself.
    const RankLayout& r2 = lay.ranks[2];
    REQUIRE(r2.input.size() == 3);
    CHECK(r2.input[0].begin == 0);
    CHECK(r2.input[1].begin == 11);
    CHECK(r2.input[2].begin == 12);
    CHECK(r2.input[2].count == 64);
    // Rank 3 (column 2, 0, 64, 7): from rank 0 at 0, rank 2 at 2, its own at 66.
    const RankLayout& r3 = lay.ranks[3];
    REQUIRE(r3.output.size() == 3);
    CHECK(r3.output[0].begin == 0);
    CHECK(r3.output[1].begin == 2);
    CHECK(r3.output[1].count == 64);
    CHECK(r3.output[2].begin == 66);
    CHECK(r3.output[2].buffer == "v.s3.p0");  // its own block stays in its input buffer
    // The zero row: rank 1 has no input and sends nothing, but receives its column.
    CHECK(lay.ranks[1].input.empty());
    uint64_t got = 0;
    for (const Segment& g : lay.ranks[1].output) got += g.count;
    CHECK(got == 0 + 0 + 1 + 29);
    // Zero pairs send no message: rank 0 (5, 0, 37, 2) sends two, rank 1 none.
    auto sends = [&](uint32_t node) {
        uint32_t c = 0;
        for (const auto& i : fw.program(node).code()) c += i.op == firmware::Opcode::Send;
        return c;
    };
    CHECK(sends(0) == 2);
    CHECK(sends(5) == 0);
    CHECK(sends(10) == 3);
    CHECK(sends(15) == 2);
    // The most SRAM: rank 2, its row (76) and what it receives from the others (37 + 0 + 0).
    CHECK(Collectives::sramBytes(s) == (76 + 37) * 4);
    CHECK(describe(s) == "direct all-to-all-v of 159 fp32 in all on 4 ranks");
}

TEST_CASE(
    "all-to-all-v: the uniform all-to-all given as counts emits the same programs and takes the "
    "same time",
    "[coll][alltoallv]") {
    const hw::HardwareConfig cfg = test::loadConfig("temp_4x8_die_level.yaml");
    noc::Network net(cfg.noc, 1);
    const CollectiveTiming timing(net, core::collectiveCosts(cfg.core));
    for (uint32_t n : {3u, 4u, 5u, 8u})
        for (uint64_t elems : {uint64_t(11 * n + 3), uint64_t(n - 1), uint64_t(4000 * n + 7)})
            for (uint32_t pieces : {1u, 3u})
                for (bool staggered : {true, false}) {
                    CollectiveSpec u;
                    u.kind = Collective::AllToAll, u.algo = Algorithm::Direct, u.prefix = "a";
                    u.ranks = test::scattered(n, 32, n * 3 + elems), u.elems = elems;
                    u.pieces = pieces, u.staggered = staggered, u.dtype = firmware::DType::FP16;
                    CollectiveSpec v = u;
                    v.counts = uniformCounts(elems, n), v.elems = 0;
                    INFO(describe(u));
                    firmware::Firmware a(32), b(32), c(32);
                    Collectives::emit(a, u);
                    Collectives::emit(b, v);
                    CHECK(sameFirmware(a, b));
                    v.elems = elems;  // given: the largest row sum (the uniform input)
                    Collectives::emit(c, v);
                    CHECK(sameFirmware(a, c));
                    CHECK(Collectives::sramBytes(u) == Collectives::sramBytes(v));
                    // Staged through a budget that forces several segments: the same DMA and
                    // communication, segment by segment.
                    firmware::Firmware sa(32), sb(32);
                    std::vector<uint64_t> in(n), out(n);
                    for (uint32_t r = 0; r < n; ++r) in[r] = r * 1000000, out[r] = in[r] + 500000;
                    const uint64_t budget =
                        std::max<uint64_t>(Collectives::sramBytes(u) / 3, 8 * n);
                    const StagedPlan pa = Collectives::emitStaged(sa, u, Staging{budget, in, out});
                    const StagedPlan pb = Collectives::emitStaged(sb, v, Staging{budget, in, out});
                    CHECK(pa.segments == pb.segments);
                    CHECK(pa.segment_elems == pb.segment_elems);
                    CHECK(pa.sram_bytes == pb.sram_bytes);
                    CHECK(sameFirmware(sa, sb));
                    if (elems >= n) {
                        const CollectiveTime tu = timing.estimate(u), tv = timing.estimate(v);
                        CHECK(tu.cycles == tv.cycles);
                        CHECK(tu.link_bound == tv.link_bound);
                        CHECK(tu.port_bound == tv.port_bound);
                        CHECK(tu.latency_bound == tv.latency_bound);
                    }
                }
    // And the same cycles when run (one case per size; the programs are equal anyway).
    for (uint32_t n : {4u, 8u}) {
        CollectiveSpec u;
        u.kind = Collective::AllToAll, u.algo = Algorithm::Direct, u.prefix = "a";
        u.ranks = test::scattered(n, 32, n), u.elems = 100000 * n + 5, u.pieces = 4;
        u.dtype = firmware::DType::FP16;
        CollectiveSpec v = u;
        v.counts = uniformCounts(u.elems, n), v.elems = 0;
        const uint64_t cu = test::runCollectives(cfg.noc, cfg.core, {u}, false, false).cycles;
        const uint64_t cv = test::runCollectives(cfg.noc, cfg.core, {v}, false, false).cycles;
        CHECK(cu == cv);
        CHECK(cu > 0);
    }
}

TEST_CASE("all-to-all-v counts are validated with clear messages", "[coll][alltoallv][errors]") {
    firmware::Firmware fw(16);
    const CollectiveSpec s = allToAllV({0, 1, 2, 3}, kSkew4, 1, true);
    auto bad = [&](CollectiveSpec b, const std::string& msg) {
        INFO(msg);
        CHECK_THROWS_WITH(Collectives::emit(fw, b), Catch::Contains(msg));
    };
    CollectiveSpec b = s;
    b.counts.pop_back();
    bad(b, "has 15 per-pair counts, but 4 ranks need 4 x 4 = 16");
    b = s, b.counts.resize(25, 1);
    bad(b, "has 25 per-pair counts, but 4 ranks need 4 x 4 = 16");
    b = s, b.kind = Collective::AllReduce, b.algo = Algorithm::Ring;
    bad(b, "per-pair counts are for the direct all-to-all only, not a ring all-reduce");
    b = s, b.kind = Collective::ReduceScatter, b.algo = Algorithm::Ring, b.elems = 100;
    bad(b, "per-pair counts are for the direct all-to-all only, not a ring reduce-scatter");
    b = s, b.kind = Collective::SendRecv, b.ranks = {0, 1}, b.counts = {0, 5, 0, 0};
    bad(b, "per-pair counts are for the direct all-to-all only, not a direct send-recv");
    b = s, b.elems = 100;  // the largest row is rank 2's, 76
    bad(b,
        "elems is 100, but with per-pair counts it must be 0 or the largest row sum, 76 "
        "(rank 2's input)");
    b = s, b.elems = 44;  // rank 0's row, not the largest
    bad(b, "must be 0 or the largest row sum, 76");
    b = s, b.counts.assign(16, 0);
    bad(b, "has no elements (every per-pair count is 0)");
    // The messages name the collective as an all-to-all-v.
    b = s, b.elems = 1;
    bad(b, "collective 'v' (direct all-to-all-v of 159 fp32 in all on 4 ranks");
    // Accepted: elems 0 or the largest row; staging and timing check the same way.
    b = s, b.elems = 76;
    CHECK_NOTHROW(Collectives::emit(fw, b));
    b.elems = 75;
    CHECK_THROWS_WITH(Collectives::emitStaged(fw, b, Staging{1 << 20, {0, 0, 0, 0}, {}}),
                      Catch::Contains("largest row sum, 76"));
    b = s, b.counts.pop_back();
    CHECK_THROWS_WITH(Collectives::sramBytes(b), Catch::Contains("15 per-pair counts for 4 ranks"));
    const hw::HardwareConfig cfg = test::loadConfig("temp_4x8_die_level.yaml");
    noc::Network net(cfg.noc, 1);
    const CollectiveTiming timing(net, core::collectiveCosts(cfg.core));
    CHECK_THROWS_WITH(timing.estimate(b), Catch::Contains("has 15 per-pair counts"));
}
