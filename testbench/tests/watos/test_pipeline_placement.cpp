// WATOS Eq. 2 placement (firmware/watos/PipelinePlacement, WatosPlacement): the cost's pieces on
// hand cases, Fig. 11's 8-stage case against the row-major placement, exhaustive against local
// search, and the rank -> die vector the LLM steps take.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

#include "firmware/placement/RowMajorPlacement.h"
#include "firmware/placement/SnakePlacement.h"
#include "firmware/plan/RankGrid.h"
#include "firmware/watos/PipelinePlacement.h"
#include "firmware/watos/WatosPlacement.h"

using namespace wsc::firmware::watos;
using wsc::firmware::placement::DieArray;
using wsc::firmware::plan::ParallelPlan;
using wsc::firmware::plan::RankGrid;

namespace {

RankGrid grid(uint32_t tp, uint32_t pp) {
    ParallelPlan p;
    p.tp = tp, p.pp = pp;
    return RankGrid(p);
}

bool isPermutation(std::vector<uint32_t> v, uint32_t n) {
    std::sort(v.begin(), v.end());
    std::vector<uint32_t> all(n);
    std::iota(all.begin(), all.end(), 0u);
    return v == all;
}

// Fig. 11: 8 stages of 2 dies on a 4 x 4 array, Mem_pairs (S1, S8) and (S2, S7), unit weights.
PipelinePlacement fig11() {
    return PipelinePlacement(DieArray{4, 4}, 8, 2, {}, {{0, 7, 1.0}, {1, 6, 1.0}});
}

}  // namespace

TEST_CASE("XY links go along x first, then y, one directed link per hop") {
    const DieArray a{3, 2};
    // Die 0 (0, 0) -> die 4 (1, 1): east out of die 0, then south out of die 1.
    CHECK(PipelinePlacement::xyLinks(a, 0, 4) == std::vector<uint32_t>{0 * 4 + 0, 1 * 4 + 2});
    // Die 4 -> die 0 is not the reverse: west out of die 4, then north out of die 3.
    CHECK(PipelinePlacement::xyLinks(a, 4, 0) == std::vector<uint32_t>{4 * 4 + 1, 3 * 4 + 3});
    CHECK(PipelinePlacement::xyLinks(a, 2, 2).empty());
}

TEST_CASE("gamma counts the directed links a pair's routes share with the pipeline's") {
    // Stages on dies 0 (0, 0), 1 (1, 0) and 4 (1, 1) of a 3 x 2 array; pair (stage 0, stage 2).
    // Pipeline links: 0->1 east of 0, 1->0 west of 1, 1->4 south of 1, 4->1 north of 4.
    // Pair routes: 0->4 east of 0, south of 1 (both pipeline links); 4->0 west of 4, north of 3
    // (neither). gamma = 2, Dist = 2, so the pair adds 2 * 5 * (1 + 2) = 30.
    const PipelinePlacement p(DieArray{3, 2}, 3, 1, {1.0, 1.0}, {{0, 2, 5.0}});
    const PipelinePlacement::Cost c = p.cost({0, 1, 4});
    REQUIRE(c.pair_gamma.size() == 1);
    CHECK(c.pair_gamma[0] == 2);
    CHECK(c.pair_dist[0] == 2.0);
    CHECK(c.pipeline == 2.0);
    CHECK(c.pairs == 30.0);
    CHECK(c.total == 32.0);
    // Along a line every link of the pair's routes is a pipeline link, both ways: gamma = 6.
    const PipelinePlacement line(DieArray{4, 1}, 4, 1, {}, {{0, 3, 1.0}});
    CHECK(line.cost({0, 1, 2, 3}).pair_gamma[0] == 6);
}

TEST_CASE("stage centres are the mean of their dies and Dist is Manhattan between centres") {
    // Row-major on 4 x 4 with tp = 2: stage s holds dies 2s, 2s + 1 (a 2 x 1 block, w x h).
    const PipelinePlacement p = fig11();
    std::vector<uint32_t> row_major(16);
    std::iota(row_major.begin(), row_major.end(), 0u);
    const PipelinePlacement::Cost c = p.cost(row_major);
    CHECK(c.centre_x[0] == 0.5);
    CHECK(c.centre_y[0] == 0.0);
    CHECK(c.centre_x[7] == 2.5);
    CHECK(c.centre_y[7] == 3.0);
    CHECK(c.pair_dist == std::vector<double>{5.0, 5.0});
    CHECK(c.pipelineHops() == 2 + 3 + 2 + 3 + 2 + 3 + 2);
}

TEST_CASE("Fig. 11: the searched placement costs less than row-major and brings the pairs closer") {
    const PipelinePlacement p = fig11();
    std::vector<uint32_t> row_major(16);
    std::iota(row_major.begin(), row_major.end(), 0u);
    const PipelinePlacement::Cost base = p.cost(row_major);
    const PipelinePlacement::Cost snake =
        p.cost(wsc::firmware::placement::SnakePlacement().place(grid(2, 8), DieArray{4, 4}));
    const PipelinePlacement::Result r = p.search();
    CHECK(r.exhaustive);
    CHECK(isPermutation(r.rank_die, 16));
    CHECK(r.cost.total <= base.total);
    CHECK(r.cost.total <= snake.total);
    // Row-major (2 x 1 blocks, w x h, along rows): pairs 5 hops apart (the paper's left-to-right,
    // top-to-bottom placement: 6), pipeline 17 hops whose XY routes cover 6 and 18 of the pairs'
    // links: 17 + 5 * 7 + 5 * 19 = 147. Searched: 1 x 2 blocks folded into a U (S1 above S8, S2
    // above S7), both pairs 2 hops apart (the paper: 4), pipeline 8 hops, no shared link:
    // 8 + 2 + 2 = 12, which is also the snake order of 1 x 2 blocks.
    CHECK(base.meanPairDist() == 5.0);
    CHECK(base.pair_gamma == std::vector<uint32_t>{6, 18});
    CHECK(base.total == 147.0);
    CHECK(r.block_w == 1);
    CHECK(r.block_h == 2);
    CHECK(r.cost.meanPairDist() == 2.0);
    CHECK(r.cost.pipelineHops() == 8.0);
    CHECK(r.cost.pair_gamma == std::vector<uint32_t>{0, 0});
    CHECK(r.cost.total == 12.0);
}

