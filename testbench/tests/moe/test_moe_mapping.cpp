// MoEntwine mappings (firmware/moe/MoeMapping): baseline, ER and hierarchical ER on the meshes
// the paper evaluates; invariants every mapping must keep and the ring hops each one promises.
#include <catch2/catch.hpp>
#include <set>

#include "firmware/moe/FtdAnalysis.h"
#include "firmware/moe/MoeMapping.h"

using namespace wsc::firmware::moe;

namespace {

struct Case {
    uint32_t side, tp;
};

// Every (mesh, tp) of the brief: 4x4, 6x6, 8x8 with tp = 2..16 dividing the die count.
std::vector<Case> allCases() {
    std::vector<Case> out;
    for (uint32_t side : {4u, 6u, 8u})
        for (uint32_t tp = 2; tp <= 16; ++tp)
            if ((side * side) % tp == 0) out.push_back({side, tp});
    return out;
}

void checkPartition(const MoeMapping& m) {
    INFO(mappingName(m.kind()) << " dp " << m.dp() << " tp " << m.tp() << "\n" << m.render());
    std::set<uint32_t> seen;
    REQUIRE(m.groups().size() == m.dp());
    for (const auto& g : m.groups()) {
        REQUIRE(g.size() == m.tp());
        for (uint32_t d : g) CHECK(seen.insert(d).second);
    }
    CHECK(seen.size() == m.mesh().dies());
    std::set<uint32_t> inFtd;
    for (const auto& f : m.ftds())
        for (uint32_t d : f) CHECK(inFtd.insert(d).second);
    CHECK(inFtd.size() == m.mesh().dies());
}

}  // namespace

TEST_CASE("baseline and ER place every die exactly once, FTDs partition the mesh") {
    for (const Case& c : allCases()) {
        const DieMesh mesh(c.side, c.side);
        const uint32_t dp = mesh.dies() / c.tp;
        checkPartition(MoeMapping::baseline(mesh, dp, c.tp));
        checkPartition(MoeMapping::entwined(mesh, dp, c.tp));
    }
}

TEST_CASE("an ER FTD holds one die of every TP group, a baseline FTD too") {
    for (const Case& c : allCases()) {
        const DieMesh mesh(c.side, c.side);
        const uint32_t dp = mesh.dies() / c.tp;
        for (const MoeMapping& m :
             {MoeMapping::baseline(mesh, dp, c.tp), MoeMapping::entwined(mesh, dp, c.tp)}) {
            REQUIRE(m.ftds().size() == c.tp);
            for (const auto& f : m.ftds()) {
                std::set<uint32_t> groups;
                for (uint32_t d : f) groups.insert(m.groupOf(d));
                CHECK(groups.size() == dp);
            }
        }
    }
}

TEST_CASE("the 4x4 dp=4 tp=4 mappings are the paper's Fig. 8(b) and 8(c)") {
    const DieMesh mesh(4, 4);
    const MoeMapping base = MoeMapping::baseline(mesh, 4, 4);
    const MoeMapping er = MoeMapping::entwined(mesh, 4, 4);
    // Baseline: group g in quadrant g (row-major), ranks around the 2x2 ring (down, right, up).
    CHECK(base.render() ==
          "   0.0   0.3   1.0   1.3\n"
          "   0.1   0.2   1.1   1.2\n"
          "   2.0   2.3   3.0   3.3\n"
          "   2.1   2.2   3.1   3.2\n");
    // ER: each quadrant is an FTD {D11^1, D12^2, D21^3, D22^4}; group s at offset s.
    CHECK(er.render() ==
          "   0.0   1.0   0.3   1.3\n"
          "   2.0   3.0   2.3   3.3\n"
          "   0.1   1.1   0.2   1.2\n"
          "   2.1   3.1   2.2   3.2\n");
    CHECK(er.blockCols() == 2);
    CHECK(er.blockRows() == 2);
}

