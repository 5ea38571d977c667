#pragma once
// Bernoulli injection of synthetic traffic with BookSim's phases: warm-up (packets not measured),
// measurement window (packets created in it are tagged), drain (injection goes on so the measured
// packets see a loaded network, until every tagged packet has arrived or the drain limit passes),
// then a final drain of everything in flight so conservation can be checked.
// Per node, injection is a Bernoulli process at rate/packet_flits packets per cycle; it is drawn
// as geometric gaps between injections, which is the same process but costs nothing for nodes
// that do not inject in a cycle.
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "dram/LatencyHistogram.h"
#include "noc/CycleCalendar.h"
#include "noc/CycleDriver.h"
#include "noc/Network.h"
#include "noc/NetworkObserver.h"
#include "noc/TrafficParams.h"
#include "testbench/TrafficPattern.h"
#include "testbench/TrafficResult.h"

namespace wsc::tb {

class TrafficGenerator : public noc::CycleDriver, public noc::NetworkObserver {
  public:
    TrafficGenerator(noc::Network& net, const noc::TrafficParams& tp,
                     const TrafficPattern& pattern);

    void beforeStep(uint64_t cycle) override;
    void afterStep(uint64_t cycle) override;
    uint64_t nextWake(uint64_t cycle) const override;
    bool done(uint64_t) const override { return done_; }
    void onPacketDelivered(const noc::PacketInfo& p, uint32_t node, uint64_t cycle) override;

    // Fills the latency/throughput part of a result (the testbench adds the rest).
    void fill(TrafficResult& r) const;
    // Busy cycles of each link during the measurement window: (link id, cycles).
    const std::vector<std::pair<uint32_t, uint64_t>>& windowLinkBusy() const {
        return window_link_busy_;
    }
    // Progress callback, called about once per second of wall time with the current cycle.
    std::function<void(uint64_t)> progress;

  private:
    void scheduleNext(uint32_t node, uint64_t after);

    noc::Network& net_;
    noc::TrafficParams tp_;
    const TrafficPattern& pattern_;
    std::mt19937_64 rng_;
    double p_packet_;            // packets per node per cycle
    double log1mp_;              // log(1 - p) for geometric gaps
    noc::CycleCalendar next_;    // taken in (cycle, node) order, the order draws are made in
    std::vector<uint32_t> due_;  // this cycle's injecting nodes
    bool injecting_ = true, done_ = false, drained_ = true;
    uint64_t window_start_, window_end_, drain_limit_;
    uint64_t unreachable_ = 0;
    uint64_t measured_created_ = 0, measured_done_ = 0, window_flits_created_ = 0;
    uint64_t ejected_at_start_ = 0, ejected_at_end_ = 0;
    uint64_t stop_cycle_ = 0, last_cycle_ = 0;
    dram::LatencyHistogram latency_, net_latency_;
    double hops_sum_ = 0;
    uint64_t hops_n_ = 0;
    std::vector<std::pair<uint32_t, uint64_t>> window_link_busy_;
};

}  // namespace wsc::tb