TEST_CASE("exhaustive and local search find the same cost on small cases") {
    struct Small {
        DieArray a;
        uint32_t pp, tp;
        std::vector<double> comm;
        std::vector<MemPair> pairs;
    };
    const std::vector<Small> cases{
        {{4, 4}, 8, 2, {}, {{0, 7, 1.0}, {1, 6, 1.0}}},
        {{4, 3}, 6, 2, {3, 3, 3, 3, 3}, {{0, 5, 2.0}, {1, 4, 1.0}}},
        {{4, 2}, 8, 1, {}, {{0, 7, 4.0}, {1, 6, 2.0}, {2, 5, 1.0}}},
        {{2, 4}, 4, 2, {1, 2, 1}, {{0, 3, 10.0}}},
        {{6, 4}, 6, 4, {}, {{0, 5, 1.0}, {1, 4, 1.0}, {2, 3, 0.5}}},
    };
    for (size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i);
        const Small& s = cases[i];
        const PipelinePlacement p(s.a, s.pp, s.tp, s.comm, s.pairs);
        PipelinePlacement::Options ex, local;
        ex.search = PipelinePlacement::Search::Exhaustive;
        local.search = PipelinePlacement::Search::Local;
        const auto e = p.search(ex), l = p.search(local);
        CHECK(e.exhaustive);
        CHECK_FALSE(l.exhaustive);
        CHECK(l.cost.total == Approx(e.cost.total));
    }
}

TEST_CASE("placements are permutations of the dies with every stage on one block") {
    // pp = 16 takes the local search; 8 x 8 with tp = 4 has 4 x 1, 2 x 2 and 1 x 4 blocks.
    const DieArray a{8, 8};
    const PipelinePlacement p(a, 16, 4, {}, {{0, 15, 1.0}, {1, 14, 1.0}, {2, 13, 1.0}});
    const PipelinePlacement::Result r = p.search();
    CHECK_FALSE(r.exhaustive);
    REQUIRE(isPermutation(r.rank_die, 64));
    CHECK(r.block_w * r.block_h == 4);
    for (uint32_t s = 0; s < 16; ++s) {
        uint32_t x0 = 8, y0 = 8, x1 = 0, y1 = 0;
        for (uint32_t t = 0; t < 4; ++t) {
            const uint32_t d = r.rank_die[s * 4 + t];
            x0 = std::min(x0, a.dx(d)), x1 = std::max(x1, a.dx(d));
            y0 = std::min(y0, a.dy(d)), y1 = std::max(y1, a.dy(d));
        }
        CHECK(x1 - x0 + 1 == r.block_w);
        CHECK(y1 - y0 + 1 == r.block_h);
    }
    CHECK(r.cost.total == Approx(p.cost(r.rank_die).total));
}

TEST_CASE("the local search is deterministic for a seed") {
    const PipelinePlacement p(DieArray{8, 8}, 16, 4, {}, {{0, 15, 1.0}, {3, 9, 2.0}});
    PipelinePlacement::Options o;
    o.seed = 7;
    CHECK(p.search(o).rank_die == p.search(o).rank_die);
}

TEST_CASE("WatosPlacement gives the die of every rank in RankGrid order and refuses dp") {
    const WatosPlacement w({{0, 7, 1.0}, {1, 6, 1.0}});
    const RankGrid g = grid(2, 8);
    const std::vector<uint32_t> dies = w.place(g, DieArray{4, 4});
    CHECK(dies == fig11().search().rank_die);  // rank = pp * tp + t
    CHECK(w.name() == "watos");
    ParallelPlan dp;
    dp.dp = 2, dp.tp = 2, dp.pp = 4;
    CHECK_THROWS_WITH(w.place(RankGrid(dp), DieArray{4, 4}), Catch::Contains("dp=2"));
    // Config 3's baseline: tp = 8 on the 7 x 8 array takes 1 x 8 blocks (columns), one per stage.
    const WatosPlacement c3({{0, 6, 1.0}});
    const auto r = c3.placeWithReport(grid(8, 7), DieArray{7, 8});
    CHECK(r.block_w == 1);
    CHECK(r.block_h == 8);
    CHECK(isPermutation(r.rank_die, 56));
}

TEST_CASE("pipeline placement refuses bad input naming it") {
    CHECK_THROWS_WITH(PipelinePlacement(DieArray{4, 4}, 8, 2, {1.0}, {}),
                      Catch::Contains("1 pipeline weights for 7 stage boundaries"));
    CHECK_THROWS_WITH(PipelinePlacement(DieArray{4, 4}, 8, 2, {}, {{0, 8, 1.0}}),
                      Catch::Contains("pair (0, 8)"));
    CHECK_THROWS_WITH(PipelinePlacement(DieArray{4, 4}, 4, 2, {}, {}).search(),
                      Catch::Contains("the search tiles the whole array"));
}
