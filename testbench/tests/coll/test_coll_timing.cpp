// Timing of the ring collectives against their closed form (firmware/collectives/
// CollectiveTiming, docs/COLLECTIVES.md "Timing") on the die-level TEMP mesh: cycles measured by
// running the instruction streams on the cores and the NoC (CoreArray::run, no values carried:
// timing is identical either way) for N = 4 .. 32 on contiguous rings and on row-major rings
// whose wrap-around hops cross several dies. Link bandwidth and latency, router pipeline, flit
// size and the die's vector unit and SRAM ports all come from the loaded config.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <tuple>

#include "CollTestUtil.h"
#include "core/CollectiveCosts.h"
#include "firmware/collectives/CollectiveTiming.h"
#include "noc/ZeroLoadModel.h"

using namespace wsc;
using namespace wsc::firmware::coll;

namespace {

const char* const kConfig = "temp_4x8_die_level.yaml";
constexpr uint64_t kBytes = 48000000;  // per rank (all-gather: the gathered tensor), fp16

// A w x h block of the die array (x-major node ids, `X` dies per row) as a Hamiltonian cycle
// (h even): along row 0, snake back and forth through columns 1 .. w-1 of the other rows, home up
// column 0. Every logical hop is one D2D link.
std::vector<uint32_t> contiguous(uint32_t w, uint32_t h, uint32_t X) {
    std::vector<uint32_t> v;
    for (uint32_t x = 0; x < w; ++x) v.push_back(x);
    for (uint32_t y = 1; y < h; ++y)
        for (uint32_t i = 0; i + 1 < w; ++i) v.push_back(y * X + (y % 2 ? w - 1 - i : 1 + i));
    for (uint32_t y = h - 1; y >= 1; --y) v.push_back(y * X);
    return v;
}

// The same block in row-major order, the naive placement: each row's last die sends to the next
// row's first (w - 1 dies back plus one down) and the last die to the first (w - 1 + h - 1).
std::vector<uint32_t> rowMajor(uint32_t w, uint32_t h, uint32_t X) {
    std::vector<uint32_t> v;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) v.push_back(y * X + x);
    return v;
}

// Blocks of N dies on the 4 x 8 die array: 2x2, 4x2, 4x4, 4x8.
uint32_t widthFor(uint32_t n) {
    return n == 4 ? 2 : 4;
}

CollectiveSpec ring(Collective kind, std::vector<uint32_t> ranks, uint32_t pieces, bool bidir) {
    CollectiveSpec s;
    s.kind = kind, s.algo = Algorithm::Ring, s.ranks = std::move(ranks);
    s.dtype = firmware::DType::FP16;
    s.elems = kBytes / 2;
    s.pieces = pieces, s.bidirectional = bidir, s.prefix = "t";
    return s;
}

struct Measured {
    uint64_t sim = 0;
    CollectiveTime model;
    double textbook = 0;
    double ratio() const { return double(sim) / double(model.cycles); }
};

struct Bench {
    hw::HardwareConfig cfg = test::loadConfig(kConfig);
    noc::Network net{cfg.noc, 1};
    CollectiveTiming timing{net, core::collectiveCosts(cfg.core)};

    Measured run(const CollectiveSpec& s) {
        Measured m;
        m.model = timing.estimate(s);
        if (s.algo == Algorithm::Ring) m.textbook = timing.textbook(s);
        m.sim = test::runCollectives(cfg.noc, cfg.core, {s}, false, false).cycles;
        return m;
    }
};

const char* kindName(Collective k) {
    return k == Collective::AllReduce ? "AR" : k == Collective::ReduceScatter ? "RS" : "AG";
}

}  // namespace

