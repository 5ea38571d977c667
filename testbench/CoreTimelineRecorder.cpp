#include "testbench/CoreTimelineRecorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

#include "testbench/CliArgs.h"

namespace wsc::tb {

namespace {
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
}

std::vector<uint32_t> CoreTimelineRecorder::parseCores(const std::string& s,
                                                       const std::string& flag, uint32_t cores) {
    // Strict (testbench/CliArgs): digits only, a-b with a <= b, every index below `cores`.
    std::vector<uint32_t> out;
    const std::string expected = fmt::format(
        "{}: expected comma-separated core indices or ranges (0-15,32) below {}, got '{}'", flag,
        cores, s);
    for (const std::string& item : CliArgs::parseStrings(s, flag)) {
        const size_t dash = item.find('-');
        uint64_t a = 0, b = 0;
        try {
            a = CliArgs::parseUInt(item.substr(0, dash), flag, 0, cores - 1);
            b = dash == std::string::npos
                    ? a
                    : CliArgs::parseUInt(item.substr(dash + 1), flag, 0, cores - 1);
        } catch (const UsageError&) {
            throw UsageError(expected);
        }
        if (b < a) throw UsageError(expected);
        for (uint64_t c = a; c <= b; ++c) out.push_back(static_cast<uint32_t>(c));
    }
    return out;
}

CoreTimelineRecorder::CoreTimelineRecorder(hw::PerfettoTrace& trace, Options opt)
    : trace_(trace), opt_(std::move(opt)), cut_(noc::kNever) {}

void CoreTimelineRecorder::attach(const noc::Network&, core::CoreArray* cores) {
    cores_ = cores;
    if (!cores_) return;
    const uint32_t n = cores_->cores();
    std::vector<uint32_t> pick = opt_.cores;
    if (pick.empty())
        for (uint32_t c = 0; c < n; ++c) pick.push_back(c);
    slot_.assign(n, kNone);
    traced_.clear();
    for (uint32_t c : pick) {
        if (c >= n)
            throw std::invalid_argument(
                fmt::format("perfetto trace: core {} is not on the chip (it has {} cores)", c, n));
        if (slot_[c] != kNone) continue;
        slot_[c] = static_cast<uint32_t>(traced_.size());
        traced_.push_back(Traced{c, {}, {}});
        cores_->setTraceSink(c, this);
    }
    k_pc_ = trace_.key("pc"), k_ops_ = trace_.key("ops"), k_bytes_ = trace_.key("bytes");
    k_macs_ = trace_.key("macs"), k_elems_ = trace_.key("elems"), k_to_ = trace_.key("to");
    k_from_ = trace_.key("from"), k_route_ = trace_.key("route");
    k_route_to_ = trace_.key("route_to");
}

// The sink stays attached after the cut: charges and operations that began before it still
// arrive later (a core is charged at its next evaluation) and are clipped, so every track ends
// exactly at the cut; what begins after it is dropped.
void CoreTimelineRecorder::afterStep(uint64_t cycle) {
    if (opt_.max_spans && records_ >= opt_.max_spans && cut_ == noc::kNever) cut_ = cycle + 1;
}

void CoreTimelineRecorder::onCharge(uint32_t core, core::CoreState state, core::StallCause cause,
                                    uint64_t begin, uint64_t end) {
    end = std::min(end, cut_);
    if (end <= begin) return;
    auto& ch = traced_[slot_[core]].charges;
    // A core is charged at each evaluation: a busy core every cycle, so runs of one state merge.
    if (!ch.empty() && ch.back().end == begin && ch.back().state == state &&
        (state != core::CoreState::Stall || ch.back().cause == cause)) {
        ch.back().end = end;
        return;
    }
    ch.push_back({begin, end, state, cause});
    ++records_;
}

void CoreTimelineRecorder::onSpan(const core::TraceSpan& s) {
    const uint64_t end = std::min(s.end, cut_);
    if (end <= s.begin) return;
    traced_[slot_[s.core]].work[static_cast<size_t>(s.unit)].push_back(
        {s.begin, end, s.bytes, s.work, s.pc, s.peer, s.route, s.peer2, s.route2, 1, s.op, s.stream,
         s.seq});
    ++records_;
}

void CoreTimelineRecorder::finish(uint64_t last) {
    if (!cores_) return;
    const uint64_t end = std::min(last + 1, cut_);
    for (Traced& t : traced_) {
        emitCore(t, end);
        cores_->setTraceSink(t.core, nullptr);
    }
    emitFlows();
}

void CoreTimelineRecorder::emitFlows() {
    // A message is (sender, receiver, stream) or (route, stream), and its number.
    using Key = std::tuple<bool, uint32_t, uint32_t, uint8_t>;
    auto sendKey = [](const Msg& m) {
        return m.route != firmware::kNoRouteId ? Key{true, m.route, 0, m.stream}
                                               : Key{false, m.core, m.peer, m.stream};
    };
    auto recvKey = [](const Msg& m) {
        return m.route != firmware::kNoRouteId ? Key{true, m.route, 0, m.stream}
                                               : Key{false, m.peer, m.core, m.stream};
    };
    std::map<Key, std::vector<const Msg*>> recvs;
    for (const Msg& r : recvs_)
        if (r.seq != core::TraceSpan::kNoSeq) recvs[recvKey(r)].push_back(&r);
    for (auto& [k, v] : recvs)
        std::sort(v.begin(), v.end(), [](const Msg* a, const Msg* b) { return a->seq < b->seq; });
    for (const Msg& s : sends_) {
        if (s.seq == core::TraceSpan::kNoSeq) continue;
        auto it = recvs.find(sendKey(s));
        if (it == recvs.end()) continue;
        const auto& v = it->second;
        // The receive spans whose messages [seq, seq + ops) overlap this send's.
        auto r = std::upper_bound(v.begin(), v.end(), s.seq,
                                  [](uint32_t seq, const Msg* m) { return seq < m->seq; });
        if (r != v.begin()) --r;
        for (; r != v.end() && (*r)->seq < s.seq + s.ops; ++r) {
            if ((*r)->seq + (*r)->ops <= s.seq) continue;
            trace_.flow("message", s.pid, s.tid, s.begin, (*r)->pid, (*r)->tid, (*r)->begin);
            ++flows_;
        }
    }
    std::vector<Msg>().swap(sends_);
    std::vector<Msg>().swap(recvs_);
}

void CoreTimelineRecorder::emitCore(Traced& t, uint64_t end) {
    const uint32_t pid = trace_.process(cores_->name(t.core), int64_t(t.core) + 1);  // after "noc"
    pid_[t.core] = pid;
    const uint32_t tid = trace_.track(pid, "state", 0);
    ++tracks_;
    for (const Charge& c : t.charges) {
        const uint64_t e = std::min(c.end, end);
        if (e <= c.begin) continue;
        std::string name = c.state == core::CoreState::Busy   ? "busy"
                           : c.state == core::CoreState::Idle ? "idle"
                                                              : "stall: ";
        if (c.state == core::CoreState::Stall) name += core::stallName(c.cause);
        trace_.span(pid, tid, name, c.begin, e);
    }
    std::vector<Charge>().swap(t.charges);
    for (size_t u = 0; u < kUnits; ++u) {
        emitUnit(t.core, pid, static_cast<core::TraceUnit>(u), t.work[u], end);
        std::vector<Work>().swap(t.work[u]);
    }
}

void CoreTimelineRecorder::emitUnit(uint32_t core, uint32_t pid, core::TraceUnit unit,
                                    std::vector<Work>& w, uint64_t end) {
    const bool msgs = unit == core::TraceUnit::Send || unit == core::TraceUnit::Recv;
    std::sort(w.begin(), w.end(), [](const Work& a, const Work& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    // One instruction re-issued back to back (a loop body) is one span.
    std::vector<Work> merged;
    for (const Work& x : w) {
        Work* l = merged.empty() ? nullptr : &merged.back();
        // Messages merge only in a row (a loop's sends to one peer are numbered in order).
        const bool inRow = !msgs || (l && l->stream == x.stream &&
                                     l->seq != core::TraceSpan::kNoSeq && x.seq == l->seq + l->ops);
        if (l && l->end == x.begin && l->op == x.op && l->pc == x.pc && l->peer == x.peer &&
            l->route == x.route && inRow) {
            l->end = x.end;
            l->bytes += x.bytes;
            l->work += x.work;
            l->ops += x.ops;
        } else {
            merged.push_back(x);
        }
    }
    // Spans on one track must nest, so overlapping operations take the first free lane.
    std::vector<uint64_t> lane_end;
    std::vector<uint32_t> lane_tid;
    const int64_t base = 1 + int64_t(unit) * 1000;
    for (const Work& x : merged) {
        const uint64_t e = std::min(x.end, end);
        if (e <= x.begin) continue;
        size_t lane = 0;
        while (lane < lane_end.size() && lane_end[lane] > x.begin) ++lane;
        if (lane == lane_end.size()) {
            std::string name = core::traceUnitName(unit);
            if (lane) name += " " + std::to_string(lane + 1);
            lane_tid.push_back(trace_.track(pid, name, base + int64_t(lane)));
            lane_end.push_back(0);
            ++tracks_;
        }
        lane_end[lane] = e;
        trace_.span(pid, lane_tid[lane], firmware::opcodeName(x.op), x.begin, e, argsOf(unit, x));
        if (msgs)
            (unit == core::TraceUnit::Send ? sends_ : recvs_)
                .push_back(
                    {core, pid, lane_tid[lane], x.peer, x.route, x.seq, x.ops, x.stream, x.begin});
    }
}

std::vector<hw::PerfettoTrace::Arg>& CoreTimelineRecorder::argsOf(core::TraceUnit unit,
                                                                  const Work& w) {
    using firmware::Opcode;
    args_.clear();
    args_.push_back({k_pc_, int64_t(w.pc)});
    if (w.ops > 1) args_.push_back({k_ops_, int64_t(w.ops)});
    if (unit == core::TraceUnit::Pe) args_.push_back({k_macs_, int64_t(w.work)});
    if (unit == core::TraceUnit::Vector) args_.push_back({k_elems_, int64_t(w.work)});
    if (w.bytes) args_.push_back({k_bytes_, int64_t(w.bytes)});
    // The peer of a receive, a get and a relay sent to us; of a send and a put we sent to.
    const bool inbound =
        unit == core::TraceUnit::Recv || w.op == Opcode::DmaGet || w.op == Opcode::Relay;
    if (w.peer != firmware::kNoCore) args_.push_back({inbound ? k_from_ : k_to_, int64_t(w.peer)});
    if (w.route != firmware::kNoRouteId) args_.push_back({k_route_, int64_t(w.route)});
    if (w.peer2 != firmware::kNoCore) args_.push_back({k_to_, int64_t(w.peer2)});
    if (w.route2 != firmware::kNoRouteId) args_.push_back({k_route_to_, int64_t(w.route2)});
    return args_;
}

}  // namespace wsc::tb
