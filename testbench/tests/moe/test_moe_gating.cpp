// Seeded gating models (firmware/moe/GatingModel): determinism, valid selections and the
// statistics each popularity model promises (docs/MOE.md "Gating models").
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "firmware/moe/GatingModel.h"

using namespace wsc::firmware::moe;

namespace {

GatingConfig config(GatingKind k) {
    GatingConfig c;
    c.kind = k;
    c.experts = 64;
    c.topK = 8;
    c.layers = 3;
    c.tokens = 64;
    c.seed = 42;
    c.zipfS = 1.2;
    c.hotExperts = 8;
    c.hotProbability = 0.7;
    c.driftRate = 0.1;
    return c;
}

}  // namespace

TEST_CASE("every gating model is deterministic for a seed and differs across seeds") {
    for (GatingKind k : {GatingKind::Uniform, GatingKind::Zipf, GatingKind::Temporal}) {
        INFO(gatingName(k));
        const GatingModel a(config(k)), b(config(k));
        GatingConfig other = config(k);
        other.seed = 43;
        const GatingModel c(other);
        bool differs = false;
        for (uint32_t it = 0; it < 5; ++it)
            for (uint32_t l = 0; l < 3; ++l) {
                const auto sa = a.selectLayer(it, l);
                CHECK(sa == b.selectLayer(it, l));
                CHECK(sa[17] == a.select(it, l, 17));  // one token alone draws the same
                differs |= sa != c.selectLayer(it, l);
            }
        CHECK(differs);
    }
}

TEST_CASE("every selection is top-k distinct experts in range") {
    for (GatingKind k : {GatingKind::Uniform, GatingKind::Zipf, GatingKind::Temporal}) {
        const GatingModel g(config(k));
        for (uint32_t it = 0; it < 4; ++it)
            for (const auto& sel : g.selectLayer(it, 1)) {
                REQUIRE(sel.size() == 8);
                CHECK(std::set<uint32_t>(sel.begin(), sel.end()).size() == 8);
                CHECK(*std::max_element(sel.begin(), sel.end()) < 64);
            }
    }
}

TEST_CASE("uniform gating spreads top-k picks evenly (within 5 sigma)") {
    GatingConfig c = config(GatingKind::Uniform);
    c.tokens = 4000;
    const GatingModel g(c);
    std::vector<double> n(64, 0);
    for (const auto& sel : g.selectLayer(0, 0))
        for (uint32_t e : sel) n[e] += 1;
    // Each expert is in a token's top-8 with p = 1/8: mean 500, sigma sqrt(4000 p (1 - p)).
    const double sigma = std::sqrt(4000 * 0.125 * 0.875);
    for (double v : n) CHECK(std::abs(v - 500) < 5 * sigma);
}

TEST_CASE("zipf top-1 picks follow 1 / rank^s over the layer's popularity order") {
    GatingConfig c = config(GatingKind::Zipf);
    c.topK = 1;
    c.tokens = 20000;
    const GatingModel g(c);
    std::vector<double> n(64, 0);
    for (const auto& sel : g.selectLayer(0, 2)) n[sel[0]] += 1;
    double h = 0;
    for (uint32_t r = 1; r <= 64; ++r) h += std::pow(r, -1.2);
    const auto order = g.popularity(2);
    for (uint32_t r : {0u, 1u, 4u, 20u}) {
        const double p = std::pow(r + 1, -1.2) / h;
        const double sigma = std::sqrt(20000 * p * (1 - p));
        INFO("rank " << r << " expert " << order[r] << " count " << n[order[r]] << " expected "
                     << 20000 * p);
        CHECK(std::abs(n[order[r]] - 20000 * p) < 5 * sigma);
    }
    CHECK(g.popularity(0) != g.popularity(1));  // each layer has its own favourites
}

TEST_CASE(
    "moe: temporal gating draws hotProbability of picks from a hot set drifting at driftRate") {
    GatingConfig c = config(GatingKind::Temporal);
    c.topK = 1;
    c.tokens = 4000;
    const GatingModel g(c);
    const auto hot = g.hotSet(3, 0);
    REQUIRE(hot.size() == 8);
    double inHot = 0;
    for (const auto& sel : g.selectLayer(3, 0))
        inHot += std::binary_search(hot.begin(), hot.end(), sel[0]);
    const double sigma = std::sqrt(4000 * 0.7 * 0.3);
    CHECK(std::abs(inHot - 2800) < 5 * sigma);
    // Drift: the share of hot experts replaced between consecutive iterations averages driftRate
    // (slightly less: a replacement can bring back an expert evicted earlier in the same step).
    double changed = 0;
    const uint32_t iters = 1000;
    auto prev = g.hotSet(0, 1);
    for (uint32_t it = 1; it <= iters; ++it) {
        const auto cur = g.hotSet(it, 1);
        std::vector<uint32_t> gone;
        std::set_difference(prev.begin(), prev.end(), cur.begin(), cur.end(),
                            std::back_inserter(gone));
        changed += double(gone.size());
        prev = cur;
    }
    const double rate = changed / (iters * 8.0);
    INFO("measured drift " << rate);
    CHECK(rate == Approx(0.1).margin(0.015));
    GatingConfig still = c;
    still.driftRate = 0;
    const GatingModel s(still);
    CHECK(s.hotSet(0, 0) == s.hotSet(50, 0));
}

TEST_CASE("impossible gating configs are refused, naming the field") {
    GatingConfig c = config(GatingKind::Temporal);
    c.topK = 65;
    CHECK_THROWS_WITH(GatingModel(c), "gating model: top_k: expected 1..64 (the experts), got 65");
    c = config(GatingKind::Temporal);
    c.driftRate = 1.5;
    CHECK_THROWS_WITH(GatingModel(c),
                      "gating model: drift_rate: expected a number in [0, 1], got 1.5");
    c = config(GatingKind::Temporal);
    c.hotExperts = 64;
    CHECK_THROWS_WITH(GatingModel(c), Catch::Contains("hot_experts: expected 1..63"));
    CHECK_THROWS_WITH(gatingKind("zipfian"),
                      "gating model: unknown kind 'zipfian' (uniform, zipf, temporal)");
}