TEST_CASE("the closed form takes alpha and B from the config and reduces to the textbook form",
          "[coll][timing]") {
    Bench b;
    const noc::NocParams& np = b.cfg.noc;
    const CollectiveSpec s = ring(Collective::AllReduce, contiguous(4, 2, 4), 1, false);
    const CollectiveTime t = b.timing.estimate(s);
    // alpha: a one-flit packet over one D2D hop (injection, two router pipelines, the link's
    // flight and serialisation, ejection) plus the cycle the data lands; B: a flit per s cycles.
    const noc::ZeroLoadModel zl(b.net);
    CHECK(t.alpha == zl.packetLatency(0, 1, 1) + 1);
    const noc::Link& d2d = b.net.link(b.net.router(0).outLink(noc::Topology::kEast));
    CHECK(t.bandwidth == Approx(double(np.flit_bytes) / d2d.serialization()));
    CHECK(t.alpha > d2d.flight());
    CHECK(t.max_hops == 1);
    CHECK(t.sharing == 1);
    CHECK(t.steps == 14);
    // One piece on a contiguous ring: within 1% of T (alpha + S_step / B) + R V.
    CHECK(double(t.cycles) == Approx(b.timing.textbook(s)).epsilon(0.01));
    // Row-major: the 3-die wrap-arounds and the 4-die closing hop are longer routes.
    const CollectiveTime rm =
        b.timing.estimate(ring(Collective::AllReduce, rowMajor(4, 2, 4), 1, false));
    CHECK(rm.max_hops == 4);
    CHECK(rm.cycles > t.cycles);
    // Trees have no closed form here, and say so.
    CollectiveSpec tree = s;
    tree.kind = Collective::Broadcast, tree.algo = Algorithm::Tree;
    CHECK_THROWS_WITH(b.timing.estimate(tree), Catch::Contains("no closed form"));
}

// Contiguous rings, N = 4 .. 32: one piece per step (the textbook case) and eight (pipelined,
// more pieces than the router has VCs: docs/COLLECTIVES.md, "Timing", for fewer), uni- and
// bidirectional (bidirectional with eight pieces: with one, the two lanes' large messages queue
// behind each other in the die's single network interface).
void contiguousRings(Collective kind) {
    Bench b;
    for (uint32_t n : {4u, 8u, 16u, 32u})
        for (auto [pieces, bidir] : {std::pair{1u, false}, {8u, false}, {8u, true}}) {
            const CollectiveSpec s =
                ring(kind, contiguous(widthFor(n), n / widthFor(n), 4), pieces, bidir);
            const Measured m = b.run(s);
            INFO(m.model.model);
            INFO("measured " << m.sim << " cycles, ratio " << m.ratio());
            CHECK(m.ratio() == Approx(1.0).epsilon(0.05));
        }
}

TEST_CASE("ring all-reduce on contiguous die rings takes its closed-form time", "[coll][timing]") {
    contiguousRings(Collective::AllReduce);
}

TEST_CASE("ring reduce-scatter on contiguous die rings takes its closed-form time",
          "[coll][timing]") {
    contiguousRings(Collective::ReduceScatter);
}

TEST_CASE("ring all-gather on contiguous die rings takes its closed-form time", "[coll][timing]") {
    contiguousRings(Collective::AllGather);
}

TEST_CASE("a row-major ring pays its multi-hop wrap-arounds, as the closed form says",
          "[coll][timing]") {
    Bench b;
    for (uint32_t n : {8u, 16u, 32u}) {
        const uint32_t w = widthFor(n), h = n / w;
        // One piece: the closed form holds, penalty included. The critical chain crosses 2(N-1)
        // hops, about every hop of the ring twice, and pays each extra link of a wrap-around.
        const Measured c = b.run(ring(Collective::AllReduce, contiguous(w, h, 4), 1, false));
        const Measured r = b.run(ring(Collective::AllReduce, rowMajor(w, h, 4), 1, false));
        INFO(r.model.model);
        INFO("row-major " << r.sim << ", contiguous " << c.sim << " cycles");
        CHECK(r.ratio() == Approx(1.0).epsilon(0.05));
        CHECK(r.sim > c.sim);
        CHECK(double(r.sim) - double(c.sim) ==
              Approx(double(r.model.cycles) - double(c.model.cycles)).epsilon(0.05));
        // Pipelined, the long hops' pieces share their links flit by flit across VCs and arrive
        // in bunches (docs/COLLECTIVES.md, "Timing"): the closed form assumes a link serves a
        // rank's pieces in turn, so it is then a lower bound, and the penalty stays.
        for (uint32_t pieces : {4u, 8u}) {
            const Measured cp =
                b.run(ring(Collective::AllReduce, contiguous(w, h, 4), pieces, false));
            const Measured rp =
                b.run(ring(Collective::AllReduce, rowMajor(w, h, 4), pieces, false));
            INFO(rp.model.model);
            INFO("pipelined row-major " << rp.sim << ", contiguous " << cp.sim << " cycles");
            CHECK(rp.ratio() >= 0.99);
            CHECK(rp.ratio() < 1.25);
            CHECK(rp.sim > cp.sim);
            CHECK(rp.sim < r.sim);  // pipelining still pays
        }
    }
}

