// `wsc bench noc`'s report (testbench/NocBench): medians, speed-ups and the agreement check,
// from made-up runs (the runs themselves are timed by the bench, not by tests).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "testbench/NocBench.h"

using namespace wsc;
using tb::NocBench;

namespace {

NocBench::Row row(double wall, uint64_t cycles = 1000, double accepted = 0.005) {
    NocBench::Row r;
    r.ok = true;
    r.wall = wall;
    r.cycles = cycles;
    r.traversals = 2e6;
    r.accepted = accepted;
    r.rss_kb = 1024;
    return r;
}

NocBench::Case at(unsigned threads) {
    NocBench::Case c{256, 0.005, 0, 200};
    c.threads = threads;
    return c;
}

}  // namespace

TEST_CASE("bench noc reports medians, each round's speed-up and whether the runs agree",
          "[cli][bench]") {
    // Odd rounds: the median is the middle time; the fastest ratio is 10 / 5.
    std::vector<NocBench::Result> g = {{at(1), {row(12), row(10), row(20)}},
                                       {at(2), {row(6), row(5), row(8)}}};
    const std::string table = NocBench::tableRows(g);
    CHECK(table.find("| 256x256 | 0.005 | 1 | 1000 | 0.00 | 12.00 | 83 | 0.17 |") !=
          std::string::npos);
    CHECK(table.find("| 256x256 | 0.005 | 2 | 1000 | 0.00 | 6.00 | 167 | 0.33 |") !=
          std::string::npos);
    CHECK(NocBench::speedupRows(g) ==
          "| 256x256 | 0.005 | 2 | 2.00, 2.00, 2.50 | 2.00 | 2.00 | yes |\n");

    // Even rounds: the median is the mean of the middle two.
    g = {{at(1), {row(10), row(9), row(12), row(30)}}, {at(2), {row(5), row(6), row(4), row(10)}}};
    CHECK(NocBench::speedupRows(g) ==
          "| 256x256 | 0.005 | 2 | 2.00, 1.50, 3.00, 3.00 | 2.50 | 2.25 | yes |\n");

    // A run whose results differ, in either count, says NO; only that count's row.
    g = {{at(1), {row(10), row(10)}}, {at(2), {row(5), row(5, 1001)}}, {at(4), {row(4), row(4)}}};
    CHECK(NocBench::speedupRows(g) ==
          "| 256x256 | 0.005 | 2 | 2.00, 2.00 | 2.00 | 2.00 | NO |\n"
          "| 256x256 | 0.005 | 4 | 2.50, 2.50 | 2.50 | 2.50 | yes |\n");
    g[0].runs[1].accepted = 0.0051;
    CHECK(NocBench::speedupRows(g).find("| 4 | 2.50, 2.50 | 2.50 | 2.50 | NO |") !=
          std::string::npos);

    // A failed run: its count's row says so, the others are still measured.
    g = {{at(1), {row(10), row(10)}}, {at(2), {row(5), row(5)}}, {at(4), {row(4), row(4)}}};
    g[2].runs[1].ok = false;
    g[2].runs[1].error = "killed";
    CHECK(NocBench::tableRows(g).find("| 256x256 | 0.005 | 4 | error: killed |") !=
          std::string::npos);
    CHECK(NocBench::speedupRows(g) ==
          "| 256x256 | 0.005 | 2 | 2.00, 2.00 | 2.00 | 2.00 | yes |\n"
          "| 256x256 | 0.005 | 4 | not measured: a run failed | | | |\n");

    // No one-thread case: nothing to compare with. A zero time is not a division by zero.
    CHECK(NocBench::speedupRows({{at(2), {row(5)}}}).empty());
    CHECK(NocBench::speedupRows({{at(1), {row(0)}}, {at(2), {row(0)}}}) ==
          "| 256x256 | 0.005 | 2 | 1.00 | 1.00 | 1.00 | yes |\n");
}
