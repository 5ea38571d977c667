// MoE dispatch and combine with real values (MoEntwine Sec. IV-A): the routed layer's
// all-to-all-v per full token domain, as the step builder emits it (ExpertRouter's pair counts x
// hidden), run through cores and the die-level NoC of configs/moentwine_4x4_b200.yaml, ER
// placement, dp = tp = 4, ep = 16. Every (token, pick) row must reach exactly the die hosting the
// picked expert, and the combine must bring every row back to the slot it left, carrying the
// expert die's mark; once alone and once with an expert migration (a large point-to-point
// transfer on a stream of its own) in flight across the mesh, whose bytes must arrive intact too.
// No SystemC: CoreArray::run.
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "CollTestUtil.h"
#include "firmware/llm/ExpertRouter.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/RankGrid.h"

using namespace wsc;
using namespace wsc::firmware;
using coll::CollectiveLayout;
using coll::CollectiveSpec;

namespace {

constexpr uint32_t kHidden = 8, kTokens = 64, kExperts = 16;

// Token t's activations, element h: exact in fp32.
float act(uint64_t t, uint64_t h) {
    return float(t * kHidden + h);
}

struct Routed {
    plan::ParallelPlan p = plan::ParallelPlan::parse("dp=4,tp=4,ep=16");
    plan::RankGrid grid{p};
    std::vector<uint32_t> dies;
    std::vector<std::vector<uint32_t>> sel;
    llm::RoutedLayer rl;
    // Per DP group q (member q of every FTD): the (token, expert) rows it sends, in destination
    // member order then token order (the all-to-all-v input layout, once filtered by FTD).
    std::vector<std::vector<std::pair<uint64_t, uint32_t>>> rows;
};

Routed route(uint64_t seed) {
    Routed r;
    r.dies = placement::Placement::byName("er")->place(r.grid, placement::DieArray{4, 4});
    std::mt19937_64 rng(seed);
    for (uint32_t t = 0; t < kTokens; ++t) {
        // Top-2 of 16 with a hot expert 5: skewed per-pair counts, some pairs empty.
        const uint32_t a = rng() % 3 == 0 ? 5 : uint32_t(rng() % kExperts);
        uint32_t b = uint32_t(rng() % kExperts);
        if (b == a) b = (b + 1) % kExperts;
        r.sel.push_back({a, b});
    }
    const llm::ExpertRouter router(r.p, kExperts);
    r.rl = router.route(0, 0, r.sel, {});
    // The rows each member sends, derived independently of the router: token t of DP group
    // g = t / 16 picking expert e (native on rank e: dp e / 4, tp e % 4) is sent by rank
    // (g, tp e % 4), member g of FTD e % 4, to member e / 4 of that FTD.
    r.rows.assign(4, {});
    for (uint32_t j = 0; j < 4; ++j)  // destination member (expert's dp)
        for (uint32_t t = 0; t < kTokens; ++t)
            for (uint32_t e : r.sel[t])
                if (e / 4 == j) r.rows[t / 16].push_back({t, e});
    return r;
}

CollectiveSpec dispatchSpec(const Routed& r, uint32_t g, bool combine) {
    CollectiveSpec s;
    s.kind = coll::Collective::AllToAll, s.algo = coll::Algorithm::Direct;
    s.prefix = (combine ? "c" : "d") + std::to_string(g);
    for (uint32_t m : r.rl.groups[g]) s.ranks.push_back(r.dies[m]);
    const uint32_t n = uint32_t(s.ranks.size());
    for (uint32_t q = 0; q < n; ++q)
        for (uint32_t j = 0; j < n; ++j)
            s.counts.push_back((combine ? r.rl.pairs[g][j * n + q] : r.rl.pairs[g][q * n + j]) *
                               kHidden);
    s.pieces = 2;
    return s;
}

// Values of a rank's segments, concatenated in index order.
std::vector<float> read(core::CoreArray& cores, uint32_t node,
                        const std::vector<coll::Segment>& segs, uint64_t elems) {
    std::vector<float> v(elems, -1.0f);
    for (const auto& g : segs) {
        const float* p = cores.core(node).buffer(g.buffer);
        for (uint64_t i = 0; i < g.count; ++i) v.at(g.begin + i) = p[i];
    }
    return v;
}
void write(core::CoreArray& cores, uint32_t node, const std::vector<coll::Segment>& segs,
           const std::vector<float>& v) {
    for (const auto& g : segs) {
        float* p = cores.core(node).buffer(g.buffer);
        for (uint64_t i = 0; i < g.count; ++i) p[i] = v.at(g.begin + i);
    }
}

// One all-to-all-v per FTD (all four at once: each die is in one FTD), inputs given per group
// and member; with `migrate`, die 0 sends `kMig` floats to die 15 on a stream of their own
// meanwhile. Returns every member's output per group.
constexpr uint32_t kMig = 1 << 18;  // 1 MB: about 1 us on a 1 TB/s link, longer than the dispatch
std::vector<std::vector<std::vector<float>>> run(
    const Routed& r, bool combine, const std::vector<std::vector<std::vector<float>>>& in,
    bool migrate) {
    const noc::NocParams np = test::loadConfig("moentwine_4x4_b200.yaml").noc;
    noc::Network net(np, 1);
    core::CoreParams cp = test::bigCore();
    cp.functional = true;
    Firmware fw(net.nodes());
    std::vector<CollectiveSpec> specs;
    std::vector<CollectiveLayout> lays;
    for (uint32_t g = 0; g < 4; ++g) {
        specs.push_back(dispatchSpec(r, g, combine));
        lays.push_back(coll::Collectives::emit(fw, specs.back()));
    }
    if (migrate) {
        Program& a = fw.program(0);
        Program& b = fw.program(15);
        const uint16_t ba = a.addBuffer("mig", kMig), bb = b.addBuffer("mig", kMig);
        a.setStream(6), b.setStream(6);
        Instruction snd, rcv;
        snd.op = Opcode::Send, snd.a = ba, snd.peer = 15, snd.bytes = uint64_t(kMig) * 4;
        rcv.op = Opcode::Recv, rcv.c = bb, rcv.peer = 0, rcv.bytes = uint64_t(kMig) * 4;
        a.add(snd), b.add(rcv);
    }
    core::CoreArray cores(net, cp);
    cores.load(fw);
    for (uint32_t c = 0; c < fw.cores(); ++c)
        for (const auto& d : fw.program(c).buffers()) {
            float* p = cores.core(c).buffer(d.name);
            std::fill(p, p + d.elems, 1.0e6f);
        }
    if (migrate) {
        float* p = cores.core(0).buffer("mig");
        for (uint32_t i = 0; i < kMig; ++i) p[i] = float(i % 4093);
    }
    for (uint32_t g = 0; g < 4; ++g)
        for (uint32_t q = 0; q < 4; ++q)
            write(cores, specs[g].ranks[q], lays[g].ranks[q].input, in[g][q]);
    const uint64_t last = cores.run();
    cores.finish(last);
    net.checkConservation();
    if (migrate) {
        const float* p = cores.core(15).buffer("mig");
        for (uint32_t i = 0; i < kMig; i += 97) REQUIRE(p[i] == float(i % 4093));
    }
    std::vector<std::vector<std::vector<float>>> out(4);
    for (uint32_t g = 0; g < 4; ++g)
        for (uint32_t j = 0; j < 4; ++j)
            out[g].push_back(read(cores, specs[g].ranks[j], lays[g].ranks[j].output,
                                  test::expectedOutputElems(specs[g], j)));
    return out;
}

void roundTrip(bool migrate) {
    const Routed r = route(11);
    // The router's pair counts agree with the rows derived above.
    for (uint32_t g = 0; g < 4; ++g) {
        const auto& grp = r.rl.groups[g];
        for (uint32_t q = 0; q < 4; ++q) {
            REQUIRE(r.grid.coord(grp[q]).tp == g);
            std::map<uint32_t, uint64_t> to;
            for (const auto& [t, e] : r.rows[q])
                if (e % 4 == g) ++to[e / 4];
            for (uint32_t j = 0; j < 4; ++j) CHECK(r.rl.pairs[g][q * 4 + j] == to[j]);
        }
    }
    // Dispatch inputs: member q of FTD g sends its rows for FTD g's experts, destination order.
    std::vector<std::vector<std::vector<float>>> in(4, std::vector<std::vector<float>>(4));
    for (uint32_t g = 0; g < 4; ++g)
        for (uint32_t q = 0; q < 4; ++q)
            for (const auto& [t, e] : r.rows[q])
                if (e % 4 == g)
                    for (uint32_t h = 0; h < kHidden; ++h) in[g][q].push_back(act(t, h));
    const auto got = run(r, false, in, migrate);
    // Every row an expert die receives belongs to a token that picked one of its experts, and
    // every (token, pick) arrives exactly once over the whole wafer.
    std::map<std::pair<uint64_t, uint32_t>, int> arrived;
    for (uint32_t g = 0; g < 4; ++g)
        for (uint32_t j = 0; j < 4; ++j) {
            const auto& v = got[g][j];
            REQUIRE(v.size() % kHidden == 0);
            const uint32_t expert = j * 4 + g;  // the one expert native on member j of FTD g
            for (size_t row = 0; row < v.size() / kHidden; ++row) {
                const uint64_t t = uint64_t(v[row * kHidden]) / kHidden;
                for (uint32_t h = 0; h < kHidden; ++h) REQUIRE(v[row * kHidden + h] == act(t, h));
                REQUIRE(t < kTokens);
                const bool picked = r.sel[t][0] == expert || r.sel[t][1] == expert;
                CHECK(picked);
                ++arrived[{t, expert}];
            }
        }
    CHECK(arrived.size() == kTokens * 2);
    for (const auto& [k, n] : arrived) CHECK(n == 1);
    // The experts' outputs: each die adds its expert id / 64 (exact), and the combine returns
    // them; every sender gets back its rows in the order it sent them, each marked by the
    // expert it picked.
    std::vector<std::vector<std::vector<float>>> back(4, std::vector<std::vector<float>>(4));
    for (uint32_t g = 0; g < 4; ++g)
        for (uint32_t j = 0; j < 4; ++j)
            for (float x : got[g][j]) back[g][j].push_back(x + float(j * 4 + g) / 64.0f);
    const auto ret = run(r, true, back, migrate);
    for (uint32_t g = 0; g < 4; ++g)
        for (uint32_t q = 0; q < 4; ++q) {
            size_t row = 0;
            for (const auto& [t, e] : r.rows[q]) {
                if (e % 4 != g) continue;
                for (uint32_t h = 0; h < kHidden; ++h)
                    REQUIRE(ret[g][q].at(row * kHidden + h) == act(t, h) + float(e) / 64.0f);
                ++row;
            }
            CHECK(ret[g][q].size() == row * kHidden);
        }
}

}  // namespace

TEST_CASE(
    "MoE dispatch and combine deliver every token's activations to its experts' dies and "
    "back (values, ER, 4x4 dies)",
    "[coll][moe][functional]") {
    roundTrip(false);
}

TEST_CASE(
    "MoE dispatch and combine are unchanged with an expert migration in flight across "
    "the mesh, whose bytes arrive too",
    "[coll][moe][functional][migration]") {
    roundTrip(true);
}
