#include "noc/Link.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "noc/ClockDomainCrossing.h"

namespace wsc::noc {

bool Link::Spec::ownClock() const {
    return kind == Kind::D2D && clock_hz > 0 && noc_clock_hz > 0 &&
           ClockDomainCrossing::hz(clock_hz) != ClockDomainCrossing::hz(noc_clock_hz);
}

namespace {
uint32_t fit(uint64_t v, const char* what) {
    if (v > Link::kMaxCycles)
        throw std::invalid_argument(
            fmt::format("link: {} of {} NoC cycles exceeds the engine's limit of {} (2^28) cycles",
                        what, v, Link::kMaxCycles));
    return static_cast<uint32_t>(v);
}

uint64_t serializationOf(uint32_t flit_bytes, uint32_t width_bytes) {
    if (width_bytes == 0 || flit_bytes == 0 || flit_bytes > (1u << 28))
        throw std::invalid_argument("link: flit size and width must be >= 1 byte");
    return (uint64_t{flit_bytes} + width_bytes - 1) / width_bytes;
}
}  // namespace

// Every sum below is formed in 64 bits from 32-bit fields and then fitted, so no spec can wrap.
Link::Link(const Spec& spec, uint32_t flit_bytes, uint64_t seed)
    : kind_(spec.kind),
      serialization_(fit(serializationOf(flit_bytes, spec.width_bytes), "serialization")),
      flight_(fit(oneWay(spec) + serialization_ - 1, "flight")),
      // Credits ride the same physical channel back: a D2D credit pays SerDes and FEC too.
      credit_latency_(
          fit(spec.kind == Kind::D2D ? oneWay(spec) : spec.credit_latency, "credit latency")),
      flit_bits_(flit_bytes * 8),
      // P(at least one bit of the flit flipped) = 1 - (1 - BER)^bits.
      p_flit_error_(spec.ber > 0 ? -std::expm1(flit_bits_ * std::log1p(-spec.ber)) : 0.0),
      rng_(seed * 0x9E3779B97F4A7C15ull + 0xD1B54A32D192ED03ull),
      spec_(spec) {
    // Past this the link would spend most of its time resending: the configuration is broken,
    // not the link (and a rate near 1 would retry forever).
    if (p_flit_error_ > 0.5)
        throw std::invalid_argument(fmt::format(
            "D2D link: bit-error rate {:g} corrupts {:.0f}% of {}-bit flits; link-level retry "
            "cannot make progress (keep it below 50%)",
            spec.ber, 100 * p_flit_error_, flit_bits_));
    if (spec.ownClock()) {
        // Worst case over the clock phases, in NoC cycles (see Link.h): the engine stays
        // integer-cycle and never delivers earlier than a real crossing could.
        const uint64_t fn = ClockDomainCrossing::hz(spec.noc_clock_hz);
        const uint64_t fd = ClockDomainCrossing::hz(spec.clock_hz);
        const uint64_t sd = serialization_;  // D2D cycles per flit
        const uint64_t wire = oneWayLatency();
        serialization_ = fit(ClockDomainCrossing::durationIn(sd, fd, fn), "serialization");
        flight_ =
            fit(ClockDomainCrossing::worstRoundTrip(fn, fd, spec.sync, wire + sd - 1, spec.sync),
                "flight");
        credit_latency_ =
            fit(ClockDomainCrossing::worstRoundTrip(fn, fd, spec.sync, wire, spec.sync), "credit");
    }
}

double Link::uniform() {
    // splitmix64: a per-link stream, so BER draws do not depend on the order links are visited.
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (z >> 11) * 0x1.0p-53;
}

uint64_t Link::transmit(uint64_t now) {
    uint64_t arrival = now + flight_;
    ++counter();
    // A corrupted flit fails its CRC at the receiver, which NACKs it; the sender replays it from
    // its retry buffer. Later flits may not overtake it (in-order link), so arrivals are monotone.
    while (p_flit_error_ > 0 && uniform() < p_flit_error_) {
        ++retries_;
        arrival += retryPenalty();
    }
    arrival = std::max(arrival, last_arrival_ + (last_arrival_ ? serialization_ : 0));
    last_arrival_ = arrival;
    return arrival;
}

}  // namespace wsc::noc