TEST_CASE("bidirectional on a row-major ring is slower than unidirectional: the lanes are coupled",
          "[coll][timing]") {
    // A rank's program interleaves both lanes (receive, add, send lane 0, then lane 1), so lane
    // 1's next piece waits for lane 0's arrival over the long hop and vice versa: the critical
    // path bounces over the slowest hop instead of crossing it twice. The closed form encodes
    // that program order and predicts the inversion; it underestimates the bounce (see the doc).
    Bench b;
    const Measured uni = b.run(ring(Collective::AllReduce, rowMajor(4, 8, 4), 8, false));
    const Measured bi = b.run(ring(Collective::AllReduce, rowMajor(4, 8, 4), 8, true));
    INFO("uni " << uni.sim << " (model " << uni.model.cycles << "), bi " << bi.sim << " (model "
                << bi.model.cycles << ")");
    CHECK(bi.sim > 2 * uni.sim);
    CHECK(bi.model.cycles > 2 * uni.model.cycles);
    CHECK(bi.ratio() >= 1.0);
    CHECK(bi.ratio() < 1.4);
}

namespace {

// Sends `msgs` (src, dst, flits) at cycle 0 on an idle network; returns each one's delivery.
std::vector<uint64_t> deliver(const std::vector<std::array<uint32_t, 3>>& msgs) {
    const hw::HardwareConfig cfg = test::loadConfig(kConfig);
    noc::Network net(cfg.noc, 1);
    struct Obs : noc::NetworkObserver {
        std::map<uint64_t, uint64_t> at;  // message id -> cycle
        void onMessageDelivered(const noc::Message& m, uint32_t, uint64_t c) override {
            at[m.id] = c;
        }
    } obs;
    net.setObserver(&obs);
    std::vector<uint64_t> ids;
    for (const auto& [src, dst, flits] : msgs) {
        noc::Message m;
        m.src = src, m.dst = dst, m.bytes = uint64_t(flits) * cfg.noc.flit_bytes;
        ids.push_back(net.send(m, 0));
    }
    test::runUntilIdle(net, 0, 100000000);
    std::vector<uint64_t> out;
    for (uint64_t id : ids) out.push_back(obs.at.at(id));
    return out;
}

}  // namespace

// The two network effects docs/COLLECTIVES.md, "Timing", gives for where the closed form and
// the simulation part, measured on their own.
TEST_CASE("pieces sent together share a link flit by flit across VCs and arrive together",
          "[coll][timing]") {
    // Die 31 to die 0 (10 hops, the row-major ring's closing hop): one 8-flit piece alone, then
    // four at once (the router's 4 VCs take one packet each and interleave them on every link).
    const uint64_t alone = deliver({{31, 0, 8}}).at(0);
    const std::vector<uint64_t> four = deliver({{31, 0, 8}, {31, 0, 8}, {31, 0, 8}, {31, 0, 8}});
    INFO("alone " << alone << ", four at once " << four[0] << " " << four[1] << " " << four[2]
                  << " " << four[3]);
    const uint64_t s = alone - deliver({{31, 0, 7}}).at(0);  // cycles per flit on the route
    // In turn (FIFO), the first would arrive at `alone` and the others s * 8 apart; interleaved,
    // the first arrives late, within a few flits of the last.
    CHECK(four[0] > alone + 16 * s);
    CHECK(four[3] - four[0] <= 4 * s);
    CHECK(four[3] >= alone + 24 * s);
}

