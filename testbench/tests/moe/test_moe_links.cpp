// Per-link loads of the all-reduce and all-to-all phases (firmware/moe/LinkLoad) and what is
// actually complementary about their hot and cold links (MoEntwine Sec. V-A, Fig. 11: "the
// distribution of hot/cold links are complementary in all cases"). Uniform top-8 gating.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iostream>
#include <numeric>

#include "firmware/moe/FtdAnalysis.h"
#include "firmware/moe/LinkLoad.h"
#include "firmware/moe/MoeMapping.h"
#include "firmware/temp/TrafficMap.h"

using namespace wsc::firmware::moe;

namespace {

std::vector<uint32_t> hotInBoth(const LinkHeat& a, const LinkHeat& b) {
    std::vector<uint32_t> out;
    std::set_intersection(a.hot.begin(), a.hot.end(), b.hot.begin(), b.hot.end(),
                          std::back_inserter(out));
    return out;
}

std::vector<uint32_t> linksWithin(const MoeMapping& m) {
    // Links whose both ends are in the same TP group's block (baseline).
    std::vector<uint32_t> out;
    for (uint32_t i : m.mesh().links()) {
        const Link l = m.mesh().link(i);
        if (m.groupOf(l.from) == m.groupOf(l.to)) out.push_back(i);
    }
    return out;
}

}  // namespace

TEST_CASE("4x4 ER: all-reduce hot links are exactly the all-to-all's idle inter-FTD links") {
    const MoeMapping m = MoeMapping::entwined(DieMesh(4, 4), 4, 4);
    const auto ar = LinkLoad::allReduce(m);
    const auto a2a = LinkLoad::allToAll(m, LinkLoad::uniformTraffic(m, 8));
    const LinkHeat har = LinkLoad::heat(m.mesh(), ar), ha2a = LinkLoad::heat(m.mesh(), a2a);
    const auto intra = LinkLoad::intraFtdLinks(m), inter = LinkLoad::interFtdLinks(m);
    REQUIRE(intra.size() == 32);
    REQUIRE(inter.size() == 16);
    // Two 2-hop rings cross every inter-FTD link, one every intra-FTD link (Fig. 11(a)); each
    // bidirectional ring hop carries (tp - 1) / tp = 0.75 V per direction.
    CHECK(har.max == Approx(1.5));
    for (uint32_t i : inter) CHECK(ar[i] == Approx(1.5));
    for (uint32_t i : intra) CHECK(ar[i] == Approx(0.75));
    // The all-to-all stays inside the 2x2 FTDs (Fig. 11(b)).
    CHECK(ha2a.max == Approx(2.0));
    for (uint32_t i : inter) CHECK(a2a[i] == 0.0);
    for (uint32_t i : intra) CHECK(a2a[i] == Approx(2.0));
    CHECK(har.hot == inter);
    CHECK(ha2a.idle == inter);
    CHECK(ha2a.hot == intra);
    CHECK(hotInBoth(har, ha2a).empty());
}

TEST_CASE("4x4 baseline is complementary too, with twice the all-to-all peak") {
    const MoeMapping m = MoeMapping::baseline(DieMesh(4, 4), 4, 4);
    const auto ar = LinkLoad::allReduce(m);
    const auto a2a = LinkLoad::allToAll(m, LinkLoad::uniformTraffic(m, 8));
    const LinkHeat har = LinkLoad::heat(m.mesh(), ar), ha2a = LinkLoad::heat(m.mesh(), a2a);
    // Physical 2x2 rings load only the 32 links inside the TP blocks; the 16 links between blocks
    // are idle in the all-reduce and are exactly the all-to-all's hottest (4 V, the FTD overlap).
    CHECK(har.hot == linksWithin(m));
    CHECK(har.idle.size() == 16);
    CHECK(ha2a.max == Approx(4.0));
    CHECK(ha2a.hot == har.idle);
    for (uint32_t i : har.hot) CHECK(a2a[i] == Approx(2.0));
    CHECK(hotInBoth(har, ha2a).empty());
}

