#include "hw/Units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include "hw/UnitError.h"

namespace wsc::hw {

namespace {

struct UnitDef {
    std::string_view name;
    Dim dim;
    double factor;  // multiply by this to get SI
};

constexpr double kKiB = 1024.0;
constexpr double kMiB = kKiB * 1024.0;
constexpr double kGiB = kMiB * 1024.0;
constexpr double kTiB = kGiB * 1024.0;

// The one table of accepted units (a constant, not state); the order within a dimension is the
// order shown in messages.
constexpr UnitDef kUnits[] = {
    {"ps", Dim::Time, 1e-12},
    {"ns", Dim::Time, 1e-9},
    {"us", Dim::Time, 1e-6},
    {"ms", Dim::Time, 1e-3},
    {"s", Dim::Time, 1.0},
    {"Hz", Dim::Frequency, 1.0},
    {"kHz", Dim::Frequency, 1e3},
    {"MHz", Dim::Frequency, 1e6},
    {"GHz", Dim::Frequency, 1e9},
    {"B", Dim::Size, 1.0},
    {"KB", Dim::Size, kKiB},
    {"MB", Dim::Size, kMiB},
    {"GB", Dim::Size, kGiB},
    {"TB", Dim::Size, kTiB},
    {"KiB", Dim::Size, kKiB},
    {"MiB", Dim::Size, kMiB},
    {"GiB", Dim::Size, kGiB},
    {"TiB", Dim::Size, kTiB},
    {"B/s", Dim::Bandwidth, 1.0},
    {"KB/s", Dim::Bandwidth, 1e3},
    {"MB/s", Dim::Bandwidth, 1e6},
    {"GB/s", Dim::Bandwidth, 1e9},
    {"TB/s", Dim::Bandwidth, 1e12},
    {"b/s", Dim::Bandwidth, 1.0 / 8},
    {"Kb/s", Dim::Bandwidth, 1e3 / 8},
    {"Mb/s", Dim::Bandwidth, 1e6 / 8},
    {"Gb/s", Dim::Bandwidth, 1e9 / 8},
    {"Tb/s", Dim::Bandwidth, 1e12 / 8},
    {"fJ/bit", Dim::EnergyPerBit, 1e-15},
    {"pJ/bit", Dim::EnergyPerBit, 1e-12},
    {"nJ/bit", Dim::EnergyPerBit, 1e-9},
    {"fJ/B", Dim::EnergyPerBit, 1e-15 / 8},
    {"pJ/B", Dim::EnergyPerBit, 1e-12 / 8},
    {"nJ/B", Dim::EnergyPerBit, 1e-9 / 8},
    {"um", Dim::Length, 1e-6},
    {"mm", Dim::Length, 1e-3},
    {"cm", Dim::Length, 1e-2},
    {"m", Dim::Length, 1.0},
    {"fJ/FLOP", Dim::EnergyPerFlop, 1e-15},
    {"pJ/FLOP", Dim::EnergyPerFlop, 1e-12},
    {"mW", Dim::Power, 1e-3},
    {"W", Dim::Power, 1.0},
    {"kW", Dim::Power, 1e3},
    {"GFLOPS", Dim::Throughput, 1e9},
    {"TFLOPS", Dim::Throughput, 1e12},
    {"PFLOPS", Dim::Throughput, 1e15},
};

std::optional<UnitDef> findUnit(std::string_view name) {
    for (const UnitDef& u : kUnits)
        if (u.name == name) return u;
    return std::nullopt;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

struct Quantity {
    double value;
    std::string_view unit;  // empty for a bare number
};

// <sign>? (digits ('.' digits*)? | '.' digits) ([eE] <sign>? digits)? <space>* <unit>
// Written by hand rather than with strtod so that "inf", "nan", hex floats and locale-dependent
// decimal separators are never accepted.
std::optional<Quantity> split(std::string_view text) {
    const std::string_view s = trim(text);
    size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    const size_t numStart = i;
    size_t intDigits = 0, fracDigits = 0;
    while (i < s.size() && isDigit(s[i])) ++i, ++intDigits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && isDigit(s[i])) ++i, ++fracDigits;
    }
    if (intDigits + fracDigits == 0) return std::nullopt;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        if (j < s.size() && isDigit(s[j])) {
            while (j < s.size() && isDigit(s[j])) ++j;
            i = j;
        }
    }
    double value = 0.0;
    const auto [end, ec] = std::from_chars(s.data() + numStart, s.data() + i, value);
    if (ec != std::errc() || end != s.data() + i || !std::isfinite(value)) return std::nullopt;
    return Quantity{negative ? -value : value, trim(s.substr(i))};
}

