#pragma once
// A Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing): processes holding
// named tracks (threads), "X" spans on tracks, counter tracks and flow arrows (a message from
// its send to its receive). Times are given in cycles. Unit::Ns writes them in microseconds at
// the NoC clock (exact decimals of whole picoseconds), so the timeline reads in real time;
// Unit::Cycles writes the cycle number itself where the format expects microseconds, so the
// viewer's "us" reads as cycles (the file says so in otherData.time_unit). Events are kept
// as compact records (names and arg keys interned, args integers) and streamed out by write():
// a million spans take tens of MB here, where a JSON document would take a GB.
#include <fmt/format.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

namespace wsc::hw {

class PerfettoTrace {
  public:
    struct Arg {
        uint32_t key;  // from key()
        int64_t value;
    };

    enum class Unit { Ns, Cycles };
    explicit PerfettoTrace(double clock_hz);
    void setUnit(Unit u) { unit_ = u; }
    Unit unit() const { return unit_; }
    // "cycles" or "ns" (--perfetto-unit); throws std::invalid_argument otherwise.
    static Unit parseUnit(const std::string& s);

    // A process (a group of tracks, e.g. one core), listed by `order`; returns its id.
    uint32_t process(const std::string& name, int64_t order = 0);
    // A track (thread) in `pid`, sorted by `order`; returns its id.
    uint32_t track(uint32_t pid, const std::string& name, int64_t order);
    // The id of an argument name, for Arg.
    uint32_t key(const std::string& name) { return intern(name); }
    // A span [begin, end) in cycles on a track, with integer arguments.
    void span(uint32_t pid, uint32_t tid, const std::string& name, uint64_t begin, uint64_t end,
              const std::vector<Arg>& args = {});
    // A counter sample: from `cycle` on, counter `name` of `pid` has `value`.
    void counter(uint32_t pid, const std::string& name, uint64_t cycle, double value);
    // A flow arrow from the span enclosing `from_cycle` on track (from_pid, from_tid) to the span
    // enclosing `to_cycle` on (to_pid, to_tid) (flow events "s" and "f" with "bp":"e").
    void flow(const std::string& name, uint32_t from_pid, uint32_t from_tid, uint64_t from_cycle,
              uint32_t to_pid, uint32_t to_tid, uint64_t to_cycle);
    size_t flows() const { return flows_.size(); }
    size_t spans() const { return spans_.size(); }
    size_t counters() const { return counters_.size(); }
    size_t tracks() const { return tracks_; }
    void write(std::ostream& os) const;
    void writeFile(const std::string& path) const;

  private:
    enum class MetaKind : uint8_t { ProcessName, ProcessSort, ThreadName, ThreadSort };
    struct Meta {
        MetaKind kind;
        uint32_t pid, tid;
        int64_t value;  // a name id or a sort index
    };
    struct Span {
        uint32_t pid, tid, name, args_at;
        uint64_t begin, end;
        uint8_t nargs;
    };
    struct Counter {
        uint32_t pid, name;
        uint64_t cycle;
        double value;
    };
    struct Flow {
        uint32_t name, from_pid, from_tid, to_pid, to_tid;
        uint64_t from, to;
    };
    uint32_t intern(const std::string& s);
    // A time as the file writes it: microseconds at the clock, or the cycle itself.
    void appendTime(fmt::memory_buffer& b, uint64_t cycle) const;
    void appendDuration(fmt::memory_buffer& b, uint64_t begin, uint64_t end) const;
    uint64_t ps(uint64_t cycle) const;  // the cycle's start in whole picoseconds

    double psPerCycle_;
    std::vector<std::string> strings_;
    std::unordered_map<std::string, uint32_t> ids_;
    std::vector<Meta> meta_;
    std::vector<Span> spans_;
    std::vector<Arg> args_;
    std::vector<Counter> counters_;
    std::vector<Flow> flows_;
    Unit unit_ = Unit::Ns;
    uint32_t next_pid_ = 1, next_tid_ = 1;
    size_t tracks_ = 0;
};

}  // namespace wsc::hw
