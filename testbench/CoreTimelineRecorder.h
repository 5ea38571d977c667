#pragma once
// Perfetto tracks of the cores, from their exact timelines (a core::CoreTraceSink): each traced
// core is a process with a "state" track (busy / stall: <cause> / idle spans tiling the run, as
// CoreStats counts them) and one track per unit that worked (compute, vector, send, receive,
// dma, relay), each span one operation over [issue, completion) named by its opcode with its
// instruction index and bytes / MACs / elements / peer as args. Operations that overlap on one
// unit (two receives posted, DMA queue depth > 1) go to extra lanes "send 2", ...; back-to-back
// runs of the same instruction (a loop) merge into one span with "ops": count.
// Each message between two traced cores gets a flow arrow from its SEND span to its RECV span
// (joined by sender, receiver or route, stream and sequence number: core::TraceSpan); a merged
// span carries the flows of all its messages, one arrow per pair of spans.
// Size: spans are kept compactly until finish(); after `max_spans` records the trace stops at
// that cycle (truncatedAt()) and the cores are detached, so a huge run costs bounded memory and
// nothing more once the cap is hit. `cores` selects which cores are traced (empty: all).
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/CoreTraceSink.h"
#include "hw/PerfettoTrace.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

class CoreTimelineRecorder : public RunObserver, public core::CoreTraceSink {
  public:
    static constexpr uint64_t kDefaultMaxSpans = 1000000;
    struct Options {
        std::vector<uint32_t> cores;  // empty: every core
        uint64_t max_spans = kDefaultMaxSpans;
    };
    // Core indices and ranges, "0-15,32" (--perfetto-cores), each below `cores` (the chip's
    // core count when known; the default bounds the list at 2^24, more than any wafer has);
    // throws tb::UsageError naming `flag` on anything else.
    static constexpr uint32_t kMaxCores = 1u << 24;
    static std::vector<uint32_t> parseCores(const std::string& s, const std::string& flag,
                                            uint32_t cores = kMaxCores);

    CoreTimelineRecorder(hw::PerfettoTrace& trace, Options opt);
    explicit CoreTimelineRecorder(hw::PerfettoTrace& trace)
        : CoreTimelineRecorder(trace, Options{}) {}

    // RunObserver
    void attach(const noc::Network& net, core::CoreArray* cores) override;
    void afterStep(uint64_t cycle) override;
    void finish(uint64_t last_cycle) override;
    // core::CoreTraceSink
    void onSpan(const core::TraceSpan& s) override;
    void onCharge(uint32_t core, core::CoreState state, core::StallCause cause, uint64_t begin,
                  uint64_t end) override;

    uint32_t tracedCores() const { return static_cast<uint32_t>(traced_.size()); }
    uint32_t tracks() const { return tracks_; }
    uint64_t flows() const { return flows_; }
    // The cycle the trace stops at because of max_spans, or noc::kNever if it is complete.
    uint64_t truncatedAt() const { return cut_; }

    // Whether `core` is traced (its sink is this recorder), and its process id once written
    // (after finish; ~0u if not traced): other outputs add tracks to the core's process.
    bool traces(uint32_t core) const {
        return core < slot_.size() && slot_[core] != ~0u;
    }  // ~0u: kNone
    uint32_t pidOf(uint32_t core) const {
        auto it = pid_.find(core);
        return it == pid_.end() ? ~0u : it->second;
    }

  private:
    static constexpr size_t kUnits = static_cast<size_t>(core::TraceUnit::Count);
    struct Charge {
        uint64_t begin, end;
        core::CoreState state;
        core::StallCause cause;
    };
    struct Work {
        uint64_t begin, end, bytes, work;
        uint32_t pc, peer, route, peer2, route2, ops;
        firmware::Opcode op;
        uint8_t stream;
        uint32_t seq;  // first message number (ops messages in a row when merged)
    };
    // A SEND or RECV span as written, for the flow arrows.
    struct Msg {
        uint32_t core, pid, tid, peer, route, seq, ops;
        uint8_t stream;
        uint64_t begin;
    };
    void emitFlows();
    struct Traced {
        uint32_t core;
        std::vector<Charge> charges;
        std::array<std::vector<Work>, kUnits> work;
    };
    void emitCore(Traced& t, uint64_t end);
    void emitUnit(uint32_t core, uint32_t pid, core::TraceUnit unit, std::vector<Work>& w,
                  uint64_t end);
    std::vector<hw::PerfettoTrace::Arg>& argsOf(core::TraceUnit unit, const Work& w);

    hw::PerfettoTrace& trace_;
    Options opt_;
    core::CoreArray* cores_ = nullptr;
    std::vector<uint32_t> slot_;        // core -> index in traced_, or kNone
    std::map<uint32_t, uint32_t> pid_;  // core -> its process in the trace (after finish)
    std::vector<Traced> traced_;
    uint64_t records_ = 0;
    uint64_t cut_;
    uint32_t tracks_ = 0;
    uint64_t flows_ = 0;
    std::vector<Msg> sends_, recvs_;
    std::vector<hw::PerfettoTrace::Arg> args_;
    uint32_t k_pc_ = 0, k_ops_ = 0, k_bytes_ = 0, k_macs_ = 0, k_elems_ = 0, k_to_ = 0, k_from_ = 0,
             k_route_ = 0, k_route_to_ = 0;
};

}  // namespace wsc::tb