TEST_CASE("a die's network interface feeds a second message behind a large first one",
          "[coll][timing]") {
    // Die 1 sends to both ring neighbours (dies 5 and 0), as a bidirectional ring does. A
    // 125-flit message fills every VC of the router's local input port; the second message's
    // packets queue behind its packets and leave at the first's link rate.
    const uint64_t alone = deliver({{1, 0, 125}}).at(0);
    const std::vector<uint64_t> both = deliver({{1, 5, 125}, {1, 0, 125}});
    INFO("alone " << alone << ", second behind a first " << both[1]);
    CHECK(both[0] == alone);  // same route length, no interference for the first
    CHECK(both[1] > alone + alone / 2);
    // Small messages (two packets each) take separate VCs and overlap.
    const uint64_t small = deliver({{1, 0, 32}}).at(0);
    const std::vector<uint64_t> two = deliver({{1, 5, 32}, {1, 0, 32}});
    INFO("32 flits alone " << small << ", second " << two[1]);
    CHECK(double(two[1]) == Approx(double(small)).epsilon(0.05));
}

namespace {

// All-to-all: 32 MB per rank (N blocks; input and output fit the die's 80 MB SRAM), fp16.
constexpr uint64_t kA2aBytes = 32000000;

CollectiveSpec allToAll(std::vector<uint32_t> ranks, uint32_t pieces, bool staggered) {
    CollectiveSpec s;
    s.kind = Collective::AllToAll, s.algo = Algorithm::Direct, s.ranks = std::move(ranks);
    s.dtype = firmware::DType::FP16, s.elems = kA2aBytes / 2;
    s.pieces = pieces, s.staggered = staggered, s.prefix = "a";
    return s;
}

// The top-left w x h dies, row-major (rank order = node order within the block).
std::vector<uint32_t> dieBlock(uint32_t w, uint32_t h) {
    return rowMajor(w, h, 4);
}

// N dies spread over the array (a fixed shuffle): the group's routes are long and share links
// with each other differently from a block.
std::vector<uint32_t> scatteredDies(uint32_t n) {
    std::vector<uint32_t> all(32);
    for (uint32_t i = 0; i < 32; ++i) all[i] = i;
    uint64_t x = 0x9E3779B97F4A7C15ull * (n + 1);
    for (uint32_t i = 31; i > 0; --i) {  // Fisher-Yates on a fixed xorshift stream
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        std::swap(all[i], all[x % (i + 1)]);
    }
    all.resize(n);
    return all;
}

}  // namespace

// Direct all-to-all (docs/COLLECTIVES.md, "Timing"): every rank's messages wait in its NI in
// program order and no round waits for another, so the time is set by the busiest link over the
// whole collective (its flits from its first flit's zero-load arrival to the delivery of the last
// message over it), a die's local input port when messages fill its VCs, or the latest message.
// Eight pieces: messages of at most one packet (docs: larger ones queue in the die's port).
void allToAllWithin5(const std::vector<std::vector<uint32_t>>& groups) {
    Bench b;
    for (const auto& ranks : groups)
        for (bool staggered : {true, false}) {
            const Measured m = b.run(allToAll(ranks, 8, staggered));
            INFO(m.model.model);
            INFO("measured " << m.sim << " cycles, ratio " << m.ratio());
            CHECK(m.ratio() == Approx(1.0).epsilon(0.05));
        }
}

TEST_CASE("direct all-to-all on contiguous dies takes its closed-form time", "[coll][timing]") {
    // N = 4 (a row), 8 (4x2), 16 (4x4), 32 (the whole 4x8 array).
    allToAllWithin5({dieBlock(4, 1), dieBlock(4, 2), dieBlock(4, 4), dieBlock(4, 8)});
}

TEST_CASE("direct all-to-all on scattered dies takes its closed-form time", "[coll][timing]") {
    allToAllWithin5({scatteredDies(8), scatteredDies(16)});
}

