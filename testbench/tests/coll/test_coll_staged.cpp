// Collectives on tensors in the memory port (HBM-like), staged through SRAM segment by segment
// within a byte budget (Collectives::emitStaged). Memory ports need the SystemC shell; each
// TEST_CASE is its own process.
#include <catch2/catch.hpp>
#include <numeric>
#include <random>

#include "CollTestUtil.h"
#include "hw/MemorySystem.h"
#include "noc/NocShell.h"

using namespace wsc;
using namespace wsc::firmware::coll;

namespace {

constexpr uint64_t kRegion = 1 << 20;  // bytes of memory image per rank and direction

uint64_t blockBeginOf(const CollectiveSpec& s, uint32_t r) {
    if (s.algo == Algorithm::Ring2D) {
        const uint32_t i = r / s.cols, j = r % s.cols;
        const uint64_t cj = Partition::size(s.elems, s.cols, j);
        return Partition::begin(s.elems, s.cols, j) + Partition::begin(cj, s.rows, i);
    }
    return Partition::begin(s.elems, s.size(), r);
}

// The rank's input image in memory (docs/COLLECTIVES.md, "Memory staging"): the whole tensor,
// except an all-gather's input (the rank's own block) and ranks without input.
std::vector<float> inputImage(const CollectiveSpec& s, uint32_t r) {
    std::vector<float> v;
    if ((s.kind == Collective::Broadcast && r != s.root) ||
        (s.kind == Collective::SendRecv && r != 0))
        return v;
    if (s.kind == Collective::AllGather) {
        CollectiveSpec rs = s;
        rs.kind = Collective::ReduceScatter;
        const uint64_t b = blockBeginOf(s, r), len = test::expectedOutputElems(rs, r);
        for (uint64_t i = 0; i < len; ++i) v.push_back(test::inputValue(1000, b + i));
        return v;
    }
    const uint64_t len = s.kind == Collective::AllToAll ? test::allToAllInputElems(s, r) : s.elems;
    for (uint64_t e = 0; e < len; ++e) v.push_back(test::inputValue(r, e));
    return v;
}

struct Result {
    bool correct = true;
    std::string error;
    StagedPlan plan;
    uint64_t cycles = 0;
};

Result runStaged(noc::NocShell& shell, hw::MemorySystem& mem, const noc::NocParams& np,
                 const core::CoreParams& cp, const CollectiveSpec& s, uint64_t budget) {
    Result res;
    noc::Network net(np, 1);
    firmware::Firmware fw(net.nodes());
    Staging st;
    st.budget_bytes = budget;
    for (uint32_t r = 0; r < s.size(); ++r) {
        st.in_addr.push_back(2 * r * kRegion);
        st.out_addr.push_back((2 * r + 1) * kRegion);
    }
    res.plan = Collectives::emitStaged(fw, s, st);
    core::CoreArray cores(net, cp);
    cores.load(fw);
    mem.attach(cores, shell, true);
    for (uint32_t r = 0; r < s.size(); ++r) {
        const std::vector<float> img = inputImage(s, r);
        if (!img.empty()) mem.hostWrite(0, st.in_addr[r], img.data(), img.size() * sizeof(float));
        // The output region starts at a sentinel, so anything never stored shows.
        const std::vector<float> junk(kRegion / sizeof(float), 1.0e6f);
        mem.hostWrite(0, st.out_addr[r], junk.data(), kRegion);
    }
    const uint64_t last = shell.run(net, cores);
    cores.finish(last);
    res.cycles = last + 1;
    for (uint32_t r = 0; r < s.size() && res.correct; ++r) {
        const uint64_t len = test::expectedOutputElems(s, r);
        std::vector<float> got(len);
        if (len) mem.hostRead(0, st.out_addr[r], got.data(), len * sizeof(float));
        const uint64_t base = s.kind == Collective::ReduceScatter ? blockBeginOf(s, r) : 0;
        for (uint64_t i = 0; i < len && res.correct; ++i) {
            const float want = test::expectedValue(s, r, base + i);
            if (got[i] != want) {
                res.correct = false;
                res.error = "rank " + std::to_string(r) + " output element " + std::to_string(i) +
                            " is " + std::to_string(got[i]) + ", expected " + std::to_string(want);
            }
        }
    }
    return res;
}

core::CoreParams stagedCore() {
    core::CoreParams cp;
    cp.sram.capacity_bytes = 64 * 1024;
    cp.memory.ports = 1;
    cp.memory.capacity_bytes = 64 * kRegion;
    cp.memory.latency_ps = 50000;
    cp.memory.bytes_per_ns = 64;
    return cp;
}

// Within a budget of a few hundred elements: correct, in several segments, and the fewest that
// fit (more than half the budget used).
void checkManySegments(noc::NocShell& shell, hw::MemorySystem& mem, const noc::NocParams& np,
                       const core::CoreParams& cp, const CollectiveSpec& s) {
    const uint64_t budget = 1500;
    const Result r = runStaged(shell, mem, np, cp, s, budget);
    INFO(r.error);
    CHECK(r.correct);
    CHECK(r.plan.segments > 1);
    CHECK(r.plan.sram_bytes <= budget);
    CHECK(r.plan.sram_bytes > budget / 2);
}

}  // namespace

