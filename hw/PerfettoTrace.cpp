#include "hw/PerfettoTrace.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>
#include <string_view>

namespace wsc::hw {

PerfettoTrace::PerfettoTrace(double clock_hz) : psPerCycle_(1e12 / clock_hz) {}

namespace {
// Microseconds as an exact decimal of whole picoseconds: no binary-float noise in the file, and
// a span's end (ts + dur, both from whole picoseconds) is exactly where the next one begins.
void appendUs(fmt::memory_buffer& b, uint64_t ps) {
    const uint64_t whole = ps / 1000000, frac = ps % 1000000;
    if (!frac) {
        fmt::format_to(std::back_inserter(b), "{}", whole);
        return;
    }
    char digits[8];
    std::snprintf(digits, sizeof digits, "%06llu", static_cast<unsigned long long>(frac));
    size_t n = 6;
    while (digits[n - 1] == '0') --n;
    fmt::format_to(std::back_inserter(b), "{}.{}", whole, std::string_view(digits, n));
}
}  // namespace

PerfettoTrace::Unit PerfettoTrace::parseUnit(const std::string& u) {
    if (u == "cycles") return Unit::Cycles;
    if (u == "ns") return Unit::Ns;
    throw std::invalid_argument("--perfetto-unit: expected cycles or ns, got '" + u + "'");
}

void PerfettoTrace::appendTime(fmt::memory_buffer& b, uint64_t cycle) const {
    if (unit_ == Unit::Cycles)
        fmt::format_to(std::back_inserter(b), "{}", cycle);
    else
        appendUs(b, ps(cycle));
}

void PerfettoTrace::appendDuration(fmt::memory_buffer& b, uint64_t begin, uint64_t end) const {
    if (unit_ == Unit::Cycles)
        fmt::format_to(std::back_inserter(b), "{}", end - begin);
    else
        appendUs(b, ps(end) - ps(begin));
}

void PerfettoTrace::flow(const std::string& name, uint32_t from_pid, uint32_t from_tid,
                         uint64_t from_cycle, uint32_t to_pid, uint32_t to_tid, uint64_t to_cycle) {
    flows_.push_back({intern(name), from_pid, from_tid, to_pid, to_tid, from_cycle, to_cycle});
}

uint64_t PerfettoTrace::ps(uint64_t cycle) const {
    return static_cast<uint64_t>(std::llround(double(cycle) * psPerCycle_));
}

uint32_t PerfettoTrace::intern(const std::string& s) {
    auto [it, added] = ids_.emplace(s, static_cast<uint32_t>(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
}

uint32_t PerfettoTrace::process(const std::string& name, int64_t order) {
    const uint32_t pid = next_pid_++;
    meta_.push_back({MetaKind::ProcessName, pid, 0, intern(name)});
    meta_.push_back({MetaKind::ProcessSort, pid, 0, order});
    return pid;
}

uint32_t PerfettoTrace::track(uint32_t pid, const std::string& name, int64_t order) {
    // Thread ids are unique over the whole trace so a track is found by its tid alone.
    const uint32_t tid = next_tid_++;
    meta_.push_back({MetaKind::ThreadName, pid, tid, intern(name)});
    meta_.push_back({MetaKind::ThreadSort, pid, tid, order});
    ++tracks_;
    return tid;
}

void PerfettoTrace::span(uint32_t pid, uint32_t tid, const std::string& name, uint64_t begin,
                         uint64_t end, const std::vector<Arg>& args) {
    if (args.size() > std::numeric_limits<uint8_t>::max())
        throw std::invalid_argument("PerfettoTrace: too many arguments on one span");
    spans_.push_back({pid, tid, intern(name), static_cast<uint32_t>(args_.size()), begin, end,
                      static_cast<uint8_t>(args.size())});
    args_.insert(args_.end(), args.begin(), args.end());
}

void PerfettoTrace::counter(uint32_t pid, const std::string& name, uint64_t cycle, double value) {
    counters_.push_back({pid, intern(name), cycle, value});
}

void PerfettoTrace::write(std::ostream& os) const {
    // Strings are escaped once; events are formatted into a buffer flushed every few MB.
    std::vector<std::string> q;
    q.reserve(strings_.size());
    for (const std::string& s : strings_) q.push_back(nlohmann::json(s).dump());
    fmt::memory_buffer b;
    const char* sep = "";
    auto flush = [&](bool force) {
        if (force || b.size() > (4u << 20)) {
            os.write(b.data(), static_cast<std::streamsize>(b.size()));
            b.clear();
        }
    };
    fmt::format_to(std::back_inserter(b),
                   "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"time_unit\":\"{}\"}},"
                   "\"traceEvents\":[\n",
                   unit_ == Unit::Cycles ? "cycles: the viewer's 1 us is 1 cycle"
                                         : "real time at the NoC clock");
    for (const Meta& m : meta_) {
        static const char* const names[] = {"process_name", "process_sort_index", "thread_name",
                                            "thread_sort_index"};
        const bool named = m.kind == MetaKind::ProcessName || m.kind == MetaKind::ThreadName;
        fmt::format_to(
            std::back_inserter(b),
            "{}{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{{\"{}\":{}}}}}", sep,
            names[static_cast<size_t>(m.kind)], m.pid, m.tid, named ? "name" : "sort_index",
            named ? q[static_cast<size_t>(m.value)] : std::to_string(m.value));
        sep = ",\n";
        flush(false);
    }
    for (const Span& s : spans_) {
        fmt::format_to(std::back_inserter(b),
                       "{}{{\"ph\":\"X\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":", sep, q[s.name],
                       s.pid, s.tid);
        appendTime(b, s.begin);
        fmt::format_to(std::back_inserter(b), ",\"dur\":");
        appendDuration(b, s.begin, s.end);
        if (s.nargs) {
            for (uint32_t a = 0; a < s.nargs; ++a) {
                const Arg& g = args_[s.args_at + a];
                fmt::format_to(std::back_inserter(b), "{}{}:{}", a ? "," : ",\"args\":{", q[g.key],
                               g.value);
            }
            b.push_back('}');
        }
        b.push_back('}');
        sep = ",\n";
        flush(false);
    }
    for (const Counter& c : counters_) {
        fmt::format_to(std::back_inserter(b),
                       "{}{{\"ph\":\"C\",\"name\":{},\"pid\":{},\"tid\":0,\"ts\":", sep, q[c.name],
                       c.pid);
        appendTime(b, c.cycle);
        fmt::format_to(std::back_inserter(b), ",\"args\":{{\"value\":{}}}}}", c.value);
        sep = ",\n";
        flush(false);
    }
    for (size_t i = 0; i < flows_.size(); ++i) {
        const Flow& f = flows_[i];
        fmt::format_to(std::back_inserter(b),
                       "{}{{\"ph\":\"s\",\"id\":{},\"name\":{},\"cat\":\"flow\",\"pid\":{},"
                       "\"tid\":{},\"ts\":",
                       sep, i + 1, q[f.name], f.from_pid, f.from_tid);
        appendTime(b, f.from);
        fmt::format_to(std::back_inserter(b),
                       "}},\n{{\"ph\":\"f\",\"bp\":\"e\",\"id\":{},\"name\":{},\"cat\":"
                       "\"flow\",\"pid\":{},\"tid\":{},\"ts\":",
                       i + 1, q[f.name], f.to_pid, f.to_tid);
        appendTime(b, f.to);
        b.push_back('}');
        sep = ",\n";
        flush(false);
    }
    fmt::format_to(std::back_inserter(b), "\n]}}\n");
    flush(true);
}

void PerfettoTrace::writeFile(const std::string& path) const {
    std::ofstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot write " + path);
    write(f);
    if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace wsc::hw