TEST_CASE("direct all-to-all: the rounds overlap, the busiest link sets the time",
          "[coll][timing]") {
    Bench b;
    const Measured m = b.run(allToAll(dieBlock(4, 8), 8, true));
    INFO(m.model.model);
    // The busiest links (the middle vertical ones) carry 64 of the 992 messages: W = 64 blocks
    // x 16 flits x 32 cycles; everything else is their first flit's arrival and the last
    // message's trip beyond them.
    CHECK(m.model.link_work == 64 * 16 * 32);
    CHECK(m.model.cycles == m.model.link_bound);
    CHECK(m.sim > m.model.link_work);
    CHECK(m.sim < m.model.link_work * 11 / 10);
    // No round waits for another: the same messages put into the NIs at cycle 0 in program
    // order (piece by piece, round by round), with no cores, end when the collective does
    // (less its landing and finish cycles).
    std::vector<std::array<uint32_t, 3>> msgs;
    for (uint32_t q = 0; q < 32; ++q)
        for (uint32_t x = 0; x < 8; ++x)
            for (uint32_t r = 1; r < 32; ++r) msgs.push_back({q, (q + r) % 32, 2});
    const std::vector<uint64_t> at = deliver(msgs);
    CHECK(*std::max_element(at.begin(), at.end()) + 2 == m.sim);
    // Were the rounds separated (each waiting for the last one's busiest link), the time would
    // be at least the sum over rounds of each round's busiest link (78 blocks of 16 flits here,
    // 22% above W): the simulation is closer to the busiest link over the whole collective.
    uint64_t rounds = 0;
    for (uint32_t r = 1; r < 32; ++r) {
        std::map<uint64_t, uint64_t> load;  // (die, direction) -> blocks this round (XY)
        for (uint32_t q = 0; q < 32; ++q) {
            const uint32_t d = (q + r) % 32;
            uint32_t x = q % 4, y = q / 4;
            const uint32_t dx = d % 4, dy = d / 4;
            for (; x != dx; x = dx > x ? x + 1 : x - 1) ++load[(4 * y + x) * 4 + (dx > x)];
            for (; y != dy; y = dy > y ? y + 1 : y - 1) ++load[(4 * y + x) * 4 + 2 + (dy > y)];
        }
        uint64_t most = 0;
        for (const auto& [l, c] : load) most = std::max(most, c);
        rounds += most;
    }
    const uint64_t round_sum = rounds * 16 * 32;
    INFO("sum of the rounds' busiest links " << round_sum << ", measured " << m.sim);
    CHECK(round_sum > m.model.link_work * 6 / 5);
    CHECK(m.sim < round_sum);
    CHECK(m.sim - m.model.cycles < round_sum - m.sim);
}

TEST_CASE("direct all-to-all where the closed form is a lower bound", "[coll][timing]") {
    // Documented in docs/COLLECTIVES.md, "Timing": one piece of many packets (the die's port
    // queues messages behind each other, and not staggered every rank starts with the same
    // destination), and small groups whose routes turn (the 2 x 2 block, 4 scattered dies): a
    // link is fed in the order of its sources' FIFOs, behind their busiest link, and idles.
    Bench b;
    for (const auto& [ranks, pieces, staggered, most] :
         std::vector<std::tuple<std::vector<uint32_t>, uint32_t, bool, double>>{
             {dieBlock(2, 2), 1, true, 1.05},
             {dieBlock(2, 2), 8, true, 1.15},
             {dieBlock(2, 2), 8, false, 1.25},
             {scatteredDies(4), 8, true, 1.1},
             {dieBlock(4, 4), 1, false, 1.5},
             {dieBlock(4, 8), 1, false, 1.25}}) {
        const Measured m = b.run(allToAll(ranks, pieces, staggered));
        INFO(m.model.model);
        INFO("measured " << m.sim << " cycles, ratio " << m.ratio());
        CHECK(m.ratio() >= 0.98);
        CHECK(m.ratio() < most);
    }
}

