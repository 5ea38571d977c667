#pragma once
// A unidirectional channel: carries flits forward with a fixed flight time and returns credits
// with their own latency. A flit wider than the link takes `serialization` cycles to cross, and is
// received whole before it can advance (flit-level store and forward on that hop).
// D2D links add SerDes and, when longer than the FEC threshold, FEC latency; with a bit-error
// rate they corrupt flits at random, and a corrupted flit is NACKed and resent at link level:
// nothing is lost, the retry shows as extra latency, extra link occupancy and a counted retry.
//
// A D2D link on its own clock (Spec::ownClock) stays integer NoC cycles: its flight, credit
// latency and serialization are precomputed once as the worst case over the two clocks' phases
// (noc::ClockDomainCrossing, docs/NOC.md "D2D clock"):
//   s_d    = ceil(flit / width)                     D2D cycles per flit
//   s      = ceil(s_d * f_noc / f_d2d)              NoC cycles the port is busy per flit
//   flight = worstRoundTrip(f_noc, f_d2d, sync, latency + serdes + fec + s_d - 1, sync)
//   credit = worstRoundTrip(f_noc, f_d2d, sync, latency + serdes + fec, sync)
#include <cstdint>
#include <string>

namespace wsc::noc {

// Aligned, with the fields Link::transmit touches first (src ... retries_: one cache line), so a
// send costs one line of link state plus the line of the count the owner keeps (useCounter). A
// router's sends on a link without bit errors skip the record altogether (Network::forward).
class alignas(64) Link {
  public:
    enum class Kind : uint8_t { OnDie, D2D, Injection, Ejection };

    struct Spec {
        Kind kind = Kind::OnDie;
        uint32_t latency = 1;  // wire/protocol cycles, >= 1
        uint32_t serdes = 0;   // extra cycles (D2D)
        uint32_t fec = 0;      // extra cycles when FEC is needed (D2D, long links)
        uint32_t width_bytes = 16;
        uint32_t credit_latency = 1;
        double length_mm = 0.0;
        double energy_pj_per_bit = 0.0;
        double ber = 0.0;
        // D2D only: the link's own clock (0 or equal to noc_clock_hz: the NoC clock). With its
        // own clock, latency/serdes/fec and width are in D2D cycles and the link is converted to
        // NoC cycles by clock crossings at both ends, `sync` destination cycles each.
        double clock_hz = 0.0;
        double noc_clock_hz = 0.0;
        uint32_t sync = 0;
        bool ownClock() const;
    };

    // Throws std::invalid_argument when the spec cannot make progress (a BER that corrupts most
    // flits) or a derived cycle count exceeds kMaxCycles.
    Link(const Spec& spec, uint32_t flit_bytes, uint64_t seed);
    // Not copyable: a copy would keep counting where its owner said (useCounter). Moves are
    // for building the owner's table, before useCounter.
    Link(const Link&) = delete;
    Link& operator=(const Link&) = delete;
    Link(Link&&) = default;
    Link& operator=(Link&&) = default;

    // Bound on flight, credit latency and serialization in NoC cycles: the engine adds a few of
    // them (a retry is flight + credit + flight) in 32 bits, and 2^28 leaves room for that.
    static constexpr uint32_t kMaxCycles = 1u << 28;

    // Endpoints: a router (port) or an NI. Set by the network builder.
    uint32_t src = 0, dst = 0;
    uint8_t src_port = 0, dst_port = 0;
    // Cycles the destination router holds this link's flits back (Router::deferArrivals), 0 for
    // an NI, an external router or an observed one; set by Network.
    uint8_t dst_defer = 0;

    Kind kind() const { return kind_; }
    const Spec& spec() const { return spec_; }
    uint32_t serialization() const { return serialization_; }
    // Cycles from the switch grant of a flit to its arrival in the downstream buffer.
    uint32_t flight() const { return flight_; }
    uint32_t creditLatency() const { return credit_latency_; }
    // Wire + SerDes + FEC cycles, in the link's own clock when it has one.
    uint64_t oneWayLatency() const { return oneWay(spec_); }
    // Worst-case flight of one flit including one link-level retry.
    uint64_t maxFlight() const { return flight_ + (spec_.ber > 0 ? retryPenalty() : 0); }

    // Sends one flit granted at cycle `now`; returns its arrival cycle downstream.
    uint64_t transmit(uint64_t now);
    // Without bit errors, and sent on by a port that spaces its flits by `serialization` (a
    // router's), a flit arrives `flight` after its grant and only the count changes: the
    // sender may then bypass transmit() (Network::forward from a router).
    bool plain() const { return p_flit_error_ == 0; }

    // Counters. The flit count may live where the owner says (useCounter: the sending router's
    // Router::sent_), so a router's sends touch a line of its own instead of the link's record.
    void useCounter(uint64_t* c) {
        *c = flits();
        count_ = c;
    }
    uint64_t flits() const { return count_ ? *count_ : flits_; }
    // Every send and resend occupies the link for `serialization` cycles and carries a flit.
    uint64_t busyCycles() const { return (flits() + retries_) * serialization_; }
    uint64_t retries() const { return retries_; }
    uint64_t bitsSent() const { return (flits() + retries_) * flit_bits_; }
    double energyPj() const { return bitsSent() * spec_.energy_pj_per_bit; }
    void markWindow() { window_flits_ = flits(), window_busy_ = busyCycles(); }
    uint64_t flitsSinceMark() const { return flits() - window_flits_; }
    uint64_t busySinceMark() const { return busyCycles() - window_busy_; }

  private:
    static uint64_t oneWay(const Spec& s) { return uint64_t{s.latency} + s.serdes + s.fec; }
    uint64_t retryPenalty() const { return uint64_t{credit_latency_} + flight_; }  // NACK + resend
    double uniform();
    uint64_t& counter() { return count_ ? *count_ : flits_; }

    Kind kind_;
    uint32_t serialization_;
    uint32_t flight_;
    uint32_t credit_latency_;
    uint32_t flit_bits_;
    double p_flit_error_;
    uint64_t last_arrival_ = 0;
    uint64_t* count_ = nullptr;  // the flit count, when kept outside (useCounter)
    uint64_t retries_ = 0;
    // Off the first line: the count of a link that keeps its own (an NI's injection link, one
    // write per injected flit), state only with a bit-error rate, in reports and windows.
    uint64_t flits_ = 0;
    uint64_t rng_;
    Spec spec_;
    uint64_t window_flits_ = 0, window_busy_ = 0;
};

}  // namespace wsc::noc
