#pragma once
// Parsing of quantities with units ("16 B", "1 GHz", "0.1 pJ/bit") into SI doubles.
//
// Every quantity in a config file carries its unit, so a number can never be silently read in the
// wrong scale; a bare number where a unit is needed is an error, and so is an unknown unit, a unit
// of another dimension, or a negative value (unless the caller allows it).
//
// Syntax: <number> [whitespace] <unit>. The number is an integer, a decimal or scientific
// ("1e-12", "2.5E3"), with an optional sign. Units are case-sensitive ("Mb" is not "MB").
//
// Multiples (SI result in brackets):
//   Time          ps ns us ms s                      [seconds]
//   Frequency     Hz kHz MHz GHz                     [Hz]
//   Size          B KB MB GB TB  = BINARY  1024^n    [bytes]   (memory sizes are binary)
//                 KiB MiB GiB TiB (same as KB..TB)
//                 bits (b, Kb, Mb, ...) are not sizes and are rejected
//   Bandwidth     B/s KB/s MB/s GB/s TB/s = DECIMAL 1000^n  [bytes/s]  (link rates are decimal)
//                 b/s Kb/s Mb/s Gb/s Tb/s = decimal bits/s, divided by 8
//   EnergyPerBit  fJ/bit pJ/bit nJ/bit; fJ/B pJ/B nJ/B (per byte, divided by 8)   [J/bit]
//   Length        um mm cm m                         [metres]
//   EnergyPerFlop fJ/FLOP pJ/FLOP                    [J/FLOP]
//   Power         mW W kW                            [watts]
//   Throughput    GFLOPS TFLOPS PFLOPS = decimal     [FLOP/s]
#include <cstdint>
#include <string>
#include <string_view>

namespace wsc::hw {

enum class Dim {
    Time,
    Frequency,
    Size,
    Bandwidth,
    EnergyPerBit,
    Length,
    EnergyPerFlop,
    Power,
    Throughput
};

class Units {
  public:
    // A quantity of the given dimension in SI units. Throws UnitError.
    static double parse(std::string_view text, Dim dim, bool allowNegative = false);

    // A plain number without unit (e.g. a bit-error rate "1e-12" or an injection rate "0.3").
    static double parseNumber(std::string_view text);

    // A Size that must be a whole number of bytes ("16 B", "0.5 KB"; not "1.5 B").
    static uint64_t parseBytes(std::string_view text);

    // A duration given either in cycles ("3 cycles", "1 cycle": must be a whole number) or in a
    // time unit, which is converted at clock_hz and ROUNDED UP to the next whole cycle: a latency
    // can never come out shorter than specified. A product within 1e-9 (relative) of a whole
    // number counts as that number, so "200 ns" at 1 GHz is 200 cycles despite floating point.
    // Results that do not fit the return type are rejected. A bare number is rejected.
    static uint32_t toCycles(std::string_view text, double clock_hz);
    static uint64_t toCycles64(std::string_view text, double clock_hz);

    // A buffer or packet size as a flit count: "8 flits" / "1 flit", or a Size in bytes that
    // must be a whole multiple of flit_bytes. Less than one flit is an error ("smaller than a
    // flit"), as is a count that does not fit uint32_t.
    static uint32_t parseFlitsOrBytes(std::string_view text, uint32_t flit_bytes);

    // "a time", "a size", ... and the accepted units ("ps, ns, us, ms, s") for messages.
    static std::string dimName(Dim dim);
    static std::string unitList(Dim dim);
    // "a time with a unit (ps, ns, us, ms, s)"
    static std::string describe(Dim dim);
};

}  // namespace wsc::hw
