// Full token domains (firmware/moe/FtdAnalysis) against the paper's worked 4x4 case and against
// the closed forms of docs/MOE.md for every mesh and TP degree of the brief.
#include <catch2/catch.hpp>

#include "firmware/moe/FtdAnalysis.h"

using namespace wsc::firmware::moe;

TEST_CASE("4x4 dp=4 tp=4 baseline FTDs are four 3x3 domains sharing the central four dies") {
    const FtdAnalysis a(MoeMapping::baseline(DieMesh(4, 4), 4, 4));
    REQUIRE(a.ftds().size() == 4);
    for (const FtdStats& f : a.ftds()) {
        CHECK(f.boxCols() == 3);
        CHECK(f.boxRows() == 3);
    }
    // Paper Sec. IV-A: "an ideal average of 2.7 hops"; exactly 8/3 (2, 2, 4 to the other three).
    CHECK(a.hopsToOthers() == Approx(8.0 / 3.0));
    CHECK(a.a2aHops() == Approx(2.0));  // own group's quarter of the tokens travels 0 hops
    CHECK(a.sharedByAll() == std::vector<uint32_t>{5, 6, 9, 10});
    // FTD k is rank k of every group: ranks 0 and 2 sit diagonally in a block, 0 and 1 one above
    // the other, 0 and 3 side by side.
    CHECK(a.overlap(0, 2) == 4);  // the central 2x2
    CHECK(a.overlap(0, 1) == 6);  // 3 x 2
    CHECK(a.overlap(0, 3) == 6);  // 2 x 3
    CHECK_FALSE(a.boxesDisjoint());
    // A token fetched from its group's nearest die, FTDs ignored: per quadrant the corner die
    // averages 2, the inner die 1, the two others 1.5, so 1.5; the FTD partition costs 0.5 more.
    CHECK(a.nearestSourceHops() == Approx(1.5));
}

TEST_CASE("4x4 dp=4 tp=4 ER FTDs are disjoint 2x2 blocks with half the hops") {
    const FtdAnalysis base(MoeMapping::baseline(DieMesh(4, 4), 4, 4));
    const FtdAnalysis er(MoeMapping::entwined(DieMesh(4, 4), 4, 4));
    for (const FtdStats& f : er.ftds()) CHECK(f.boxArea() == 4);
    CHECK(er.boxesDisjoint());
    CHECK(er.sharedByAll().empty());
    CHECK(er.hopsToOthers() == Approx(4.0 / 3.0));  // paper: "reduces average hops by 2x"
    CHECK(er.a2aHops() == Approx(1.0));
    CHECK(base.hopsToOthers() / er.hopsToOthers() == Approx(2.0));
    CHECK(er.nearestSourceHops() == Approx(1.0));  // ER's FTD is already every group's nearest die
}

TEST_CASE("FTD hop averages equal the closed forms on 4x4, 6x6 and 8x8 for tp = 2..16") {
    for (uint32_t side : {4u, 6u, 8u})
        for (uint32_t tp = 2; tp <= 16; ++tp) {
            if ((side * side) % tp) continue;
            const DieMesh mesh(side, side);
            const uint32_t dp = mesh.dies() / tp;
            INFO("side " << side << " dp " << dp << " tp " << tp);
            const MoeMapping er = MoeMapping::entwined(mesh, dp, tp);
            const FtdAnalysis a(er);
            const uint32_t fa = er.blockCols(), fb = er.blockRows();
            // ER: an fa x fb block at spacing 1: (fa + fb) / 3 to the others.
            CHECK(a.hopsToOthers() == Approx(FtdAnalysis::gridPairMean(fa, fb, 1, 1)));
            if (dp > 1) CHECK(a.hopsToOthers() == Approx((fa + fb) / 3.0));
            CHECK(a.a2aHops() == Approx(a.hopsToOthers() * (dp - 1) / dp));
            for (const FtdStats& f : a.ftds()) CHECK(f.boxArea() == dp);
            CHECK(a.boxesDisjoint());

            const MoeMapping base = MoeMapping::baseline(mesh, dp, tp);
            const FtdAnalysis b(base);
            // Baseline: rank k of every TP block, a (side / a) x (side / b) grid at spacing (a, b).
            const uint32_t ba = base.blockCols(), bb = base.blockRows();
            CHECK(b.hopsToOthers() ==
                  Approx(FtdAnalysis::gridPairMean(side / ba, side / bb, ba, bb)));
            CHECK(b.a2aHops() == Approx(b.hopsToOthers() * (dp - 1) / dp));
            CHECK(b.hopsToOthers() >= a.hopsToOthers() - 1e-12);  // ER never worse
        }
}

TEST_CASE("hierarchical ER makes each wafer one FTD with the wafer's mean distance") {
    for (uint32_t w : {2u, 4u}) {
        const FtdAnalysis a(MoeMapping::hierarchical(8, 8, w, 8 * w, 8));
        REQUIRE(a.ftds().size() == w);
        // Shards of every group sit on every die of the wafer: (C + R) / 3 to the others and
        // (C^2 - 1) / 3C + (R^2 - 1) / 3R including the die itself.
        CHECK(a.hopsToOthers() == Approx(16.0 / 3.0));
        CHECK(a.a2aHops() == Approx(2 * 63.0 / 24.0));
        CHECK(a.boxesDisjoint());
    }
}

TEST_CASE("gridPairMean is the brute-force mean over distinct point pairs") {
    for (uint32_t p = 1; p <= 4; ++p)
        for (uint32_t q = 1; q <= 4; ++q) {
            if (p * q < 2) continue;
            double s = 0;
            for (uint32_t a = 0; a < p * q; ++a)
                for (uint32_t b = 0; b < p * q; ++b) {
                    const int dx = int(a % p) - int(b % p), dy = int(a / p) - int(b / p);
                    s += 3.0 * std::abs(dx) + 2.0 * std::abs(dy);
                }
            CHECK(FtdAnalysis::gridPairMean(p, q, 3, 2) == Approx(s / (p * q * (p * q - 1.0))));
        }
}
