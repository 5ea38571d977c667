// Unit parsing: every dimension, decimal vs binary multiples, scientific notation, and the
// rejections (bare numbers, unknown units, wrong dimension, negatives, garbage).
#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <string>

#include "hw/UnitError.h"
#include "hw/Units.h"

using wsc::hw::Dim;
using wsc::hw::UnitError;
using wsc::hw::Units;

namespace {

std::string unitErrorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const UnitError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("Units parse every dimension and unit into SI", "[hw][units]") {
    struct Row {
        const char* text;
        Dim dim;
        double si;
    };
    const Row rows[] = {
        {"1 ps", Dim::Time, 1e-12},
        {"2 ns", Dim::Time, 2e-9},
        {"3 us", Dim::Time, 3e-6},
        {"4 ms", Dim::Time, 4e-3},
        {"5 s", Dim::Time, 5.0},
        {"50 Hz", Dim::Frequency, 50.0},
        {"2 kHz", Dim::Frequency, 2e3},
        {"800 MHz", Dim::Frequency, 800e6},
        {"1 GHz", Dim::Frequency, 1e9},
        {"16 B", Dim::Size, 16.0},
        {"1 KB", Dim::Size, 1024.0},
        {"1 MB", Dim::Size, 1048576.0},
        {"1 GB", Dim::Size, 1073741824.0},
        {"1 TB", Dim::Size, 1099511627776.0},
        {"1 KiB", Dim::Size, 1024.0},
        {"2 MiB", Dim::Size, 2097152.0},
        {"1 GiB", Dim::Size, 1073741824.0},
        {"1 TiB", Dim::Size, 1099511627776.0},
        {"48 KB", Dim::Size, 49152.0},
        {"100 B/s", Dim::Bandwidth, 100.0},
        {"1 KB/s", Dim::Bandwidth, 1e3},
        {"1 MB/s", Dim::Bandwidth, 1e6},
        {"1 GB/s", Dim::Bandwidth, 1e9},
        {"1 TB/s", Dim::Bandwidth, 1e12},
        {"8 b/s", Dim::Bandwidth, 1.0},
        {"8 Kb/s", Dim::Bandwidth, 1e3},
        {"8 Mb/s", Dim::Bandwidth, 1e6},
        {"8 Gb/s", Dim::Bandwidth, 1e9},
        {"8 Tb/s", Dim::Bandwidth, 1e12},
        {"2 fJ/bit", Dim::EnergyPerBit, 2e-15},
        {"0.1 pJ/bit", Dim::EnergyPerBit, 1e-13},
        {"1 nJ/bit", Dim::EnergyPerBit, 1e-9},
        {"8 pJ/B", Dim::EnergyPerBit, 1e-12},
        {"8 fJ/B", Dim::EnergyPerBit, 1e-15},
        {"8 nJ/B", Dim::EnergyPerBit, 1e-9},
        {"10 um", Dim::Length, 10e-6},
        {"26 mm", Dim::Length, 26e-3},
        {"3 cm", Dim::Length, 3e-2},
        {"1 m", Dim::Length, 1.0},
        {"0.5 pJ/FLOP", Dim::EnergyPerFlop, 0.5e-12},
        {"300 fJ/FLOP", Dim::EnergyPerFlop, 300e-15},
        {"15 mW", Dim::Power, 15e-3},
        {"20 W", Dim::Power, 20.0},
        {"15 kW", Dim::Power, 15e3},
        {"7.5 GFLOPS", Dim::Throughput, 7.5e9},
        {"125 TFLOPS", Dim::Throughput, 125e12},
        {"2 PFLOPS", Dim::Throughput, 2e15},
    };
    for (const Row& r : rows) {
        INFO(r.text);
        CHECK(Units::parse(r.text, r.dim) == Approx(r.si).epsilon(1e-12));
    }
}

TEST_CASE("Units: sizes are binary, bandwidths decimal, bits per second divide by 8",
          "[hw][units]") {
    CHECK(Units::parse("1 KB", Dim::Size) == 1024.0);
    CHECK(Units::parse("1 KB/s", Dim::Bandwidth) == 1000.0);
    CHECK(Units::parse("1 KiB", Dim::Size) == Units::parse("1 KB", Dim::Size));
    CHECK(Units::parse("100 Gb/s", Dim::Bandwidth) == Approx(12.5e9));
    CHECK(Units::parse("1 pJ/B", Dim::EnergyPerBit) == Approx(0.125e-12));
}

TEST_CASE("Units accept integer, decimal and scientific numbers with or without a space",
          "[hw][units]") {
    CHECK(Units::parse("1e-12 s", Dim::Time) == Approx(1e-12));
    CHECK(Units::parse("2.5E3 Hz", Dim::Frequency) == Approx(2500.0));
    CHECK(Units::parse("1e+3MHz", Dim::Frequency) == Approx(1e9));
    CHECK(Units::parse("16B", Dim::Size) == 16.0);
    CHECK(Units::parse(".5 KB", Dim::Size) == 512.0);
    CHECK(Units::parse("3. ns", Dim::Time) == Approx(3e-9));
    CHECK(Units::parse("  4 ns  ", Dim::Time) == Approx(4e-9));
    CHECK(Units::parse("+4 ns", Dim::Time) == Approx(4e-9));
    CHECK(Units::parse("0 W", Dim::Power) == 0.0);
}

TEST_CASE("Units reject a bare number where a unit is needed", "[hw][units]") {
    const std::string msg = unitErrorOf([] { Units::parse("16", Dim::Size); });
    CHECK(msg ==
          "expected a size with a unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), got '16' "
          "(a unit is required)");
    CHECK_THROWS_AS(Units::parse("1", Dim::Frequency), UnitError);
    CHECK_THROWS_AS(Units::parse("1e-9", Dim::Time), UnitError);
}

TEST_CASE("Units reject unknown units, wrong dimensions, bits as sizes and wrong case",
          "[hw][units]") {
    CHECK(unitErrorOf([] { Units::parse("5 parsecs", Dim::Length); }) ==
          "expected a length with a unit (um, mm, cm, m), got '5 parsecs' (unknown unit "
          "'parsecs')");
    CHECK_THAT(unitErrorOf([] { Units::parse("5 ns", Dim::Size); }),
               Catch::Contains("(that is a time)"));
    CHECK_THAT(unitErrorOf([] { Units::parse("16 b", Dim::Size); }),
               Catch::Contains("bits are not a size"));
    CHECK_THAT(unitErrorOf([] { Units::parse("16 Kb", Dim::Size); }),
               Catch::Contains("bits are not a size"));
    CHECK_THAT(unitErrorOf([] { Units::parse("1 ghz", Dim::Frequency); }),
               Catch::Contains("did you mean 'GHz'"));
    CHECK_THAT(unitErrorOf([] { Units::parse("3 cycles", Dim::Time); }),
               Catch::Contains("cycles are not accepted here"));
    CHECK_THROWS_AS(Units::parse("1 GB/s", Dim::Size), UnitError);
    CHECK_THROWS_AS(Units::parse("1 KB", Dim::Bandwidth), UnitError);
    CHECK_THROWS_AS(Units::parse("1 pJ/bit", Dim::EnergyPerFlop), UnitError);
}

TEST_CASE("Units reject negative values unless allowed", "[hw][units]") {
    CHECK_THAT(unitErrorOf([] { Units::parse("-1 ns", Dim::Time); }),
               Catch::Contains("got '-1 ns' (negative values are not allowed)"));
    CHECK_THROWS_AS(Units::parse("-16 B", Dim::Size), UnitError);
    CHECK(Units::parse("-1 mm", Dim::Length, true) == Approx(-1e-3));
}

TEST_CASE("Units reject garbage", "[hw][units]") {
    for (const char* bad : {"", "   ", "abc", "GHz", "1.2.3 B", "nan B", "inf GHz", "0x10 B",
                            "1e B", "--1 B", "1,5 B", "16 B extra", "1e999 B"}) {
        INFO("'" << bad << "'");
        CHECK_THROWS_AS(Units::parse(bad, Dim::Size), UnitError);
    }
}

TEST_CASE("Units parse plain numbers and whole byte counts", "[hw][units]") {
    CHECK(Units::parseNumber("1e-12") == Approx(1e-12));
    CHECK(Units::parseNumber("0.3") == Approx(0.3));
    CHECK(Units::parseNumber("-2") == -2.0);
    CHECK_THROWS_AS(Units::parseNumber("0.3 flits"), UnitError);
    CHECK_THROWS_AS(Units::parseNumber("x"), UnitError);
    CHECK(Units::parseBytes("0.5 KB") == 512);
    CHECK(Units::parseBytes("64 KB") == 65536);
    CHECK_THAT(unitErrorOf([] { Units::parseBytes("1.5 B"); }),
               Catch::Contains("expected a whole number of bytes"));
}

TEST_CASE("Units::toCycles takes whole cycle counts or rounds times up", "[hw][units]") {
    CHECK(Units::toCycles("3 cycles", 1e9) == 3);
    CHECK(Units::toCycles("1 cycle", 1e9) == 1);
    CHECK(Units::toCycles("0 cycles", 1e9) == 0);
    CHECK(Units::toCycles("5cycles", 1e9) == 5);
    CHECK(Units::toCycles("1 ns", 1e9) == 1);
    CHECK(Units::toCycles("1.5 ns", 1e9) == 2);  // rounded up
    CHECK(Units::toCycles("0.1 ns", 1e9) == 1);  // never faster than specified
    CHECK(Units::toCycles("1001 ps", 1e9) == 2);
    CHECK(Units::toCycles("200 ns", 1e9) == 200);  // no floating-point off-by-one
    CHECK(Units::toCycles("0.3 ns", 10e9) == 3);   // 2.9999999999999996 snaps to 3
    CHECK(Units::toCycles("210 ns", 1.5e9) == 315);
    CHECK(Units::toCycles("1 us", 800e6) == 800);
    CHECK(Units::toCycles("0 ns", 1e9) == 0);
}

TEST_CASE("Units::toCycles rejects fractions, bare numbers, negatives and overflow",
          "[hw][units]") {
    CHECK_THAT(unitErrorOf([] { Units::toCycles("2.5 cycles", 1e9); }),
               Catch::Contains("cycle counts must be whole numbers"));
    CHECK(unitErrorOf([] { Units::toCycles("3", 1e9); }) ==
          "expected a whole number of cycles ('3 cycles') or a time (ps, ns, us, ms, s), got '3' "
          "(a unit is required)");
    CHECK_THAT(unitErrorOf([] { Units::toCycles("-1 cycle", 1e9); }),
               Catch::Contains("negative values are not allowed"));
    CHECK_THAT(unitErrorOf([] { Units::toCycles("5 s", 1e9); }),
               Catch::Contains("too many cycles"));
    CHECK(Units::toCycles64("5 s", 1e9) == 5000000000ULL);
    CHECK(Units::toCycles("4294967295 cycles", 1e9) == std::numeric_limits<uint32_t>::max());
    CHECK_THROWS_AS(Units::toCycles("4294967296 cycles", 1e9), UnitError);
    CHECK_THROWS_AS(Units::toCycles("3 GHz", 1e9), UnitError);
    CHECK_THROWS_AS(Units::toCycles("1 ns", 0.0), UnitError);
}

TEST_CASE("Units::parseFlitsOrBytes counts flits and checks whole flits", "[hw][units]") {
    CHECK(Units::parseFlitsOrBytes("8 flits", 16) == 8);
    CHECK(Units::parseFlitsOrBytes("1 flit", 16) == 1);
    CHECK(Units::parseFlitsOrBytes("128 B", 16) == 8);
    CHECK(Units::parseFlitsOrBytes("1 KB", 16) == 64);
    CHECK(Units::parseFlitsOrBytes("16 B", 16) == 1);
    CHECK(unitErrorOf([] { Units::parseFlitsOrBytes("8 B", 16); }) ==
          "expected at least one 16 B flit, got '8 B' (smaller than a flit)");
    CHECK_THAT(unitErrorOf([] { Units::parseFlitsOrBytes("0 flits", 16); }),
               Catch::Contains("smaller than a flit"));
    CHECK_THAT(unitErrorOf([] { Units::parseFlitsOrBytes("24 B", 16); }),
               Catch::Contains("a whole multiple of the 16 B flit"));
    CHECK_THAT(unitErrorOf([] { Units::parseFlitsOrBytes("1.5 flits", 16); }),
               Catch::Contains("a whole number of flits"));
    CHECK_THAT(unitErrorOf([] { Units::parseFlitsOrBytes("8", 16); }),
               Catch::Contains("a unit is required"));
    CHECK_THAT(unitErrorOf([] { Units::parseFlitsOrBytes("8 b", 16); }),
               Catch::Contains("bits are not a size"));
}
