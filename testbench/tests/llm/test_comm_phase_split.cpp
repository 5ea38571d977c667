// Per-phase link use (CommPhaseSplit): windows go to the kind most dies are running, background
// kinds never name a window, utilization is busy over the phase's cycles, and hot/cold are
// relative to the phase's busiest link. Plain C++, no SystemC.
#include <catch2/catch.hpp>

#include "testbench/CommPhaseSplit.h"

using namespace wsc;
using tb::CommPhaseSplit;
using Window = tb::LinkTimeline::Window;

TEST_CASE("phase split: windows go to the kind that covers most of them over the dies",
          "[llm][heatmap]") {
    std::vector<hw::LinkUse> links(3);
    for (size_t i = 0; i < 3; ++i) links[i].name = "l" + std::to_string(i);
    // Two dies. [0, 100): both in "tp all-reduce"; [100, 200): only die 0 in "ep dispatch"
    // (half the die-cycles: still the kind), [200, 300): die 1 in "ep dispatch" for 40 cycles
    // (less than half: compute), [300, 400): both dies compute while a migration runs.
    const std::vector<CommPhaseSplit::Span> spans = {{0, "tp all-reduce", 0, 100},
                                                     {1, "tp all-reduce", 0, 100},
                                                     {0, "ep dispatch", 100, 200},
                                                     {1, "ep dispatch", 230, 270},
                                                     {0, "expert migration (local)", 0, 400},
                                                     {1, "expert migration (global)", 300, 400}};
    const std::vector<Window> w = {{0, 100, {80, 0, 10}},
                                   {100, 200, {0, 60, 0}},
                                   {200, 300, {0, 0, 0}},
                                   {300, 400, {0, 0, 20}}};
    const auto phases = CommPhaseSplit::split(w, links, spans);
    REQUIRE(phases.size() == 3);
    // Longest first: compute (200 cycles), then the two kinds (100 each, by name).
    CHECK(phases[0].name == "compute");
    CHECK(phases[0].cycles == 200);
    CHECK(phases[0].links[2].utilization == Approx(0.1));
    const auto& ar = phases[1].name == "tp all-reduce" ? phases[1] : phases[2];
    const auto& a2a = phases[1].name == "tp all-reduce" ? phases[2] : phases[1];
    CHECK(ar.name == "tp all-reduce");
    CHECK(a2a.name == "ep dispatch");
    CHECK(ar.cycles == 100);
    CHECK(ar.links[0].utilization == Approx(0.8));
    CHECK(ar.links[2].utilization == Approx(0.1));
    CHECK(ar.busiest() == Approx(0.8));
    CHECK(ar.hot() == std::vector<size_t>{0});
    CHECK(ar.cold() == std::vector<size_t>{1});  // 0.1 is not below 10% of 0.8
    CHECK(a2a.hot() == std::vector<size_t>{1});
    CHECK(a2a.cold() == (std::vector<size_t>{0, 2}));
    // Complementary: nothing hot in both.
    CHECK(CommPhaseSplit::hotInBoth(ar, a2a).empty());
    CHECK(CommPhaseSplit::hotInBoth(ar, ar) == std::vector<size_t>{0});
    CHECK(CommPhaseSplit::slug("expert migration (local)") == "expert-migration-local");
}
