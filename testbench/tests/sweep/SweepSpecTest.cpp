// Sweep specs (testbench/sweep/SweepSpecLoader) and their points (SweepPlan): expansion order,
// ranges, exclusions, and ids that name a point by what it runs.
#include <catch2/catch.hpp>
#include <set>

#include "hw/ConfigError.h"
#include "testbench/CliArgs.h"
#include "testbench/sweep/SweepPlan.h"
#include "testbench/sweep/SweepSpecLoader.h"

using namespace wsc::tb::sweep;

namespace {

const std::string kConfigs = std::string(WSC_SOURCE_DIR) + "/configs";

SweepSpec spec(const std::string& body) {
    return SweepSpecLoader::loadString("sweep:\n" + body, "spec.yaml", kConfigs);
}

// The message of the ConfigError a spec raises ("" if it loads).
std::string specError(const std::string& body) {
    try {
        spec(body);
    } catch (const wsc::hw::ConfigError& e) {
        return e.what();
    }
    return "";
}

const char* kBase = R"(  name: t
  base: mesh8x8.yaml
  command: [traffic, "{base}", --measure, 100]
  metrics: {lat: traffic.latency_avg_cycles}
)";

}  // namespace

TEST_CASE("a sweep expands its axes, first axis outermost, with ranges as exact labels",
          "[sweep]") {
    const SweepSpec s = spec(std::string(kBase) + R"(  axes:
    - {name: vcb, set: noc.router.vc_buffer, values: [2 flits, 4 flits]}
    - {option: --rate, range: {from: 0.1, to: 0.3, step: 0.1}}
    - {set: noc.link.latency, range: {from: 1, to: 4, times: 2, unit: cycles}}
)");
    REQUIRE(s.axes.size() == 3);
    CHECK(s.axes[1].name == "rate");
    CHECK(s.axes[2].name == "noc.link.latency");
    // 0.1 + 2 * 0.1 is 0.30000000000000004 in binary: the label is what a user typed.
    std::vector<std::string> rates;
    for (const auto& v : s.axes[1].values) rates.push_back(v.label);
    CHECK(rates == std::vector<std::string>{"0.1", "0.2", "0.3"});
    std::vector<std::string> lat;
    for (const auto& v : s.axes[2].values) lat.push_back(v.label);
    CHECK(lat == std::vector<std::string>{"1 cycles", "2 cycles", "4 cycles"});
    CHECK(s.axes[2].values[1].sets.at(0) ==
          std::make_pair(std::string("noc.link.latency"), std::string("2 cycles")));

    const auto pts = SweepPlan::expand(s);
    REQUIRE(pts.size() == 2 * 3 * 3);
    CHECK(pts[0].value == std::vector<size_t>{0, 0, 0});
    CHECK(pts[1].value == std::vector<size_t>{0, 0, 1});  // the last axis moves fastest
    CHECK(pts[17].value == std::vector<size_t>{1, 2, 2});
    // The command, the option axis, then the --set assignments.
    CHECK(pts[4].args == std::vector<std::string>{
                             "traffic", "mesh8x8.yaml", "--measure", "100", "--rate=0.2", "--set",
                             "noc.router.vc_buffer=2 flits", "--set", "noc.link.latency=2 cycles"});
    CHECK(SweepPlan::describe(s, pts[4]) == "vcb=2 flits rate=0.2 noc.link.latency=2 cycles");
    std::set<std::string> ids;
    for (const auto& p : pts) {
        INFO(p.error);
        CHECK(p.error.empty());
        CHECK(p.id.size() == 16);
        ids.insert(p.id);
    }
    CHECK(ids.size() == pts.size());
}

TEST_CASE("range values are passed exactly: whole numbers as integers, others to 12 digits",
          "[sweep]") {
    const SweepSpec s = spec(std::string(kBase) + R"(  axes:
    - {option: --seed, range: {from: 4294967296, to: 68719476736, times: 4}}
    - {option: --rate, range: {from: 0.1, to: 0.7, step: 0.2}}
    - {set: noc.router.vcs, range: {from: 1e3, to: 1e3, step: 1}}
)");
    std::vector<std::string> seeds, rates;
    for (const auto& v : s.axes[0].values) seeds.push_back(v.option_value);
    for (const auto& v : s.axes[1].values) rates.push_back(v.option_value);
    CHECK(seeds == std::vector<std::string>{"4294967296", "17179869184", "68719476736"});
    CHECK(rates == std::vector<std::string>{"0.1", "0.3", "0.5", "0.7"});
    REQUIRE(s.axes[2].values.size() == 1);  // from = to: one value, whatever the step
    CHECK(s.axes[2].values[0].label == "1000");
}

