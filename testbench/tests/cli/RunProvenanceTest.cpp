// The --stats header (testbench/RunProvenance): what produced a stats file, written by every
// stats writer through writeStats.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hw/ConfigOverrides.h"
#include "testbench/BuildInfo.h"
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
