#pragma once
// Replays a TrafficTrace on a network (docs/NOC.md, "Trace replay"): each message is sent at its
// cycle, or in the cycle after its last `after=` message was delivered if that is later, and the
// run ends when every message has arrived. Latency is counted from that send cycle to the cycle
// the message's last packet reached its destination.
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <queue>
#include <string>
#include <vector>

#include "dram/LatencyHistogram.h"
#include "noc/CycleDriver.h"
#include "noc/Network.h"
#include "noc/NetworkObserver.h"
#include "testbench/TrafficTrace.h"

namespace wsc::noc {
class NocShell;
}

namespace wsc::tb {

struct TraceResult {
    std::string file;
    uint64_t messages = 0, bytes = 0;
    uint64_t flits_injected = 0, flits_ejected = 0;
    uint64_t cycles = 0;  // last delivery + 1
    double latency_avg = 0;
    uint64_t latency_p50 = 0, latency_p99 = 0, latency_max = 0;
    uint64_t delayed_by_deps = 0;  // messages sent after their trace cycle because of after=
    double wall_seconds = 0;
};

class TracePlayer : public noc::CycleDriver, public noc::NetworkObserver {
  public:
    TracePlayer(noc::Network& net, const TrafficTrace& trace);
    void beforeStep(uint64_t cycle) override;
    void afterStep(uint64_t) override {}
    uint64_t nextWake(uint64_t cycle) const override;
    bool done(uint64_t) const override { return delivered_ == trace_.entries().size(); }
    void onMessageDelivered(const noc::Message& m, uint32_t node, uint64_t cycle) override;
    void fill(TraceResult& r) const;

    // A whole replay on a fresh network of `np` under `shell` (conservation checked); `stats`,
    // if given, gets the network's counters under "noc" and the result under "trace".
    static TraceResult replay(const noc::NocParams& np, const TrafficTrace& trace,
                              noc::NocShell& shell, nlohmann::json* stats);
    static void printReport(std::ostream& os, const noc::NocParams& np, const TraceResult& r);

  private:
    void makeReady(uint32_t i, uint64_t cycle);

    noc::Network& net_;
    const TrafficTrace& trace_;
    std::vector<uint32_t> waiting_;  // after= messages not yet delivered, per entry
    std::vector<std::vector<uint32_t>> dependents_;
    std::vector<uint64_t> sent_;                  // send cycle per entry
    using Ready = std::pair<uint64_t, uint32_t>;  // (cycle, entry)
    std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready_;
    size_t delivered_ = 0;
    uint64_t last_delivery_ = 0, delayed_ = 0;
    dram::LatencyHistogram latency_;
};

}  // namespace wsc::tb