TEST_CASE("a point's id is what it runs: stable, and unchanged when another axis grows",
          "[sweep]") {
    const std::string axes = R"(  axes:
    - {set: noc.router.vcs, values: [2, 4]}
    - {option: --rate, values: [0.1, 0.2]}
)";
    const auto a = SweepPlan::expand(spec(std::string(kBase) + axes));
    const auto b = SweepPlan::expand(spec(std::string(kBase) + axes));
    REQUIRE(a.size() == 4);
    for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].id == b[i].id);
    // A third rate: the four points keep their ids (a re-run skips them), two are new.
    const auto c = SweepPlan::expand(spec(std::string(kBase) + R"(  axes:
    - {set: noc.router.vcs, values: [2, 4]}
    - {option: --rate, values: [0.1, 0.2, 0.3]}
)"));
    REQUIRE(c.size() == 6);
    CHECK(c[0].id == a[0].id);
    CHECK(c[1].id == a[1].id);
    CHECK(c[3].id == a[2].id);
    CHECK(c[4].id == a[3].id);
    // Axes in another order run the same commands under the same ids.
    const auto d = SweepPlan::expand(spec(std::string(kBase) + R"(  axes:
    - {option: --rate, values: [0.1, 0.2]}
    - {set: noc.router.vcs, values: [2, 4]}
)"));
    CHECK(d[1].id == a[2].id);  // rate 0.1, vcs 4
    // A fixed argument that changes makes every point new.
    std::string other = kBase;
    other.replace(other.find("100"), 3, "200");
    const auto e = SweepPlan::expand(spec(other + axes));
    for (size_t i = 0; i < a.size(); ++i) CHECK(e[i].id != a[i].id);
}

TEST_CASE("a point whose config does not resolve is planned as invalid with the config error",
          "[sweep]") {
    const auto pts = SweepPlan::expand(spec(std::string(kBase) + R"(  axes:
    - {set: noc.router.vcs, values: [0, 2]}
)"));
    REQUIRE(pts.size() == 2);
    CHECK_THAT(pts[0].error,
               Catch::Contains("--set noc.router.vcs=0") && Catch::Contains("noc.router.vcs"));
    CHECK(pts[1].error.empty());
}

TEST_CASE("exclusions drop the points that match every listed axis", "[sweep]") {
    const SweepSpec s = spec(std::string(kBase) + R"(  axes:
    - {set: noc.router.vcs, values: [1, 2, 4]}
    - {option: --rate, values: [0.1, 0.2]}
    - {option: --seed, values: [1, 2]}
  exclude:
    - {noc.router.vcs: [1, 2], rate: 0.2}
    - {seed: 2, rate: 0.1, noc.router.vcs: 4}
)");
    const auto pts = SweepPlan::expand(s);
    CHECK(pts.size() == 12 - 4 - 1);
    for (const auto& p : pts) {
        const std::string d = SweepPlan::describe(s, p);
        CHECK_FALSE((p.value[0] < 2 && p.value[1] == 1));
        CHECK(d != "noc.router.vcs=4 rate=0.1 seed=2");
    }
    for (size_t i = 0; i < pts.size(); ++i) CHECK(pts[i].index == i);
}

TEST_CASE("two values that run the same config are refused, naming both points", "[sweep]") {
    try {
        SweepPlan::expand(spec(std::string(kBase) + R"(  axes:
    - {set: noc.router.vcs, values: [2, 2], labels: [two, deux]}
)"));
        FAIL("expected a UsageError");
    } catch (const wsc::tb::UsageError& e) {
        CHECK_THAT(e.what(), Catch::Contains("points 0 (noc.router.vcs=two) and 1 "
                                             "(noc.router.vcs=deux) run the same resolved config"));
    }
}

TEST_CASE("linked keys change together: an axis of maps with labels", "[sweep]") {
    const SweepSpec s = SweepSpecLoader::loadString(R"(sweep:
  name: hbm
  base: temp_4x8_die_level.yaml
  command: [llm, train, --hw, "{base}"]
  metrics: {t: runs.0.phases.train.seconds}
  axes:
    - name: stacks
      values:
        - {hbm.stacks: 2, hbm.attach: [west, east], hbm.bandwidth: 700 GB/s, hbm.capacity: 64 GB}
        - {hbm.stacks: 3, hbm.attach: [west, east, west]}
)",
                                                    "hbm.yaml", kConfigs);
    REQUIRE(s.axes[0].values.size() == 2);
    CHECK(s.axes[0].values[0].label == "2");  // the first key's value
    const auto pts = SweepPlan::expand(s);
    CHECK(pts[0].args ==
          std::vector<std::string>{"llm", "train", "--hw", "temp_4x8_die_level.yaml", "--set",
                                   "hbm.stacks=2", "--set", "hbm.attach=[west, east]", "--set",
                                   "hbm.bandwidth=700 GB/s", "--set", "hbm.capacity=64 GB"});
    CHECK(pts[0].error.empty());
    CHECK(pts[1].error.empty());
    CHECK(pts[0].id != pts[1].id);
}

TEST_CASE("bad specs name the file, line and key", "[sweep]") {
    const std::string axis = "  axes: [{option: --rate, values: [0.1]}]\n";
    const std::string head = "  name: t\n  command: [traffic, x.yaml]\n";
    const std::string metrics = "  metrics: {lat: traffic.latency_avg_cycles}\n";
    struct Case {
        std::string body, key, says;
    };
    const std::vector<Case> cases = {
        {head + axis + metrics + "  typo: 1\n", "sweep.typo", "unknown key"},
        {"  name: t\n  command: [traffic, --stats, s.json]\n" + axis + metrics, "sweep.command[1]",
         "other than --stats"},
        {head + "  axes: []\n" + metrics, "sweep.axes", "non-empty list"},
        {head + "  axes: [{set: noc.router.vcs, values: [2]}]\n" + metrics, "sweep.axes[0]",
         "'base' config"},
        {head + "  axes: [{option: --rate, range: {from: 0.1, to: 0.2, step: 0}}]\n" + metrics,
         "sweep.axes[0].range.step", "> 0"},
        {head + "  axes: [{option: --rate, range: {from: 0.2, to: 0.1, step: 0.1}}]\n" + metrics,
         "sweep.axes[0].range.to", ">= from"},
        {head + "  axes: [{option: --rate, range: {from: 0, to: 1, step: 1e-9}}]\n" + metrics,
         "sweep.axes[0].range.step", "at most 10000 values"},
        {head + "  axes: [{option: --rate, values: [0.1, 0.1]}]\n" + metrics,
         "sweep.axes[0].values", "'0.1' is listed twice"},
        {head + "  axes: [{option: rate, values: [0.1]}]\n" + metrics, "sweep.axes[0].option",
         "long option"},
        {head + axis + "  exclude: [{rat: 0.1}]\n" + metrics, "sweep.exclude[0].rat",
         "axis name (rate)"},
        {head + axis + "  exclude: [{rate: 0.3}]\n" + metrics, "sweep.exclude[0].rate",
         "a value of axis 'rate' ('0.1')"},
        {head + axis + "  metrics: {rate: a.b}\n", "sweep.metrics.rate", "not an axis"},
        {head + axis + "  metrics: {x: a..b}\n", "sweep.metrics.x", "keys joined by '.'"},
        {head + axis + metrics + "  plots: [{file: p.png, x: rate, y: lat}]\n",
         "sweep.plots[0].file", ".svg"},
        {head + axis + metrics + "  plots: [{file: p.svg, x: rate, y: rate}]\n", "sweep.plots[0].y",
         "metric name"},
        {head + axis + metrics + "  pareto: {file: p.svg, x: lat, y: lat}\n", "sweep.pareto.y",
         "other than x"},
        {head + axis + metrics + "  slurm: {time: 1 h}\n", "sweep.slurm.time", "without spaces"},
        {"  name: t\n  base: nowhere.yaml\n  command: [traffic, \"{base}\"]\n" + axis + metrics,
         "sweep.base", "does not exist"},
        {"  name: t\n  base: mesh8x8.yaml\n  command: [traffic, x.yaml]\n" + axis + metrics,
         "sweep.command", "\"{base}\""},
        // Two axes that set one key or one option: the table would show a value that did not run.
        {"  name: t\n  base: mesh8x8.yaml\n  command: [traffic, \"{base}\"]\n"
         "  axes: [{name: a, values: [{noc.router.vcs: 2}]}, {set: noc.router.vcs, values: "
         "[4]}]\n" +
             metrics,
         "sweep.axes[1]", "axis 'a' sets noc.router.vcs already"},
        {head +
             "  axes: [{option: --rate, values: [0.1]}, {name: r2, option: --rate, values: "
             "[0.2]}]\n" +
             metrics,
         "sweep.axes[1]", "axis 'rate' sets --rate already"},
        {"  name: t\n  command: [traffic, x.yaml, --rate, 0.1]\n" + axis + metrics, "sweep.axes[0]",
         "the command has --rate"},
        {"  name: t\n  base: mesh8x8.yaml\n  command: [traffic, \"{base}\"]\n"
         "  axes: [{name: a, values: [{noc.router.vcs: 2, noc.router.vcs: 4}]}]\n" +
             metrics,
         "sweep.axes[0].values[0].noc.router.vcs", "listed twice in one value"},
        {head + axis + metrics +
             "  plots: [{file: p.svg, x: rate, y: lat}, {file: p.svg, x: rate, y: lat}]\n",
         "sweep.plots[1].file", "'p.svg' is taken"},
    };
    for (const auto& c : cases) {
        INFO(c.body);
        const std::string e = specError(c.body);
        CHECK_THAT(e, Catch::StartsWith("spec.yaml:"));
        CHECK_THAT(e, Catch::Contains("key '" + c.key + "'"));
        CHECK_THAT(e, Catch::Contains(c.says));
    }
}
