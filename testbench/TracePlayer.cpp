#include "testbench/TracePlayer.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>

#include "noc/NocShell.h"
#include "testbench/TrafficTestbench.h"

namespace wsc::tb {

TracePlayer::TracePlayer(noc::Network& net, const TrafficTrace& trace)
    : net_(net),
      trace_(trace),
      waiting_(trace.entries().size(), 0),
      dependents_(trace.entries().size()),
      sent_(trace.entries().size(), noc::kNever) {
    net_.setObserver(this);
    const auto& es = trace.entries();
    for (uint32_t i = 0; i < es.size(); ++i) {
        waiting_[i] = static_cast<uint32_t>(es[i].after.size());
        for (uint32_t d : es[i].after) dependents_[d].push_back(i);
        if (waiting_[i] == 0) ready_.push({es[i].cycle, i});
    }
}

void TracePlayer::makeReady(uint32_t i, uint64_t cycle) {
    const uint64_t at = std::max(trace_.entries()[i].cycle, cycle);
    if (at > trace_.entries()[i].cycle) ++delayed_;
    ready_.push({at, i});
}

void TracePlayer::beforeStep(uint64_t cycle) {
    while (!ready_.empty() && ready_.top().first <= cycle) {
        const uint32_t i = ready_.top().second;
        ready_.pop();
        const TrafficTrace::Entry& e = trace_.entries()[i];
        noc::Message m;
        m.id = i;
        m.src = e.src;
        m.dst = e.dst;
        m.bytes = e.bytes;
        m.tag = i;
        sent_[i] = cycle;
        net_.send(m, cycle);
    }
}

uint64_t TracePlayer::nextWake(uint64_t cycle) const {
    if (ready_.empty()) return noc::kNever;
    return std::max(ready_.top().first, cycle + 1);
}

void TracePlayer::onMessageDelivered(const noc::Message& m, uint32_t, uint64_t cycle) {
    const uint32_t i = static_cast<uint32_t>(m.tag);
    latency_.record(cycle - sent_[i]);
    ++delivered_;
    last_delivery_ = std::max(last_delivery_, cycle);
    for (uint32_t d : dependents_[i])
        if (--waiting_[d] == 0) makeReady(d, cycle + 1);
}

void TracePlayer::fill(TraceResult& r) const {
    r.messages = trace_.entries().size();
    r.bytes = trace_.totalBytes();
    r.cycles = last_delivery_ + 1;
    r.latency_avg = latency_.mean();
    r.latency_p50 = latency_.quantile(0.5);
    r.latency_p99 = latency_.quantile(0.99);
    r.latency_max = latency_.max();
    r.delayed_by_deps = delayed_;
}

TraceResult TracePlayer::replay(const noc::NocParams& np, const TrafficTrace& trace,
                                noc::NocShell& shell, nlohmann::json* stats) {
    const auto t0 = std::chrono::steady_clock::now();
    noc::Network net(np, 1);
    TracePlayer player(net, trace);
    shell.run(net, player);
    net.checkConservation();
    TraceResult r;
    player.fill(r);
    r.file = trace.file();
    r.flits_injected = net.flitsInjected();
    r.flits_ejected = net.flitsEjected();
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (stats) {
        net.dumpStats((*stats)["noc"]);
        (*stats)["trace"] = {{"file", r.file},
                             {"messages", r.messages},
                             {"bytes", r.bytes},
                             {"cycles", r.cycles},
                             {"latency_avg_cycles", r.latency_avg},
                             {"latency_p50_cycles", r.latency_p50},
                             {"latency_p99_cycles", r.latency_p99},
                             {"latency_max_cycles", r.latency_max},
                             {"delayed_by_deps", r.delayed_by_deps},
                             {"wall_seconds", r.wall_seconds}};
    }
    return r;
}

void TracePlayer::printReport(std::ostream& os, const noc::NocParams& np, const TraceResult& r) {
    fmt::print(os, "wsc trace replay: {}\n", TrafficTestbench::describe(np));
    fmt::print(os, "  trace               {}: {} messages, {} bytes\n", r.file, r.messages,
               r.bytes);
    fmt::print(os, "  cycles              {} (last delivery + 1)\n", r.cycles);
    const bool bound = dram::LatencyHistogram::isBinBound(r.latency_p99, r.latency_max);
    fmt::print(os,
               "  message latency     avg {:.2f}  p50 {}  p99 {}{}  max {} cycles (send to last "
               "packet's arrival)\n",
               r.latency_avg, r.latency_p50, bound ? "<= " : "", r.latency_p99, r.latency_max);
    fmt::print(os, "  held by after=      {} messages sent later than their trace cycle\n",
               r.delayed_by_deps);
    fmt::print(os, "  conservation        ok: {} flits injected, {} ejected\n", r.flits_injected,
               r.flits_ejected);
}

}  // namespace wsc::tb