TEST_CASE("the all-to-all moves traffic x average hops, and ER never touches inter-FTD links") {
    for (uint32_t side : {4u, 6u, 8u})
        for (uint32_t tp = 2; tp <= 16; ++tp) {
            if ((side * side) % tp) continue;
            const DieMesh mesh(side, side);
            const uint32_t dp = mesh.dies() / tp;
            INFO("side " << side << " tp " << tp);
            for (const MoeMapping& m :
                 {MoeMapping::baseline(mesh, dp, tp), MoeMapping::entwined(mesh, dp, tp)}) {
                const auto a2a = LinkLoad::allToAll(m, LinkLoad::uniformTraffic(m, 8));
                const double total = std::accumulate(a2a.begin(), a2a.end(), 0.0);
                // Dispatch and combine, dp groups each sending top-k = 8 V.
                CHECK(total == Approx(2.0 * 8 * dp * FtdAnalysis(m).a2aHops()));
                const auto ar = LinkLoad::allReduce(m);
                double ring = 0;
                const FtdAnalysis fa(m);
                for (const auto& r : fa.ringHops()[0])
                    ring += std::accumulate(r.begin(), r.end(), 0.0);
                CHECK(std::accumulate(ar.begin(), ar.end(), 0.0) ==
                      Approx(ring * m.stages()[0].hopVolume));
                if (m.kind() != MappingKind::Entwined) continue;
                for (uint32_t i : LinkLoad::interFtdLinks(m)) CHECK(a2a[i] == 0.0);
                const LinkHeat har = LinkLoad::heat(mesh, ar);
                const auto inter = LinkLoad::interFtdLinks(m);
                if (dp > 1)
                    CHECK(std::find(inter.begin(), inter.end(), har.hot.front()) != inter.end());
            }
        }
}

TEST_CASE("8x8 tp=16 ER is not complementary: 32 links are hot in both phases") {
    // dp = 4: 2x2 FTDs on a 4x4 grid of blocks, so a ring runs through middle blocks and loads
    // intra-FTD links as much as the block boundaries; those links are also all-to-all hot.
    const MoeMapping m = MoeMapping::entwined(DieMesh(8, 8), 4, 16);
    const LinkHeat har = LinkLoad::heat(m.mesh(), LinkLoad::allReduce(m));
    const LinkHeat ha2a =
        LinkLoad::heat(m.mesh(), LinkLoad::allToAll(m, LinkLoad::uniformTraffic(m, 8)));
    CHECK(hotInBoth(har, ha2a).size() == 32);
    // The same mapping family on 8x8 with tp = 4 (dp = 16, 4x4 FTDs) is complementary.
    const MoeMapping m4 = MoeMapping::entwined(DieMesh(8, 8), 16, 4);
    CHECK(hotInBoth(
              LinkLoad::heat(m4.mesh(), LinkLoad::allReduce(m4)),
              LinkLoad::heat(m4.mesh(), LinkLoad::allToAll(m4, LinkLoad::uniformTraffic(m4, 8))))
              .empty());
}

TEST_CASE("hierarchical ER keeps the all-to-all inside each wafer") {
    const MoeMapping m = MoeMapping::hierarchical(4, 4, 2, 8, 4);
    const auto a2a = LinkLoad::allToAll(m, LinkLoad::uniformTraffic(m, 8));
    const auto ar = LinkLoad::allReduce(m);
    bool crossA2a = false, crossAr = false;
    for (uint32_t i : m.mesh().links()) {
        const Link l = m.mesh().link(i);
        if (m.waferOf(l.from) != m.waferOf(l.to)) crossA2a |= a2a[i] > 0, crossAr |= ar[i] > 0;
    }
    CHECK_FALSE(crossA2a);
    CHECK(crossAr);  // only the inter-wafer all-gather crosses wafer edges
}

