// The pieces of a sweep's table (testbench/sweep): the Pareto front against hand-worked sets,
// metric paths into a stats document, CSV quoting.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testbench/sweep/LocalExecutor.h"
#include "testbench/sweep/ParetoFront.h"
#include "testbench/sweep/SweepTable.h"

using namespace wsc::tb::sweep;

TEST_CASE("the Pareto front keeps exactly the points no other point dominates", "[sweep]") {
    // Minimise both: (1,5) (2,3) (4,1) trade off; (3,4) is beaten by (2,3); (4,2) by (4,1);
    // (2,3) twice: equal points are both on the front.
    const std::vector<std::pair<double, double>> p = {{3, 4}, {1, 5}, {2, 3}, {4, 1},
                                                      {4, 2}, {2, 3}, {5, 5}};
    CHECK(ParetoFront::compute(p) ==
          std::vector<bool>{false, true, true, true, false, true, false});
    // Maximise y (throughput) and minimise x (latency): the best is high and to the left.
    CHECK(ParetoFront::compute(p, false, true) ==
          std::vector<bool>{false, true, false, false, false, false, false});
    // Maximise both: (5,5) beats everything.
    CHECK(ParetoFront::compute(p, true, true) ==
          std::vector<bool>{false, false, false, false, false, false, true});
    // Same x, different y: only the better y; a single point is its own front.
    CHECK(ParetoFront::compute({{1, 2}, {1, 1}}) == std::vector<bool>{false, true});
    CHECK(ParetoFront::compute({{7, 7}}) == std::vector<bool>{true});
    CHECK(ParetoFront::compute({}).empty());
}

TEST_CASE("metrics are read from the stats by key path, with array indices", "[sweep]") {
    const nlohmann::json j = nlohmann::json::parse(R"({
      "runs": [{"phases": {"train": {"seconds": 1.25, "cycles": 2500000000}}}],
      "traffic": {"drained": true, "pattern": "uniform", "links": {"a": 1}, "none": null}})");
    std::string err;
    CHECK(SweepTable::extract(j, {"runs", "0", "phases", "train", "seconds"}, err) == "1.25");
    CHECK(SweepTable::extract(j, {"runs", "0", "phases", "train", "cycles"}, err) == "2500000000");
    CHECK(SweepTable::extract(j, {"traffic", "drained"}, err) == "true");
    CHECK(SweepTable::extract(j, {"traffic", "pattern"}, err) == "uniform");
    CHECK(err.empty());
    CHECK(SweepTable::extract(j, {"runs", "1", "phases"}, err).empty());
    CHECK(err == "no '1' in runs");
    err.clear();
    SweepTable::extract(j, {"runs", "0", "phases", "infer"}, err);
    CHECK(err == "no 'infer' in runs.0.phases");
    err.clear();
    SweepTable::extract(j, {"traffic", "links"}, err);
    CHECK(err == "traffic.links is a map or list, not a value");
    err.clear();
    SweepTable::extract(j, {"traffic", "none"}, err);
    CHECK(err == "traffic.none is null, not a value");
}

TEST_CASE("CSV fields are quoted only when they must be (RFC 4180)", "[sweep]") {
    CHECK(SweepTable::csvField("dp=4") == "dp=4");
    CHECK(SweepTable::csvField("dp=4,tatp=8") == "\"dp=4,tatp=8\"");
    CHECK(SweepTable::csvField("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(SweepTable::csvField("two\nlines") == "\"two\nlines\"");
    CHECK(LocalExecutor::duration(42.4) == "42s");
    CHECK(LocalExecutor::duration(185) == "3m05s");
    CHECK(LocalExecutor::duration(3725) == "1h02m");
}
