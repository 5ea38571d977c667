// Expert balancers (firmware/moe/*Balancer) and the Eq. 2 trigger: the greedy baseline,
// MoEntwine Algorithm 1 and the NI-Balancer's split of each copy into local and global steps.
#include <array>
#include <catch2/catch.hpp>

#include "firmware/moe/BalanceTrigger.h"
#include "firmware/moe/ExpertTrace.h"
#include "firmware/moe/GreedyBalancer.h"
#include "firmware/moe/NiBalancer.h"
#include "firmware/moe/TopologyAwareBalancer.h"

using namespace wsc::firmware::moe;

namespace {

// 16 experts on 4x4 (E/D = 1), one shadow slot per die; expert 5 (die 5 at (1,1)) takes 8 tokens,
// every other expert 1: mean 1.5, peak 8.
std::vector<double> oneHotLoad() {
    std::vector<double> l(16, 1.0);
    l[5] = 8.0;
    return l;
}

}  // namespace

TEST_CASE("topology-aware balancing copies the hot expert to the nearest cold die (Alg. 1)") {
    const DieMesh mesh(4, 4);
    const ExpertPlacement pl = ExpertPlacement::contiguous(16, 16, 1);
    const BalancePlan p = TopologyAwareBalancer().plan(mesh, pl, oneHotLoad());
    // Hand-traced (docs/MOE.md): from the hottest die to the nearest die that stays below it.
    const std::vector<std::array<uint32_t, 3>> first = {{5, 5, 1}, {5, 1, 0}, {5, 0, 4}, {5, 0, 2},
                                                        {5, 0, 8}, {5, 0, 3}, {5, 0, 6}, {0, 0, 5}};
    REQUIRE(p.migrations.size() >= first.size());
    for (size_t i = 0; i < first.size(); ++i) {
        INFO("migration " << i);
        CHECK(p.migrations[i].expert == first[i][0]);
        CHECK(p.migrations[i].from == first[i][1]);
        CHECK(p.migrations[i].to == first[i][2]);
    }
    CHECK(p.maxBefore() == 8.0);
    CHECK(p.maxAfter() == Approx(1.5));  // the mean: perfectly balanced
    // Then 1: 1->9, 2: 2->7, 3: 3->11, 4: 4->12, 5: 6->10 (expert 5 before 6 on die 6's tie),
    // 6: 6->14, 8: 8->13, 10: 10->15: every slot used.
    CHECK(p.migrations.size() == 16);
    for (const Migration& m : p.migrations) CHECK(m.path.size() == mesh.hops(m.from, m.to));
}

TEST_CASE("greedy balancing fills every slot and moves experts further than Alg. 1") {
    const DieMesh mesh(4, 4);
    const ExpertPlacement pl = ExpertPlacement::contiguous(16, 16, 1);
    const BalancePlan g = GreedyBalancer().plan(mesh, pl, oneHotLoad());
    const BalancePlan t = TopologyAwareBalancer().plan(mesh, pl, oneHotLoad());
    CHECK(g.migrations.size() == 16);
    // The first copy goes to the coldest die, die 0 (lowest id among heat 1), from die 5.
    CHECK(g.migrations[0].expert == 5);
    CHECK(g.migrations[0].to == 0);
    INFO("greedy: peak " << g.maxAfter() << ", " << g.totalHops() << " hops; topology-aware: peak "
                         << t.maxAfter() << ", " << t.totalHops() << " hops");
    // Greedy keeps copying whatever expert is globally hottest to the lowest-id coldest die, so
    // expert 5 ends with 9 copies (8 / 9 each) next to unsplit experts: peak 1 + 8/9.
    CHECK(g.maxAfter() == Approx(1.0 + 8.0 / 9.0));
    CHECK(g.totalHops() == 40);
    CHECK(t.maxAfter() == Approx(1.5));
    CHECK(t.totalHops() == 30);
}