TEST_CASE("baseline rings are physical (hop 1) wherever the TP block has a cycle") {
    for (const Case& c : allCases()) {
        const DieMesh mesh(c.side, c.side);
        const MoeMapping m = MoeMapping::baseline(mesh, mesh.dies() / c.tp, c.tp);
        const FtdAnalysis a(m);
        const uint32_t bc = m.blockCols(), br = m.blockRows();
        const bool cycle = bc * br <= 2 || (bc > 1 && br > 1 && (bc % 2 == 0 || br % 2 == 0));
        INFO("side " << c.side << " tp " << c.tp << " block " << bc << "x" << br);
        if (cycle)
            CHECK(a.maxRingHop(0) == 1);
        else
            CHECK(a.maxRingHop(0) > 1);  // 6x6 tp 3 (3x1 line) and tp 9 (3x3): no Hamiltonian cycle
    }
}

TEST_CASE("ER ring hops are the FTD block sides, and 4x4 dp=4 tp=4 gives entwined 2-hop rings") {
    const FtdAnalysis er44(MoeMapping::entwined(DieMesh(4, 4), 4, 4));
    for (const auto& ring : er44.ringHops()[0]) CHECK(ring == std::vector<uint32_t>{2, 2, 2, 2});
    for (const Case& c : allCases()) {
        const DieMesh mesh(c.side, c.side);
        const MoeMapping m = MoeMapping::entwined(mesh, mesh.dies() / c.tp, c.tp);
        const uint32_t gx = c.side / m.blockCols(), gy = c.side / m.blockRows();
        const bool cycle = gx * gy <= 2 || (gx > 1 && gy > 1 && (gx % 2 == 0 || gy % 2 == 0));
        INFO("side " << c.side << " tp " << c.tp << "\n" << m.render());
        const FtdAnalysis a(m);
        for (const auto& ring : a.ringHops()[0])
            for (size_t i = 0; i < ring.size(); ++i)
                if (cycle || i + 1 < ring.size())
                    CHECK((ring[i] == m.blockCols() || ring[i] == m.blockRows()));
    }
}

TEST_CASE("hierarchical ER over 2 and 4 wafers: intra-wafer rings, inter-wafer gathers") {
    for (uint32_t w : {2u, 4u}) {
        const MoeMapping m = MoeMapping::hierarchical(4, 4, w, 4 * w, 4);
        checkPartition(m);
        INFO("wafers " << w << "\n" << m.render());
        CHECK(m.mesh().cols() == 4 * w);
        REQUIRE(m.stages().size() == 2);
        // Reduce-scatter rings never leave their wafer; each is the 4x4 ER ring (hops of 2).
        for (const auto& ring : m.stages()[0].rings)
            for (uint32_t d : ring) CHECK(m.waferOf(d) == m.waferOf(ring[0]));
        const FtdAnalysis a(m);
        CHECK(a.maxRingHop(0) == 2);
        // All-gather rings: one die per wafer at the same position, a wafer width apart.
        REQUIRE(m.stages()[1].rings.size() == 16);
        for (const auto& ring : m.stages()[1].rings) {
            REQUIRE(ring.size() == w);
            for (uint32_t i = 0; i < w; ++i) CHECK(m.waferOf(ring[i]) == i);
        }
        for (const auto& hops : a.ringHops()[1])
            for (uint32_t i = 0; i + 1 < hops.size(); ++i) CHECK(hops[i] == 4);
        CHECK(a.ringHops()[1][0].back() == 4 * (w - 1));  // the line of wafers closes the ring
        CHECK(m.ftds().size() == w);                      // each wafer is one FTD
        CHECK(a.boxesDisjoint());
    }
}

TEST_CASE("mappings refuse a plan that does not fill the mesh, naming it") {
    CHECK_THROWS_WITH(MoeMapping::entwined(DieMesh(4, 4), 3, 4),
                      Catch::Contains("dp 3 x tp 4 = 12 dies does not fill the 4 x 4 mesh"));
    CHECK_THROWS_WITH(MoeMapping::hierarchical(4, 4, 3, 4, 4),
                      Catch::Contains("dp = 4 groups do not split over 3 wafers"));
    CHECK_THROWS_WITH(
        MoeMapping::hierarchical(4, 4, 2, 4, 4),
        "hierarchical mapping: 2 groups of tp 4 per wafer = 8 dies do not fill a 4 x 4 wafer");
}
