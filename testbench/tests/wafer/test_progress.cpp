// The progress line: silent before its first delay, then the cycle, speed and the caller's
// detail on one carriage-returned line, erased by clear().
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "testbench/ProgressLine.h"

using namespace wsc;

namespace {
std::string contents(std::FILE* f) {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
    return s;
}
}  // namespace

TEST_CASE("the progress line stays silent before its first delay", "[wafer][progress]") {
    std::FILE* f = std::tmpfile();
    REQUIRE(f);
    {
        tb::ProgressLine line({}, f, std::chrono::hours(1));
        for (uint64_t c = 0; c < 10000; ++c) line.tick(c);
        CHECK_FALSE(line.shown());
    }
    CHECK(contents(f).empty());
    std::fclose(f);
}

TEST_CASE("the progress line reports cycle and detail, checks the clock every 1024 ticks",
          "[wafer][progress]") {
    std::FILE* f = std::tmpfile();
    REQUIRE(f);
    tb::ProgressLine line([](uint64_t c) { return "detail at " + std::to_string(c); }, f,
                          std::chrono::milliseconds(0), std::chrono::milliseconds(0));
    for (uint64_t c = 1; c < 1024; ++c) line.tick(c);
    CHECK(line.updates() == 0);
    line.tick(1024);  // the 1024th call looks at the clock
    CHECK(line.updates() == 1);
    for (uint64_t c = 1025; c <= 2048; ++c) line.tick(c);
    CHECK(line.updates() == 2);
    const std::string s = contents(f);
    CHECK(s.find("\r[wsc] cycle       1024") != std::string::npos);
    CHECK(s.find("detail at 2048") != std::string::npos);
    line.clear();
    CHECK_FALSE(line.shown());
    CHECK(contents(f).back() == '\r');  // the line is blanked and the cursor back at column 0
    std::fclose(f);
}
