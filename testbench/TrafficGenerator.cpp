#include "testbench/TrafficGenerator.h"

#include <fmt/format.h>

#include <cmath>

#include "noc/CheckedMath.h"
#include "testbench/ResourceEstimate.h"

namespace wsc::tb {

TrafficGenerator::TrafficGenerator(noc::Network& net, const noc::TrafficParams& tp,
                                   const TrafficPattern& pattern)
    : net_(net), tp_(tp), pattern_(pattern), rng_(tp.seed) {
    p_packet_ = std::min(1.0, tp.rate / tp.packet_flits);
    log1mp_ = p_packet_ < 1.0 ? std::log1p(-p_packet_) : 0.0;
    // Saturating: the loaders bound each phase (hw/InputLimits.h), C++ callers may not.
    window_start_ = tp.warmup_cycles;
    window_end_ = checked::addSat(tp.warmup_cycles, tp.measure_cycles);
    drain_limit_ = checked::addSat(window_end_, tp.drain_cycles);
    net_.setObserver(this);
    // Failed cores do not inject.
    if (p_packet_ > 0)
        for (uint32_t n = 0; n < net_.nodes(); ++n)
            if (net_.nodeAlive(n)) scheduleNext(n, 0);
}

void TrafficGenerator::scheduleNext(uint32_t node, uint64_t from) {
    // Geometric number of cycles until the next success of a Bernoulli(p) trial (>= 0 from
    // `from`): floor(log(U) / log(1 - p)).
    // A tiny rate (1e-300) gives gaps beyond 2^64: the node never injects again (saturated at
    // kNever rather than an undefined cast that could come out as 0).
    uint64_t gap = 0;
    if (p_packet_ < 1.0) {
        double u = ((rng_() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
        gap = checked::fromDoubleSat<uint64_t>(std::floor(std::log(u) / log1mp_))
                  .value_or(noc::kNever);
    }
    const uint64_t at = checked::addSat(from, gap);
    if (at >= noc::kNever) return;
    next_.push(at, node);
}

void TrafficGenerator::beforeStep(uint64_t c) {
    last_cycle_ = c;
    if (c == window_start_) {
        net_.markWindow();
        ejected_at_start_ = net_.flitsEjected();
    }
    if (!injecting_) return;
    next_.takeDue(c, due_);
    for (const uint32_t n : due_) {
        bool measured = c >= window_start_ && c < window_end_;
        uint32_t dst = pattern_.dest(n, rng_);
        scheduleNext(n, c + 1);
        if (!net_.reachable(n, dst)) {
            ++unreachable_;  // a failed or cut-off destination: counted, never sent
            continue;
        }
        if (tp_.max_live_packets && net_.livePackets() >= tp_.max_live_packets)
            throw ResourceError(fmt::format(
                "traffic: {} packets are queued in the network at cycle {}: the offered load ({} "
                "flits/node/cycle) is beyond what it drains, and more would pass the run's "
                "memory budget (lower the rate or the phases, or raise --max-memory)",
                net_.livePackets(), c, tp_.rate));
        net_.postPacket(n, dst, tp_.packet_flits, c, measured);
        if (measured) {
            ++measured_created_;
            window_flits_created_ += tp_.packet_flits;
        }
    }
}

void TrafficGenerator::afterStep(uint64_t c) {
    if (c + 1 == window_end_) {
        ejected_at_end_ = net_.flitsEjected();
        for (uint32_t l = 0; l < net_.links().size(); ++l)
            window_link_busy_.push_back({l, net_.link(l).busySinceMark()});
    }
    if (injecting_ && c + 1 >= window_end_) {
        if (measured_done_ == measured_created_) {
            injecting_ = false;
            stop_cycle_ = c;
        } else if (c + 1 >= drain_limit_) {  // the drain window's last cycle: `drain` cycles
            injecting_ = false;              // saturated: the tagged packets cannot all get out
            drained_ = false;
            stop_cycle_ = c;
        }
    }
    if (!injecting_ && net_.livePackets() == 0) done_ = true;
    // Beyond saturation the source queues can hold far more than can drain; give up after a
    // second drain period rather than simulate the backlog.
    if (!injecting_ && !drained_ && c >= checked::addSat(stop_cycle_, tp_.drain_cycles))
        done_ = true;
    if (progress) progress(c);
}

uint64_t TrafficGenerator::nextWake(uint64_t c) const {
    // Every cycle afterStep decides something on needs a step even when the network has nothing
    // to do then (its routers sleep while they wait for credits, so a saturated network is not
    // stepped every cycle).
    if (!injecting_) {
        if (drained_ || done_) return noc::kNever;
        return std::max(c + 1, checked::addSat(stop_cycle_, tp_.drain_cycles));
    }
    uint64_t w = next_.empty() ? noc::kNever : std::max(c + 1, next_.earliest());
    // Phase boundaries need a step even in an idle network.
    if (c < window_start_) w = std::min(w, window_start_);
    if (c + 1 < window_end_) w = std::min(w, window_end_ - 1);
    if (c + 1 < drain_limit_) w = std::min(w, drain_limit_ - 1);
    return std::max(w, c + 1);
}

void TrafficGenerator::onPacketDelivered(const noc::PacketInfo& p, uint32_t, uint64_t c) {
    if (!p.measured) return;
    ++measured_done_;
    latency_.record(c - p.created);
    net_latency_.record(c - p.injected);
    hops_sum_ += p.hops;
    ++hops_n_;
}

void TrafficGenerator::fill(TrafficResult& r) const {
    const double nodes = net_.nodes();
    r.offered = tp_.rate;
    r.offered_actual = window_flits_created_ / (nodes * tp_.measure_cycles);
    uint64_t ejected =
        (ejected_at_end_ ? ejected_at_end_ : net_.flitsEjected()) - ejected_at_start_;
    r.accepted = ejected / (nodes * tp_.measure_cycles);
    r.measured_packets = latency_.count();
    r.latency_avg = latency_.mean();
    r.latency_p50 = latency_.quantile(0.50);
    r.latency_p99 = latency_.quantile(0.99);
    r.latency_max = latency_.max();
    r.network_latency_avg = net_latency_.mean();
    r.hops_avg = hops_n_ ? hops_sum_ / hops_n_ : 0;
    r.unreachable_packets = unreachable_;
    r.drained = drained_;
    r.warmup = tp_.warmup_cycles;
    r.measure = tp_.measure_cycles;
    r.drain = stop_cycle_ >= window_end_ ? stop_cycle_ + 1 - window_end_ : 0;
    r.total_cycles = last_cycle_ + 1;
    double sum = 0, mx = 0;
    uint32_t n = 0;
    for (const auto& [l, busy] : window_link_busy_) {
        auto k = net_.link(l).kind();
        if (k != noc::Link::Kind::OnDie && k != noc::Link::Kind::D2D) continue;
        double u = double(busy) / tp_.measure_cycles;
        sum += u;
        ++n;
        if (u > mx) {
            mx = u;
            r.link_util_max_name = net_.linkName(l);
        }
    }
    r.link_util_avg = n ? sum / n : 0;
    r.link_util_max = mx;
}

}  // namespace wsc::tb