TEST_CASE("staged collectives move HBM tensors through an SRAM budget and equal the reference",
          "[coll][staged]") {
    const noc::NocParams np = test::meshParams(4, 4);
    const core::CoreParams cp = stagedCore();
    noc::NocShell shell("noc", np.clock_hz);
    hw::MemorySystem mem(cp, np.clock_hz);
    std::vector<CollectiveSpec> specs;
    auto add = [&](Collective k, Algorithm a, std::vector<uint32_t> ranks, uint64_t elems,
                   uint32_t pieces, bool bidir) {
        CollectiveSpec s;
        s.kind = k, s.algo = a, s.ranks = std::move(ranks), s.elems = elems, s.pieces = pieces;
        s.bidirectional = bidir, s.prefix = "st", s.root = 1;
        specs.push_back(s);
    };
    for (Collective k : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather})
        for (bool bidir : {false, true}) {
            add(k, Algorithm::Ring, {0, 5, 10, 3, 12}, 1237, 2, bidir);
            CollectiveSpec g = specs.back();
            g.algo = Algorithm::Ring2D, g.rows = 2, g.cols = 3, g.ranks = {0, 1, 2, 4, 5, 6};
            specs.push_back(g);
        }
    add(Collective::AllToAll, Algorithm::Direct, {3, 0, 9, 14}, 1001, 2, false);
    add(Collective::Broadcast, Algorithm::Tree, {3, 0, 9, 14, 7}, 999, 3, false);
    add(Collective::Reduce, Algorithm::Tree, {3, 0, 9, 14, 7}, 999, 3, false);
    add(Collective::SendRecv, Algorithm::Direct, {15, 0}, 1500, 2, false);
    for (const CollectiveSpec& s : specs) {
        INFO(describe(s));
        checkManySegments(shell, mem, np, cp, s);
    }
}

TEST_CASE("a staged collective within a budget that holds it whole runs in one segment",
          "[coll][staged]") {
    const noc::NocParams np = test::meshParams(4, 4);
    const core::CoreParams cp = stagedCore();
    noc::NocShell shell("noc", np.clock_hz);
    hw::MemorySystem mem(cp, np.clock_hz);
    CollectiveSpec s;
    s.kind = Collective::AllReduce, s.ranks = {0, 1, 2, 3}, s.elems = 100, s.prefix = "one";
    const Result r = runStaged(shell, mem, np, cp, s, 1 << 20);
    CHECK(r.correct);
    CHECK(r.plan.segments == 1);
    CHECK(r.plan.sram_bytes == Collectives::sramBytes(s));
    // Too small a budget is refused with the bytes it would need.
    firmware::Firmware fw(16);
    CHECK_THROWS_WITH(Collectives::emitStaged(fw, s, Staging{8, {0, 1, 2, 3}, {}}),
                      Catch::Contains("staging budget of 8 bytes"));
    CHECK_THROWS_WITH(Collectives::emitStaged(fw, s, Staging{1 << 20, {0, 1}, {}}),
                      Catch::Contains("one input address per rank (4), got 2"));
}