TEST_CASE("all-to-all traffic must match the mapping's groups and dies") {
    const MoeMapping m = MoeMapping::entwined(DieMesh(4, 4), 4, 4);
    CHECK_THROWS_WITH(
        LinkLoad::allToAll(m, std::vector<std::vector<double>>(3, std::vector<double>(16))),
        Catch::Contains("3 groups given, the mapping has dp = 4"));
}

// The table in docs/MOE.md "Hot and cold links": `test_moe "[.report]" -s`.
TEST_CASE("report hot and cold links of every mapping", "[.report]") {
    for (uint32_t side : {4u, 6u, 8u})
        for (uint32_t tp = 2; tp <= 16; ++tp) {
            if ((side * side) % tp) continue;
            const DieMesh mesh(side, side);
            for (const MoeMapping& m : {MoeMapping::baseline(mesh, mesh.dies() / tp, tp),
                                        MoeMapping::entwined(mesh, mesh.dies() / tp, tp)}) {
                const auto ar = LinkLoad::allReduce(m),
                           a2a = LinkLoad::allToAll(m, LinkLoad::uniformTraffic(m, 8));
                const LinkHeat h1 = LinkLoad::heat(mesh, ar), h2 = LinkLoad::heat(mesh, a2a);
                const FtdAnalysis f(m);
                std::cout << "| " << side << "x" << side << " | " << tp << " | "
                          << mappingName(m.kind()) << " | " << f.hopsToOthers() << " | "
                          << f.a2aHops() << " | " << f.maxRingHop(0) << " | " << h1.max << " | "
                          << h2.max << " | " << h1.hot.size() << " | " << h2.hot.size() << " | "
                          << hotInBoth(h1, h2).size() << " |\n";
            }
        }
}

TEST_CASE("entwined rings meet on links cut-through and never store-and-forward",
          "[moe][mapping]") {
    // MoEntwine Sec. IV-A2: "although these rings have intersecting links, the transfers are
    // time-staggered, so there is no link conflict". With every ring stepping together and each
    // hop in its own slot (store-and-forward) that holds for every ER case here; when a ring
    // step's transfer holds its whole path at once (cut-through, the simulator's NoC) two or
    // more rings meet on the busiest link, up to the longest ring hop (4 on 8x8 dp 16 tp 4). The
    // baseline's rings never meet. docs/MOE.md, "Entwined rings".
    struct Case {
        uint32_t cols, rows, dp, tp;
    };
    using wsc::firmware::temp::TrafficMap;
    for (const Case c : {Case{4, 4, 4, 4}, Case{4, 4, 8, 2}, Case{4, 4, 2, 8}, Case{6, 6, 4, 9},
                         Case{8, 8, 16, 4}, Case{8, 8, 4, 16}}) {
        for (const bool er : {false, true}) {
            const DieMesh mesh(c.cols, c.rows);
            const MoeMapping m = er ? MoeMapping::entwined(mesh, c.dp, c.tp)
                                    : MoeMapping::baseline(mesh, c.dp, c.tp);
            std::vector<TrafficMap::Group> rings;
            for (const auto& r : m.stages()[0].rings) rings.push_back({"ring", r});
            const wsc::firmware::placement::DieArray a{c.cols, c.rows};
            const auto cut = TrafficMap(a, rings, TrafficMap::Cost::Flows).load();
            const auto saf = TrafficMap(a, rings, TrafficMap::Cost::StoreForward).load();
            INFO(c.cols << "x" << c.rows << " dp " << c.dp << " tp " << c.tp
                        << (er ? " ER" : " baseline"));
            CHECK(saf.max == 1);
            const uint32_t hop = FtdAnalysis(m).maxRingHop(0);
            if (er) {
                CHECK(cut.max >= 2);
                CHECK(cut.max <= hop);
            } else {
                CHECK(cut.max == 1);
            }
            if (er && c.cols == 8 && c.dp == 16) CHECK(cut.max == 4);
        }
    }
}
