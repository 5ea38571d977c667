#include "testbench/CoreTimelineRecorder.h"

namespace wsc::tb {

CoreTimelineRecorder::CoreTimelineRecorder(hw::PerfettoTrace& trace) : trace_(trace) {}

void CoreTimelineRecorder::attach(const noc::Network&, const core::CoreArray* cores) {
    cores_ = cores;
    if (!cores_) return;
    pid_ = trace_.process("cores");
    const uint32_t n = cores_->cores();
    tid_.clear();
    for (uint32_t c = 0; c < n; ++c) tid_.push_back(trace_.track(pid_, cores_->name(c), c));
    last_.assign(n, core::CoreStats{});
    open_.assign(n, Open{});
    busy_name_.assign(n, "busy");
    pending_.assign(n, core::CoreStats{});
    for (uint32_t c = 0; c < n; ++c) last_[c] = cores_->core(c).stats();
}

void CoreTimelineRecorder::afterStep(uint64_t) {
    if (!cores_) return;
    for (uint32_t c = 0; c < tid_.size(); ++c) sample(c);
}

void CoreTimelineRecorder::sample(uint32_t c) {
    const core::CoreStats& now = cores_->core(c).stats();
    const core::CoreStats& was = last_[c];
    if (now.cycles() == was.cycles()) return;
    // Counters grow when an instruction issues, but the cycle it issued in is charged at the
    // core's next evaluation: what grew by the previous sample belongs to these cycles.
    const core::CoreStats d = pending_[c];
    core::CoreStats& next = pending_[c];
    next = core::CoreStats{};
    next.macs = now.macs - was.macs;
    next.vector_elems = now.vector_elems - was.vector_elems;
    next.bytes_in = now.bytes_in - was.bytes_in;
    next.bytes_out = now.bytes_out - was.bytes_out;
    next.dma_bytes = now.dma_bytes - was.dma_bytes;
    next.relays = now.relays - was.relays;
    if (now.busy > was.busy) {
        if (d.macs || d.vector_elems)
            busy_name_[c] = "compute";
        else if (d.bytes_out)
            busy_name_[c] = "send";
        else if (d.dma_bytes)
            busy_name_[c] = "dma";
        else if (d.relays)
            busy_name_[c] = "relay";
        else if (d.bytes_in)
            busy_name_[c] = "receive";
    }

    // Lay the new cycles out in order: the state that was already running continues first.
    struct Part {
        std::string name;
        uint64_t cycles;
    };
    std::vector<Part> parts;
    if (now.busy > was.busy) parts.push_back({busy_name_[c], now.busy - was.busy});
    for (size_t s = 0; s < now.stall.size(); ++s)
        if (now.stall[s] > was.stall[s])
            parts.push_back(
                {std::string("stall: ") + core::stallName(static_cast<core::StallCause>(s)),
                 now.stall[s] - was.stall[s]});
    if (now.idle > was.idle) parts.push_back({"", now.idle - was.idle});
    for (size_t i = 1; i < parts.size(); ++i)
        if (parts[i].name == open_[c].name) std::swap(parts[0], parts[i]);
    uint64_t at = was.cycles();  // charged cycles are [0, cycles()): the next one is here
    // Work is issued in busy cycles, so the counters' growth belongs to the busy part; without
    // one (a message landed while the core stalled) to the first part, the state it landed in.
    size_t owner = 0;
    for (size_t i = 0; i < parts.size(); ++i)
        if (now.busy > was.busy && parts[i].name == busy_name_[c]) owner = i;
    for (size_t i = 0; i < parts.size(); ++i) {
        extend(c, parts[i].name, at, at + parts[i].cycles, i == owner ? d : core::CoreStats{});
        at += parts[i].cycles;
    }
    last_[c] = now;
}

void CoreTimelineRecorder::extend(uint32_t c, const std::string& name, uint64_t begin, uint64_t end,
                                  const core::CoreStats& d) {
    Open& o = open_[c];
    if (o.name != name || o.end != begin) {
        flush(c);
        o = Open{};
        o.name = name;
        o.begin = begin;
    }
    o.end = end;
    o.macs += d.macs;
    o.bytes_in += d.bytes_in;
    o.bytes_out += d.bytes_out;
    o.dma_bytes += d.dma_bytes;
}

void CoreTimelineRecorder::flush(uint32_t c) {
    Open& o = open_[c];
    if (o.name.empty() || o.end <= o.begin) return;  // idle is a gap, not a span
    nlohmann::json args = nlohmann::json::object();
    if (o.macs) args["macs"] = o.macs;
    if (o.bytes_in) args["bytes_in"] = o.bytes_in;
    if (o.bytes_out) args["bytes_out"] = o.bytes_out;
    if (o.dma_bytes) args["dma_bytes"] = o.dma_bytes;
    trace_.span(pid_, tid_[c], o.name, o.begin, o.end, args.empty() ? nlohmann::json() : args);
}

void CoreTimelineRecorder::finish(uint64_t) {
    if (!cores_) return;
    for (uint32_t c = 0; c < tid_.size(); ++c) {
        sample(c);
        flush(c);
        open_[c] = Open{};
    }
}

}  // namespace wsc::tb