TEST_CASE("Algorithm 1 line 5 taken literally never copies when each die hosts one expert") {
    const DieMesh mesh(4, 4);
    const ExpertPlacement pl = ExpertPlacement::contiguous(16, 16, 1);
    const BalancePlan p = TopologyAwareBalancer(TopologyAwareBalancer::ColdRule::Literal)
                              .plan(mesh, pl, oneHotLoad());
    CHECK(p.migrations.empty());  // Heat_hot - Load/Num = 0: no die is colder than 0
    // With two hot experts on one die the literal rule can act: die 2 hosts experts 4 and 5
    // (heat 16); a copy of expert 4 at its whole load 8 keeps any other die (heat 2) below 16.
    std::vector<double> l(32, 1.0);
    l[4] = l[5] = 8.0;
    const BalancePlan q = TopologyAwareBalancer(TopologyAwareBalancer::ColdRule::Literal)
                              .plan(mesh, ExpertPlacement::contiguous(32, 16, 1), l);
    REQUIRE_FALSE(q.migrations.empty());
    CHECK(q.migrations[0].expert == 4);
    CHECK(q.maxAfter() < q.maxBefore());
}

TEST_CASE("balancers refuse loads that do not match the placement") {
    const ExpertPlacement pl = ExpertPlacement::contiguous(16, 16, 1);
    CHECK_THROWS_WITH(GreedyBalancer().plan(DieMesh(4, 4), pl, std::vector<double>(15, 1.0)),
                      "greedy balancer: 15 expert loads given for 16 experts");
    std::vector<double> bad(16, 1.0);
    bad[3] = -1;
    CHECK_THROWS_WITH(TopologyAwareBalancer().plan(DieMesh(4, 4), pl, bad),
                      "topology-aware balancer: load of expert 3 is -1, expected a number >= 0");
    CHECK_THROWS_WITH(ExpertPlacement::contiguous(20, 16, 1),
                      Catch::Contains("20 experts do not spread evenly"));
}

TEST_CASE(
    "moe: NI-Balancer gives intra-FTD links to the all-reduce, inter-FTD to the all-to-all (4x4 "
    "ER)") {
    const MoeMapping m = MoeMapping::entwined(DieMesh(4, 4), 4, 4);
    const NiBalancer ni(m, 8);
    for (uint32_t i : LinkLoad::intraFtdLinks(m))
        CHECK(ni.linkPhase()[i] == MigrationPhase::AllReduce);
    for (uint32_t i : LinkLoad::interFtdLinks(m))
        CHECK(ni.linkPhase()[i] == MigrationPhase::AllToAll);
}

TEST_CASE("a corner-to-corner migration on 4x4 ER is Local -> Global -> Local (Fig. 11(d))") {
    const MoeMapping m = MoeMapping::entwined(DieMesh(4, 4), 4, 4);
    const Migration mig = NiBalancer(m, 8).split(7, 0, 15);
    CHECK(mig.path.size() == 6);  // a minimal route
    REQUIRE(mig.steps.size() == 3);
    CHECK(mig.steps[0].phase == MigrationPhase::AllReduce);
    CHECK(mig.steps[1].phase == MigrationPhase::AllToAll);
    CHECK(mig.steps[2].phase == MigrationPhase::AllReduce);
    // (0,0) -> (1,0) -> (1,1) | (1,1) -> (2,1) -> (2,2) | (2,2) -> (3,2) -> (3,3)
    CHECK(mig.steps[0].to == 5);
    CHECK(mig.steps[1].to == 10);
    CHECK(mig.steps[2].to == 15);
    for (const MigrationStep& s : mig.steps) CHECK(s.links.size() == 2);
    CHECK(mig.steps[0].slot == 0);  // layer 0's all-reduce
    CHECK(mig.steps[1].slot == 1);  // layer 0's all-to-all
    CHECK(mig.steps[2].slot == 2);  // layer 1's all-reduce
    // Plain XY would cross phases five times: (0,0)->(1,0) L, ->(2,0) G, ->(3,0) L, ->(3,1) L,
    // ->(3,2) G, ->(3,3) L.
    const Migration inFtd = NiBalancer(m, 8).split(7, 0, 5);
    REQUIRE(inFtd.steps.size() == 1);
    CHECK(inFtd.steps[0].slot == 0);
    const Migration across = NiBalancer(m, 8).split(7, 1, 2);  // (1,0) -> (2,0): one inter-FTD link
    REQUIRE(across.steps.size() == 1);
    CHECK(across.steps[0].phase == MigrationPhase::AllToAll);
    CHECK(across.steps[0].slot == 1);
}

