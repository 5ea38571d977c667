// testbench/CliArgs: the strict flag values every subcommand uses (issue 13). Each refusal names
// the flag and what was expected.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "testbench/CliArgs.h"

using wsc::tb::CliArgs;
using wsc::tb::UsageError;

namespace {
std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("cli integers are decimal digits in range, nothing else", "[cli]") {
    CHECK(CliArgs::parseUInt("0", "--n", 0, 10) == 0);
    CHECK(CliArgs::parseUInt("10", "--n", 0, 10) == 10);
    CHECK(CliArgs::parseUInt("18446744073709551615", "--n", 0, UINT64_MAX) == UINT64_MAX);
    for (const char* bad : {"-1", "+1", " 1", "1 ", "4x", "0x10", "1e3", "1.0", "", "-0"})
        CHECK_THAT(errorOf([&] { CliArgs::parseUInt(bad, "--n", 0, 10); }),
                   Catch::StartsWith("--n: expected an integer in [0, 10] (decimal digits only)"));
    CHECK(errorOf([] { CliArgs::parseUInt("11", "--n", 0, 10); }) ==
          "--n: expected an integer in [0, 10] (decimal digits only), got 11");
    CHECK(errorOf([] { CliArgs::parseUInt("18446744073709551616", "--n", 0, UINT64_MAX); }) ==
          "--n: expected an integer >= 0 (decimal digits only), got '18446744073709551616' (too "
          "large)");
    // 2^32 + 1 must not come out as 1 in a 32-bit flag.
    CHECK_THROWS_AS(CliArgs::parseUInt("4294967297", "--p", 1, 4), UsageError);
}

TEST_CASE("cli numbers are finite decimals in range", "[cli]") {
    CHECK(CliArgs::parseDouble("0.3", "--rate", 0, 1, true) == Approx(0.3));
    CHECK(CliArgs::parseDouble("1e-3", "--rate", 0, 1, true) == Approx(1e-3));
    CHECK(CliArgs::parseDouble("1", "--rate", 0, 1, true) == 1.0);
    for (const char* bad :
         {"nan", "NaN", "inf", "-inf", "infinity", "0x1p-3", " 0.1", "0.1x", "", "1e999", "."})
        CHECK_THAT(errorOf([&] { CliArgs::parseDouble(bad, "--rate", 0, 1, true); }),
                   Catch::StartsWith("--rate: expected a number in (0, 1]"));
    CHECK(errorOf([] { CliArgs::parseDouble("0", "--rate", 0, 1, true); }) ==
          "--rate: expected a number in (0, 1], got 0");
    CHECK(CliArgs::parseDouble("0", "--f", 0, 1, false) == 0.0);
    CHECK(errorOf([] { CliArgs::parseDouble("-0.5", "--f", 0, 1); }) ==
          "--f: expected a number in [0, 1], got -0.5");
}

TEST_CASE("cli lists refuse empty elements and bad items", "[cli]") {
    CHECK(CliArgs::parseUIntList("1,2,4", "--p", 1, 4) == std::vector<uint64_t>{1, 2, 4});
    CHECK(CliArgs::parseUIntList("8x16", "--mesh", 1, 64, 'x') == std::vector<uint64_t>{8, 16});
    CHECK_THAT(errorOf([] { CliArgs::parseUIntList("4,", "--mesh", 1, 64); }),
               Catch::Contains("without empty elements, got '4,'"));
    CHECK_THAT(errorOf([] { CliArgs::parseUIntList(",4", "--mesh", 1, 64); }),
               Catch::Contains("without empty elements"));
    CHECK_THAT(errorOf([] { CliArgs::parseUIntList("4x", "--mesh", 1, 64, 'x'); }),
               Catch::Contains("without empty elements, got '4x'"));
    CHECK_THAT(errorOf([] { CliArgs::parseUIntList("", "--mesh", 1, 64); }),
               Catch::Contains("empty"));
    CHECK(CliArgs::parseDoubleList("0,0.5,1", "--fault-rates", 0, 1) ==
          std::vector<double>{0, 0.5, 1});
    CHECK_THAT(errorOf([] { CliArgs::parseDoubleList("0.1,nan", "--rates", 0, 1, true); }),
               Catch::StartsWith("--rates: expected a number in (0, 1], got 'nan'"));
}

TEST_CASE("cli options parse strictly while the command line is read", "[cli]") {
    CLI::App app;
    uint32_t n = 7;
    double r = 0.5;
    CliArgs::addUInt(&app, "--n", n, 1, 100, "n");
    CliArgs::addDouble(&app, "--r", r, 0, 1, "r", true);
    app.parse(std::vector<std::string>{"0.25", "--r", "42", "--n"});  // reversed argv
    CHECK(n == 42);
    CHECK(r == 0.25);
    CHECK(app.count("--n") == 1);
    CLI::App bad;
    uint64_t w = 0;
    CliArgs::addUInt(&bad, "--warmup", w, 0, 1000, "w");
    try {
        bad.parse(std::vector<std::string>{"-1", "--warmup"});
        FAIL("expected a validation error");
    } catch (const CLI::ValidationError& e) {
        CHECK_THAT(std::string(e.what()), Catch::Contains("--warmup: expected an integer"));
    }
}

TEST_CASE("cli outputs are checked before the run", "[cli]") {
    const std::string in = "cliargs_test_input.yaml";
    std::ofstream(in) << "noc: {}\n";
    // The input itself, by its name or through another spelling of the same path.
    CHECK_THAT(errorOf([&] { CliArgs::checkOutput(in, "--stats", {in}); }),
               Catch::Contains("is an input of this run"));
    CHECK_THAT(errorOf([&] { CliArgs::checkOutput("./" + in, "--stats", {in}); }),
               Catch::Contains("is an input of this run"));
    CHECK_THAT(errorOf([] { CliArgs::checkOutput(".", "--stats", {}); }),
               Catch::Contains("is a directory"));
    CHECK_THAT(errorOf([] { CliArgs::checkOutput("/proc/x.json", "--stats", {}); }),
               Catch::StartsWith("--stats: cannot write '/proc/x.json'"));
    CHECK_THAT(errorOf([] { CliArgs::checkOutput("no_such_dir/x.json", "--stats", {}); }),
               Catch::StartsWith("--stats: cannot write 'no_such_dir/x.json'"));
    // A writable new file passes and is not left behind; an existing one is not truncated.
    std::remove("cliargs_test_out.json");
    CliArgs::checkOutput("cliargs_test_out.json", "--stats", {in});
    CHECK_FALSE(std::ifstream("cliargs_test_out.json").good());
    CliArgs::checkOutput(in, "--stats", {});
    std::string line;
    std::getline(std::ifstream(in) >> std::ws, line);
    CHECK(line == "noc: {}");
    std::remove(in.c_str());
}

TEST_CASE("cli flags a mode does not use are refused", "[cli]") {
    CLI::App app;
    std::string vcd, trace;
    app.add_option("--vcd", vcd);
    app.add_option("--trace", trace);
    app.parse(std::vector<std::string>{"0", "--trace"});
    CliArgs::rejectUnused(&app, {"--vcd"}, "a gemm scenario");
    CHECK(errorOf([&] {
              CliArgs::rejectUnused(&app, {"--vcd", "--trace"}, "a run without --vcd");
          }) == "--trace is not used by a run without --vcd");
}
