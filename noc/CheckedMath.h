#pragma once
// Overflow-safe arithmetic for quantities that come from input (cycle counts, sums of latencies,
// window ends, sizes). It lives in noc/, the lowest library, so that every layer can use it.
//
// The policy (docs/CONFIG.md, "Ranges and overflow"): every input quantity has a documented range
// (hw/InputLimits.h) small enough that the sums and products the model forms from it cannot
// overflow; the loaders refuse values outside the range with the file, line and key. Where a
// value is derived from several keys (a window end, a link's NoC-cycle flight), it is computed
// with these helpers, which either return nullopt / throw, or saturate where "later than anything
// reachable" is the right meaning (an event that never comes). Never a silent wrap.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace wsc::checked {

// a + b and a * b, or nullopt when the result does not fit T.
template <typename T>
std::optional<T> add(T a, T b) {
    static_assert(std::is_integral_v<T>);
    T r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

template <typename T>
std::optional<T> mul(T a, T b) {
    static_assert(std::is_integral_v<T>);
    T r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

// a + b, or max() when it does not fit: "never" stays "never" (event times, wake-ups).
template <typename T>
T addSat(T a, T b) {
    static_assert(std::is_unsigned_v<T>);
    T r;
    return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<T>::max() : r;
}

template <typename T>
T mulSat(T a, T b) {
    static_assert(std::is_unsigned_v<T>);
    T r;
    return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<T>::max() : r;
}

// v as To when it fits exactly, else nullopt.
template <typename To, typename From>
std::optional<To> narrow(From v) {
    static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
    if constexpr (std::is_signed_v<From>)
        if (v < 0 && !std::is_signed_v<To>) return std::nullopt;
    const To r = static_cast<To>(v);
    if (static_cast<From>(r) != v || ((r < To{}) != (v < From{}))) return std::nullopt;
    return r;
}

// A finite, non-negative double truncated toward zero to an unsigned T, or nullopt when it is
// NaN, infinite, negative or >= 2^bits(T). Casting such a double is undefined behaviour in C++.
template <typename T>
std::optional<T> fromDouble(double v) {
    static_assert(std::is_unsigned_v<T>);
    // 2^bits as a double is exact; every double below it truncates into range.
    constexpr double kLimit =
        2.0 * static_cast<double>(T{1} << (std::numeric_limits<T>::digits - 1));
    if (!(v >= 0.0) || !(v < kLimit)) return std::nullopt;
    return static_cast<T>(v);
}

// fromDouble, saturating at max() for values >= 2^bits and +inf (NaN and negatives still fail).
template <typename T>
std::optional<T> fromDoubleSat(double v) {
    static_assert(std::is_unsigned_v<T>);
    if (std::isnan(v) || v < 0.0) return std::nullopt;
    const auto r = fromDouble<T>(v);
    return r ? *r : std::numeric_limits<T>::max();
}

// The throwing forms, for internal sums whose inputs are already range-checked: an overflow here
// means a limit in hw/InputLimits.h is too loose, so it is a logic error naming `what`.
template <typename T>
T addOrThrow(T a, T b, const char* what) {
    const auto r = add(a, b);
    if (!r) throw std::overflow_error(std::string(what) + ": integer overflow");
    return *r;
}

template <typename T>
T mulOrThrow(T a, T b, const char* what) {
    const auto r = mul(a, b);
    if (!r) throw std::overflow_error(std::string(what) + ": integer overflow");
    return *r;
}

}  // namespace wsc::checked
