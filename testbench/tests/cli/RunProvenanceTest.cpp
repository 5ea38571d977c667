// The --stats header (testbench/RunProvenance): what produced a stats file, written by every
// stats writer through writeStats.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hw/ConfigOverrides.h"
#include "testbench/BuildInfo.h"
#include "testbench/NaturalKeyOrder.h"
#include "testbench/RunProvenance.h"

using namespace wsc;

TEST_CASE("a stats file carries the header: version, command line, resolved configs",
          "[cli][stats]") {
    const char* argv[] = {"wsc", "traffic", "my config.yaml", "--set", "noc.router.vcs=2"};
    tb::RunProvenance p(5, const_cast<char**>(argv));
    CHECK(p.commandLine() == "wsc traffic 'my config.yaml' --set noc.router.vcs=2");
    const std::string mesh = std::string(WSC_SOURCE_DIR) + "/configs/mesh8x8.yaml";
    p.addConfigFile(mesh, hw::ConfigOverrides({"noc.router.vcs=2"}));
    p.setOverrides({"noc.router.vcs=2"});
    p.note("seed", 7);

    const std::string path = "provenance_test_stats.json";
    p.writeStats(path, {{"cycles", 42}});
    std::ifstream f(path);
    const nlohmann::json j = nlohmann::json::parse(f);
    CHECK(j["cycles"] == 42);
    const nlohmann::json& h = j["header"];
    CHECK(h["wsc_version"] == tb::BuildInfo::version());
    CHECK(h["git_describe"] == tb::BuildInfo::gitDescribe());
    CHECK(std::string(tb::BuildInfo::gitDescribe()).size() > 0);
    CHECK(h["command_line"] == p.commandLine());
    CHECK(h["seed"] == 7);
    CHECK(h["overrides"] == nlohmann::json::array({"noc.router.vcs=2"}));
    CHECK(h["wall_seconds"].get<double>() >= 0);
    const std::string start = h["start_time_utc"];
    CHECK(start.size() == 20);  // 2026-11-25T01:43:57Z
    CHECK(start.back() == 'Z');
    // The config as the run resolved it: the override is in, the rest of the file too.
    const std::string yaml = h["config_files"][mesh];
    CHECK(yaml.find("vcs: 2") != std::string::npos);
    CHECK(yaml.find("vcs: 4") == std::string::npos);
    CHECK(yaml.find("vc_buffer: 8 flits") != std::string::npos);
}

TEST_CASE("shell quoting of the recorded command line", "[cli][stats]") {
    CHECK(tb::RunProvenance::shellQuote("configs/a.yaml") == "configs/a.yaml");
    CHECK(tb::RunProvenance::shellQuote("") == "''");
    CHECK(tb::RunProvenance::shellQuote("3 cycles") == "'3 cycles'");
    CHECK(tb::RunProvenance::shellQuote("it's") == "'it'\\''s'");
}

TEST_CASE("stats keys are written in natural order, the header first", "[cli][stats]") {
    using tb::NaturalKeyOrder;
    CHECK(NaturalKeyOrder::less("ni2", "ni10"));
    CHECK_FALSE(NaturalKeyOrder::less("ni10", "ni2"));
    CHECK(NaturalKeyOrder::less("r(1,2).E", "r(1,10).E"));
    CHECK(NaturalKeyOrder::less("r(2,0)", "r(10,0)"));
    CHECK(NaturalKeyOrder::less("a", "ab"));
    CHECK(NaturalKeyOrder::less("x2", "x02"));  // same value: fewer leading zeros first
    CHECK_FALSE(NaturalKeyOrder::less("x02", "x2"));
    CHECK_FALSE(NaturalKeyOrder::less("ni3", "ni3"));
    CHECK(NaturalKeyOrder::less("L0", "L1"));
    // Written through the one stats writer: the header leads, then ni0 .. ni11 in number order at
    // every depth (arrays keep their order).
    const char* argv[] = {"wsc"};
    tb::RunProvenance p(1, const_cast<char**>(argv));
    nlohmann::json stats, nis;
    for (int i = 0; i < 12; ++i)
        nis["ni" + std::to_string(i)] = {{"b" + std::to_string(11 - i), i}};
    stats["nis"] = nis;
    stats["a_first"] = 1;
    stats["list"] = {3, 1, 2};
    const std::string path = "natural_order_stats.json";
    p.writeStats(path, stats);
    std::ifstream f(path);
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(f);
    std::vector<std::string> top, ni;
    for (const auto& [k, v] : j.items()) top.push_back(k);
    CHECK(top == std::vector<std::string>{"header", "a_first", "list", "nis"});
    for (const auto& [k, v] : j["nis"].items()) ni.push_back(k);
    REQUIRE(ni.size() == 12);
    for (int i = 0; i < 12; ++i) CHECK(ni[i] == "ni" + std::to_string(i));
    CHECK(j["list"] == nlohmann::ordered_json::array({3, 1, 2}));
}

TEST_CASE("the stats writer streams exactly the sorted document's two-space dump", "[cli][stats]") {
    using tb::NaturalKeyOrder;
    // Every kind of value and container, empty ones, nesting through arrays, keys that need
    // escaping, and the leading key at the top only.
    nlohmann::json j;
    j["r10"] = {{"b", 0.1}, {"a", -3}, {"c", nullptr}, {"d", true}};
    j["r2"] = nlohmann::json::object();
    j["list"] = nlohmann::json::array({1,
                                       "two",
                                       nlohmann::json::array(),
                                       nlohmann::json::object(),
                                       {{"z9", 1e-300}, {"z10", 18446744073709551615ull}}});
    j["empty_list"] = nlohmann::json::array();
    j["quote\"key\\\u00e9"] = "line\nbreak \u00fc";
    j["header"] = {{"x", 1}, {"header", 2}};
    j["n"] = 1.5e17;
    for (const std::string first : {"", "header", "absent"}) {
        std::ostringstream os;
        NaturalKeyOrder::write(os, j, first);
        CHECK(os.str() == NaturalKeyOrder::sorted(j, first).dump(2));
        // At the top of an array, `first` orders nothing (the objects inside keep natural order).
        const nlohmann::json list = nlohmann::json::array({j, j["header"]});
        std::ostringstream ol;
        NaturalKeyOrder::write(ol, list, first);
        CHECK(ol.str() == NaturalKeyOrder::sorted(list, first).dump(2));
    }
    for (const nlohmann::json& leaf : {nlohmann::json(3), nlohmann::json("s"),
                                       nlohmann::json::array(), nlohmann::json::object()}) {
        std::ostringstream os;
        NaturalKeyOrder::write(os, leaf);
        CHECK(os.str() == leaf.dump(2));
    }
}