TEST_CASE("collectives staged on one prefix share its set within the budget", "[coll][staged]") {
    // The LLM step gives each stream one staging set, used in turn by all its collectives (a
    // TATP plan's stream 4 runs a 32-rank and a 16-rank all-reduce). The second collective
    // reuses the first's buffers; its segments are sized so that the shared set stays within
    // the budget, and they are not starved to a sliver by the first one's bytes.
    firmware::Firmware fw(16);
    const uint64_t budget = 1 << 20;
    auto bytesOnDie0 = [&] {
        uint64_t b = 0;
        for (const auto& x : fw.program(0).buffers())
            if (x.name.rfind("s4.fp16.", 0) == 0) b += x.bytes();
        return b;
    };
    CollectiveSpec big;
    big.kind = Collective::AllReduce, big.ranks = {0, 1, 2, 3, 4, 5, 6, 7};
    big.elems = 8 << 20, big.prefix = "s4.fp16", big.bidirectional = true, big.pieces = 2;
    const StagedPlan a =
        Collectives::emitStaged(fw, big, Staging{budget, std::vector<uint64_t>(8, 0), {}});
    CHECK(bytesOnDie0() <= budget);
    CHECK(a.sram_bytes > budget / 2);
    CollectiveSpec small = big;
    small.ranks = {0, 2, 4, 6};
    const StagedPlan b =
        Collectives::emitStaged(fw, small, Staging{budget, std::vector<uint64_t>(4, 0), {}});
    CHECK(bytesOnDie0() <= budget);  // the union of both collectives' buffers
    // Half the blocks of the 8-rank set are the 4-rank set's to grow into: segments at least
    // a third of the first collective's (a whole fresh budget would give about the same).
    CHECK(b.segment_elems * 3 >= a.segment_elems);
    // Ring kinds name their buffers alike: an all-gather after them reuses the set too.
    CollectiveSpec ag = small;
    ag.kind = Collective::AllGather;
    Collectives::emitStaged(fw, ag, Staging{budget, std::vector<uint64_t>(4, 0), {}});
    CHECK(bytesOnDie0() <= budget);
}

TEST_CASE(
    "a staged all-to-all-v cuts every pair's block into the segments and equals the reference",
    "[coll][staged][alltoallv]") {
    // Per-pair counts (CollectiveSpec::counts) with zero pairs, a zero row and a hot receiver;
    // the budget holds a few hundred elements, so every pair's block is cut into many segments
    // (pairs smaller than the segments are empty in the later ones).
    const noc::NocParams np = test::meshParams(4, 4);
    const core::CoreParams cp = stagedCore();
    noc::NocShell shell("noc", np.clock_hz);
    hw::MemorySystem mem(cp, np.clock_hz);
    const std::vector<uint64_t> four = {50,  0,   370, 20,   //
                                        0,   0,   0,   0,    //
                                        110, 1,   0,   640,  //
                                        30,  290, 3,   70};
    const std::vector<uint64_t> five = {0,  130, 0, 40, 1000,  //
                                        20, 0,   0, 10, 500,   //
                                        0,  0,   0, 0,  0,     //
                                        70, 0,   0, 90, 330,   //
                                        1,  170, 0, 0,  9};
    struct Case {
        std::vector<uint32_t> ranks;
        const std::vector<uint64_t>* counts;
        uint32_t pieces;
        bool staggered;
    };
    for (const Case& c :
         {Case{{3, 0, 9, 14}, &four, 2, true}, Case{{3, 0, 9, 14}, &four, 1, false},
          Case{{12, 5, 0, 10, 7}, &five, 2, true}, Case{{12, 5, 0, 10, 7}, &five, 3, false}}) {
        CollectiveSpec s;
        s.kind = Collective::AllToAll, s.algo = Algorithm::Direct, s.ranks = c.ranks;
        s.counts = *c.counts, s.pieces = c.pieces, s.staggered = c.staggered, s.prefix = "v";
        INFO(describe(s));
        checkManySegments(shell, mem, np, cp, s);
    }
}