std::string quoted(std::string_view text) {
    return "'" + std::string(text) + "'";
}

[[noreturn]] void fail(const std::string& expected, std::string_view text,
                       const std::string& hint = "") {
    std::string msg = "expected " + expected + ", got " + quoted(text);
    if (!hint.empty()) msg += " (" + hint + ")";
    throw UnitError(msg);
}

// Why a unit does not fit `dim`, for the message: wrong dimension, wrong case, bits, unknown.
std::string unitHint(std::string_view unit, Dim dim) {
    if (unit.empty()) return "a unit is required";
    if (const auto u = findUnit(unit)) return "that is " + Units::dimName(u->dim);
    if (unit == "cycle" || unit == "cycles") return "cycles are not accepted here";
    if (unit == "flit" || unit == "flits") return "flits are not accepted here";
    if (dim == Dim::Size && (unit == "b" || unit == "Kb" || unit == "Mb" || unit == "Gb" ||
                             unit == "Tb" || unit == "bit" || unit == "bits"))
        return "bits are not a size; use bytes (B)";
    for (const UnitDef& u : kUnits)
        if (u.dim == dim && equalsIgnoreCase(u.name, unit))
            return "units are case-sensitive: did you mean '" + std::string(u.name) + "'?";
    return "unknown unit '" + std::string(unit) + "'";
}

// Snap values within 1e-9 (relative) of a whole number to it, so that floating-point noise in
// unit conversion never turns 200 cycles into 201 (ceil) or 16 bytes into 15 (floor).
double snapToWhole(double v) {
    const double r = std::nearbyint(v);
    return std::fabs(v - r) <= 1e-9 * std::max(1.0, std::fabs(r)) ? r : v;
}

bool isWhole(double v) {
    return v == std::floor(v);
}

// 2^64 as a double: anything >= this does not fit uint64_t.
constexpr double kTwoPow64 = 18446744073709551616.0;

double cyclesOf(std::string_view text, double clock_hz, const std::string& expected) {
    if (!(clock_hz > 0.0) || !std::isfinite(clock_hz))
        throw UnitError("expected a clock > 0 Hz to convert '" + std::string(text) + "' to cycles");
    const auto q = split(text);
    if (!q) fail(expected, text);
    if (q->value < 0) fail(expected, text, "negative values are not allowed");
    if (q->unit == "cycle" || q->unit == "cycles") {
        if (!isWhole(q->value)) fail(expected, text, "cycle counts must be whole numbers");
        return q->value;
    }
    const auto u = findUnit(q->unit);
    if (!u || u->dim != Dim::Time) fail(expected, text, unitHint(q->unit, Dim::Time));
    return std::ceil(snapToWhole(q->value * u->factor * clock_hz));
}

const std::string kCyclesExpected =
    "a whole number of cycles ('3 cycles') or a time (ps, ns, us, ms, s)";

}  // namespace

std::string Units::dimName(Dim dim) {
    switch (dim) {
        case Dim::Time:
            return "a time";
        case Dim::Frequency:
            return "a frequency";
        case Dim::Size:
            return "a size";
        case Dim::Bandwidth:
            return "a bandwidth";
        case Dim::EnergyPerBit:
            return "an energy per bit";
        case Dim::Length:
            return "a length";
        case Dim::EnergyPerFlop:
            return "an energy per FLOP";
        case Dim::Power:
            return "a power";
        case Dim::Throughput:
            return "a compute throughput";
    }
    return "a quantity";
}

