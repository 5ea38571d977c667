// TrafficWarnings: each warning fires in its case and not otherwise.
#include <catch2/catch.hpp>

#include "testbench/TrafficWarnings.h"

using namespace wsc;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// A healthy run: long warm-up and drain, everything accepted and drained.
std::pair<noc::TrafficParams, tb::TrafficResult> healthy() {
    noc::TrafficParams tp;
    tp.warmup_cycles = 1000;
    tp.drain_cycles = 100000;
    tb::TrafficResult r;
    r.zero_load_latency = 19.8;
    r.longest_path_latency = 46;
    r.offered_actual = 0.1;
    r.accepted = 0.1;
    r.drained = true;
    return {tp, r};
}

}  // namespace

TEST_CASE("traffic warnings fire in their case and not otherwise", "[noc][warnings]") {
    auto [tp, r] = healthy();
    CHECK(tb::TrafficWarnings::of(tp, r).empty());

    SECTION("warm-up shorter than the zero-load latency") {
        tp.warmup_cycles = 19;
        const auto w = tb::TrafficWarnings::of(tp, r);
        REQUIRE(w.size() == 1);
        CHECK_THAT(w[0], StartsWith("warm-up 19 cycles is shorter than the zero-load latency "
                                    "19.8 cycles"));
        CHECK_THAT(w[0], Contains("at least 20 cycles"));
        tp.warmup_cycles = 20;
        CHECK(tb::TrafficWarnings::of(tp, r).empty());
    }
    SECTION("not drained within a window shorter than the longest path") {
        r.drained = false;
        tp.drain_cycles = 45;
        const auto w = tb::TrafficWarnings::of(tp, r);
        REQUIRE(w.size() == 1);
        CHECK_THAT(w[0], Contains("drain window (45 cycles) is shorter than the longest path's "
                                  "zero-load latency (46 cycles)"));
        tp.drain_cycles = 46;  // long enough: not draining is then the network's doing
        CHECK(tb::TrafficWarnings::of(tp, r).empty());
        r.drained = true;
        tp.drain_cycles = 10;  // drained anyway: nothing to warn about
        CHECK(tb::TrafficWarnings::of(tp, r).empty());
    }
    SECTION("accepted more than 5% below offered") {
        r.accepted = 0.0949;
        const auto w = tb::TrafficWarnings::of(tp, r);
        REQUIRE(w.size() == 1);
        CHECK_THAT(w[0], StartsWith("accepted 0.0949 is 5.1% below offered 0.1000"));
        CHECK_THAT(w[0], Contains("saturated at this rate"));
        r.accepted = 0.0951;
        CHECK(tb::TrafficWarnings::of(tp, r).empty());
        // With a short warm-up the shortfall may be the warm-up's: said so, not "saturated".
        r.accepted = 0.09;
        tp.warmup_cycles = 5;
        const auto both = tb::TrafficWarnings::of(tp, r);
        REQUIRE(both.size() == 2);
        CHECK_THAT(both[1], Contains("the short warm-up above, or saturation"));
    }
}