TEST_CASE("every NI-Balancer step uses only links of its phase and the steps chain") {
    for (const MoeMapping& m :
         {MoeMapping::entwined(DieMesh(4, 4), 4, 4), MoeMapping::entwined(DieMesh(8, 8), 16, 4),
          MoeMapping::baseline(DieMesh(6, 6), 9, 4)}) {
        const NiBalancer ni(m, 8);
        std::vector<double> load(m.mesh().dies(), 1.0);
        load[m.mesh().dies() / 2 + 1] = 10;
        const BalancePlan p = ni.plan(
            m.mesh(), ExpertPlacement::contiguous(m.mesh().dies(), m.mesh().dies(), 2), load);
        REQUIRE_FALSE(p.migrations.empty());
        CHECK(p.maxAfter() < p.maxBefore());
        for (const Migration& mig : p.migrations) {
            CHECK(mig.path.size() == m.mesh().hops(mig.from, mig.to));
            uint32_t at = mig.from, slot = 0;
            for (size_t i = 0; i < mig.steps.size(); ++i) {
                const MigrationStep& s = mig.steps[i];
                CHECK(s.from == at);
                for (const Link& l : s.links)
                    CHECK(ni.linkPhase()[m.mesh().linkIndex(l)] == s.phase);
                CHECK(s.slot % 2 == (s.phase == MigrationPhase::AllReduce ? 0u : 1u));
                if (i) CHECK(s.slot > slot);
                if (i) CHECK(s.phase != mig.steps[i - 1].phase);
                slot = s.slot;
                at = s.to;
            }
            CHECK(at == mig.to);
        }
    }
}

TEST_CASE("Eq. 2 fires when summed layer imbalance exceeds alpha and dt exceeds beta") {
    CHECK(BalanceTrigger::imbalance({1, 1, 1, 5}) == Approx(1.5));  // (5 - 2) / 2
    CHECK(BalanceTrigger::imbalance({0, 0}) == 0.0);
    const std::vector<std::vector<double>> layers = {{1, 1, 1, 5}, {2, 2, 2, 6}};  // 1.5 + 1
    CHECK(BalanceTrigger::cumulative(layers) == Approx(2.5));
    const BalanceTrigger ni({2.4, 0});
    CHECK(ni.fires(layers, 1));
    CHECK_FALSE(ni.fires(layers, 0));                        // dt must exceed beta, even beta = 0
    CHECK_FALSE(BalanceTrigger({2.5, 0}).fires(layers, 1));  // strictly above alpha
    const BalanceTrigger invasive({1.0, 10});
    CHECK_FALSE(invasive.fires(layers, 10));
    CHECK(invasive.fires(layers, 11));
    CHECK_THROWS_WITH(BalanceTrigger({-1, 0}),
                      "balance trigger: alpha: expected a number >= 0, got -1");
}

TEST_CASE("the shipped trace drives Eq. 2, the NI-Balancer and the all-to-all on 4x4 ER") {
    const ExpertTrace t = ExpertTrace::readFile(std::string(WSC_SOURCE_DIR) +
                                                "/configs/traces/moe_temporal_e32k4.jsonl");
    const MoeMapping m = MoeMapping::entwined(DieMesh(4, 4), 4, 4);
    const ExpertPlacement pl = ExpertPlacement::contiguous(t.header().experts, 16, 1);  // E/D = 2
    std::vector<std::vector<double>> dieLoad;
    for (uint32_t l = 0; l < t.header().layers; ++l)
        dieLoad.push_back(pl.heat(t.expertLoad(l, 0, t.iterations() - 1)));
    const double imbalance = BalanceTrigger::cumulative(dieLoad);
    INFO("summed imbalance " << imbalance);
    CHECK(imbalance > 1.0);  // a hot set of 4 of 32 experts at 60% of picks
    CHECK(BalanceTrigger({1.0, 0}).fires(dieLoad, 1));
    const BalancePlan p =
        NiBalancer(m, t.header().topK).plan(m.mesh(), pl, t.expertLoad(0, 0, t.iterations() - 1));
    CHECK(p.maxAfter() < p.maxBefore());
    // Real (skewed) selections still keep the all-to-all inside the FTDs.
    const auto a2a = LinkLoad::allToAll(m, p.after.traffic(m, t.selections(3, 0)));
    for (uint32_t i : LinkLoad::interFtdLinks(m)) CHECK(a2a[i] == 0.0);
}