std::string Units::unitList(Dim dim) {
    std::string out;
    auto add = [&](const UnitDef& u) {
        if (u.dim != dim) return;
        if (!out.empty()) out += ", ";
        out += u.name;
    };
    for (const UnitDef& u : kUnits) add(u);
    return out;
}

std::string Units::describe(Dim dim) {
    return dimName(dim) + " with a unit (" + unitList(dim) + ")";
}

double Units::parse(std::string_view text, Dim dim, bool allowNegative) {
    const std::string expected = describe(dim);
    const auto q = split(text);
    if (!q) fail(expected, text);
    const auto u = findUnit(q->unit);
    if (!u || u->dim != dim) fail(expected, text, unitHint(q->unit, dim));
    if (q->value < 0 && !allowNegative) fail(expected, text, "negative values are not allowed");
    const double si = q->value * u->factor;
    if (!std::isfinite(si)) fail(expected, text, "out of range");
    return si;
}

double Units::parseNumber(std::string_view text) {
    const auto q = split(text);
    if (!q) fail("a plain number", text);
    if (!q->unit.empty()) fail("a plain number without a unit", text);
    return q->value;
}

uint64_t Units::parseBytes(std::string_view text) {
    const double bytes = snapToWhole(parse(text, Dim::Size));
    if (!isWhole(bytes)) fail("a whole number of bytes", text);
    if (bytes >= kTwoPow64) fail("a size below 2^64 bytes", text);
    return static_cast<uint64_t>(bytes);
}

uint32_t Units::toCycles(std::string_view text, double clock_hz) {
    const double cycles = cyclesOf(text, clock_hz, kCyclesExpected);
    if (cycles > std::numeric_limits<uint32_t>::max())
        fail("at most " + std::to_string(std::numeric_limits<uint32_t>::max()) + " cycles", text,
             "too many cycles");
    return static_cast<uint32_t>(cycles);
}

uint64_t Units::toCycles64(std::string_view text, double clock_hz) {
    const double cycles = cyclesOf(text, clock_hz, kCyclesExpected);
    if (cycles >= kTwoPow64) fail("fewer than 2^64 cycles", text, "too many cycles");
    return static_cast<uint64_t>(cycles);
}

uint32_t Units::parseFlitsOrBytes(std::string_view text, uint32_t flit_bytes) {
    if (flit_bytes == 0)
        throw UnitError("expected a flit size >= 1 B to convert '" + std::string(text) +
                        "' to flits");
    const std::string flit = std::to_string(flit_bytes) + " B flit";
    const std::string expected =
        "a number of flits ('8 flits') or a size in bytes that is a multiple of the " + flit;
    const auto q = split(text);
    if (!q) fail(expected, text);
    if (q->value < 0) fail(expected, text, "negative values are not allowed");
    double flits = 0.0;
    if (q->unit == "flit" || q->unit == "flits") {
        if (!isWhole(q->value)) fail("a whole number of flits", text);
        flits = q->value;
    } else {
        const auto u = findUnit(q->unit);
        if (!u || u->dim != Dim::Size) {
            std::string hint = unitHint(q->unit, Dim::Size);
            fail(expected, text, hint);
        }
        const double bytes = snapToWhole(q->value * u->factor);
        if (!isWhole(bytes)) fail("a whole number of bytes", text);
        flits = snapToWhole(bytes / flit_bytes);
        if (flits >= 1.0 && !isWhole(flits))
            fail("a whole multiple of the " + flit, text, fmt::format("that is {:g} flits", flits));
    }
    if (flits < 1.0) fail("at least one " + flit, text, "smaller than a flit");
    if (flits > std::numeric_limits<uint32_t>::max())
        fail("at most " + std::to_string(std::numeric_limits<uint32_t>::max()) + " flits", text);
    return static_cast<uint32_t>(flits);
}

}  // namespace wsc::hw