namespace {

// All-to-all-v (CollectiveSpec::counts): 32 MB of fp16 in or out of a rank at most (the die's
// SRAM holds a rank's input and output). hot < n: every rank
// sends rank `hot` `factor` times the block it sends each other rank (a hot receiver, as an MoE
// dispatch to a popular expert); hot = n: a fixed pseudo-random skew, a pair 0 to 3 units with
// about one pair in eight empty.
CollectiveSpec allToAllV(std::vector<uint32_t> ranks, uint32_t hot, uint64_t factor,
                         uint32_t pieces, bool staggered) {
    CollectiveSpec s = allToAll(std::move(ranks), pieces, staggered);
    const uint32_t n = s.size();
    std::vector<uint64_t> w(uint64_t(n) * n);
    uint64_t x = 0x2545F4914F6CDD1Dull * (n + hot), most = 0;
    for (uint32_t q = 0; q < n; ++q) {
        uint64_t row = 0;
        for (uint32_t j = 0; j < n; ++j) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t& c = w[uint64_t(q) * n + j];
            c = hot < n ? (j == hot ? factor : 1) : (x % 8 == 0 ? 0 : 1 + x % 3);
            row += c;
        }
        most = std::max(most, row);
    }
    for (uint32_t j = 0; j < n; ++j) {
        uint64_t col = 0;
        for (uint32_t q = 0; q < n; ++q) col += w[uint64_t(q) * n + j];
        most = std::max(most, col);
    }
    const uint64_t unit = s.elems / most;  // the largest row or column: 32 MB
    for (uint64_t& c : w) c *= unit;
    s.counts = std::move(w), s.elems = 0;
    return s;
}

}  // namespace

TEST_CASE("direct all-to-all-v with skewed per-pair sizes takes its closed-form time",
          "[coll][timing][alltoallv]") {
    // The closed form with each message its pair's size (docs/COLLECTIVES.md, "Timing", the
    // all-to-all-v table): a hot receiver (4x the block from every rank) in a block's corner
    // (two in-links) and inside it, and a random skew with empty pairs, on contiguous blocks and
    // scattered dies; eight pieces as above.
    Bench b;
    struct Case {
        std::vector<uint32_t> ranks;
        uint32_t hot;  // the group's size: the random skew
        bool staggered;
    };
    for (const Case& c : {Case{dieBlock(4, 2), 0, true}, Case{dieBlock(4, 2), 0, false},
                          Case{dieBlock(4, 2), 8, true}, Case{dieBlock(4, 4), 0, true},
                          Case{dieBlock(4, 4), 5, true}, Case{dieBlock(4, 4), 16, false},
                          Case{dieBlock(4, 8), 32, true}, Case{scatteredDies(8), 5, true},
                          Case{scatteredDies(8), 0, false}, Case{scatteredDies(8), 8, true},
                          Case{scatteredDies(16), 5, true}, Case{scatteredDies(16), 16, false}}) {
        const Measured m = b.run(allToAllV(c.ranks, c.hot, 4, 8, c.staggered));
        INFO(m.model.model);
        INFO("hot " << c.hot << ": measured " << m.sim << " cycles, ratio " << m.ratio());
        CHECK(m.ratio() == Approx(1.0).epsilon(0.05));
    }
}

TEST_CASE("direct all-to-all-v: a hot receiver fed through turning links is above the closed form",
          "[coll][timing][alltoallv]") {
    // Documented in docs/COLLECTIVES.md, "Timing": the hot receiver's in-link is fed by traffic
    // turning into it from other dies' links, each source's messages to it spread through its
    // FIFO (the "links fed in FIFO order" effect): on the 4x2 block with the hot rank inside
    // and on the whole array (28 sources' blocks down one column into the corner die) the
    // simulation runs 5 to 8% above the busiest link's term. Still a lower bound.
    Bench b;
    for (const auto& [ranks, hot, most] :
         std::vector<std::tuple<std::vector<uint32_t>, uint32_t, double>>{
             {dieBlock(4, 2), 5, 1.08}, {dieBlock(4, 8), 0, 1.10}, {dieBlock(4, 8), 5, 1.10}}) {
        const Measured m = b.run(allToAllV(ranks, hot, 4, 8, true));
        INFO(m.model.model);
        INFO("measured " << m.sim << " cycles, ratio " << m.ratio());
        CHECK(m.ratio() >= 0.98);
        CHECK(m.ratio() < most);
    }
}

