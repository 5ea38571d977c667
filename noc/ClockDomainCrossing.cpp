#include "noc/ClockDomainCrossing.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace wsc::noc {

namespace {
using u128 = unsigned __int128;

uint64_t checked(u128 v, const char* what) {
    if (v > std::numeric_limits<uint64_t>::max())
        throw std::overflow_error(fmt::format("clock domain crossing: {} overflows 64 bits", what));
    return static_cast<uint64_t>(v);
}

uint64_t ceilDiv(u128 a, u128 b, const char* what) {
    return checked((a + b - 1) / b, what);
}
}  // namespace

ClockDomainCrossing::ClockDomainCrossing(uint64_t src_hz, uint64_t dst_hz, uint32_t sync)
    : src_hz_(src_hz), dst_hz_(dst_hz), sync_(sync) {
    if (src_hz == 0 || dst_hz == 0)
        throw std::invalid_argument("clock domain crossing: clocks must be > 0 Hz");
}

uint64_t ClockDomainCrossing::visible(uint64_t c) const {
    return ceilDiv(u128(c) * dst_hz_, src_hz_, "visible()") + sync_;
}

uint64_t ClockDomainCrossing::hz(double clock_hz) {
    if (!(clock_hz > 0) || clock_hz > 1e15)
        throw std::invalid_argument(
            fmt::format("clock domain crossing: bad clock {} Hz", clock_hz));
    const double r = std::nearbyint(clock_hz);
    return r < 1 ? 1 : static_cast<uint64_t>(r);
}

uint64_t ClockDomainCrossing::gcd(uint64_t a, uint64_t b) {
    while (b) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

uint64_t ClockDomainCrossing::durationIn(uint64_t n, uint64_t src_hz, uint64_t dst_hz) {
    if (src_hz == 0 || dst_hz == 0)
        throw std::invalid_argument("clock domain crossing: clocks must be > 0 Hz");
    return ceilDiv(u128(n) * dst_hz, src_hz, "durationIn()");
}

uint64_t ClockDomainCrossing::worstRoundTrip(uint64_t home_hz, uint64_t away_hz, uint32_t away_sync,
                                             uint64_t away_cycles, uint32_t home_sync) {
    if (home_hz == 0 || away_hz == 0)
        throw std::invalid_argument("clock domain crossing: clocks must be > 0 Hz");
    const u128 k = u128(away_sync) + away_cycles + 1;
    const u128 num = k * home_hz - gcd(home_hz, away_hz);
    return ceilDiv(num, away_hz, "worstRoundTrip()") + home_sync;
}

}  // namespace wsc::noc