// The all-to-all-v table in docs/COLLECTIVES.md, "Timing": build/testbench/test_coll
// '[a2av_table]'
TEST_CASE("all-to-all-v timing table", "[.a2av_table]") {
    Bench b;
    std::printf(
        "| N | group | skew | staggered | measured | closed form | ratio | W | u | d | link | port "
        "| latest |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    struct Group {
        const char* name;
        std::vector<uint32_t> ranks;
    };
    for (const Group& g : {Group{"4x2 block", dieBlock(4, 2)}, Group{"4x4 block", dieBlock(4, 4)},
                           Group{"4x8 array", dieBlock(4, 8)}, Group{"scattered", scatteredDies(8)},
                           Group{"scattered", scatteredDies(16)}}) {
        const uint32_t n = uint32_t(g.ranks.size());
        for (uint32_t hot : {0u, 5u, n})
            for (bool st : {true, false}) {
                const Measured m = b.run(allToAllV(g.ranks, hot, 4, 8, st));
                const CollectiveTime& t = m.model;
                const std::string skew =
                    hot == n ? "random" : "hot rank " + std::to_string(hot) + " (4x)";
                std::printf(
                    "| %u | %s | %s | %s | %lu | %lu | %.3f | %lu | %lu | %lu | %lu | %lu | %lu "
                    "|\n",
                    n, g.name, skew.c_str(), st ? "yes" : "no", (unsigned long)m.sim,
                    (unsigned long)t.cycles, m.ratio(), (unsigned long)t.link_work,
                    (unsigned long)t.link_start, (unsigned long)t.link_drain,
                    (unsigned long)t.link_bound, (unsigned long)t.port_bound,
                    (unsigned long)t.latency_bound);
            }
    }
}

// The all-to-all table in docs/COLLECTIVES.md, "Timing": build/testbench/test_coll '[a2a_table]'
TEST_CASE("all-to-all timing table", "[.a2a_table]") {
    Bench b;
    std::printf(
        "| N | group | staggered | k | measured | closed form | ratio | W | u | d | link | port "
        "| latest |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    struct Group {
        const char* name;
        std::vector<uint32_t> ranks;
    };
    for (uint32_t n : {4u, 8u, 16u, 32u}) {
        std::vector<Group> groups{{n == 4    ? "2x2 block"
                                   : n == 8  ? "4x2 block"
                                   : n == 16 ? "4x4 block"
                                             : "4x8 array",
                                   dieBlock(widthFor(n), n / widthFor(n))}};
        if (n == 4) groups.push_back({"4x1 row", dieBlock(4, 1)});
        groups.push_back({"scattered", scatteredDies(n)});
        for (const Group& g : groups)
            for (bool st : {true, false})
                for (uint32_t k : {1u, 4u, 8u}) {
                    const Measured m = b.run(allToAll(g.ranks, k, st));
                    const CollectiveTime& t = m.model;
                    std::printf(
                        "| %u | %s | %s | %u | %lu | %lu | %.3f | %lu | %lu | %lu | %lu | %lu | "
                        "%lu |\n",
                        n, g.name, st ? "yes" : "no", k, (unsigned long)m.sim,
                        (unsigned long)t.cycles, m.ratio(), (unsigned long)t.link_work,
                        (unsigned long)t.link_start, (unsigned long)t.link_drain,
                        (unsigned long)t.link_bound, (unsigned long)t.port_bound,
                        (unsigned long)t.latency_bound);
                }
    }
}

// The table in docs/COLLECTIVES.md, "Timing": build/testbench/test_coll '[table]'
TEST_CASE("ring timing table", "[.table]") {
    Bench b;
    std::printf("| kind | N | ring | lanes | k | measured | closed form | ratio | textbook |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    for (Collective kind :
         {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather})
        for (uint32_t n : {4u, 8u, 16u, 32u})
            for (bool rm : {false, true})
                for (auto [pieces, bidir] :
                     {std::pair{1u, false}, {1u, true}, {4u, false}, {8u, false}, {8u, true}}) {
                    if (rm && n == 4) continue;
                    const uint32_t w = widthFor(n), h = n / w;
                    const Measured m = b.run(
                        ring(kind, rm ? rowMajor(w, h, 4) : contiguous(w, h, 4), pieces, bidir));
                    std::printf("| %s | %u | %s | %u | %u | %lu | %lu | %.3f | %.0f |\n",
                                kindName(kind), n, rm ? "row-major" : "contiguous", bidir ? 2u : 1u,
                                pieces, (unsigned long)m.sim, (unsigned long)m.model.cycles,
                                m.ratio(), m.textbook);
                }
}
