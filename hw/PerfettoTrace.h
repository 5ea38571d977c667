#pragma once
// A Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing): processes holding
// named tracks (threads), spans on tracks and counter tracks. Times are given in cycles and
// written in microseconds at the NoC clock, so the timeline reads in real time.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace wsc::hw {

class PerfettoTrace {
  public:
    explicit PerfettoTrace(double clock_hz);

    // A process (a group of tracks, e.g. "cores"); returns its id.
    uint32_t process(const std::string& name);
    // A track (thread) in `pid`, sorted by `order`; returns its id.
    uint32_t track(uint32_t pid, const std::string& name, int64_t order);
    // A span [begin, end) in cycles on a track.
    void span(uint32_t pid, uint32_t tid, const std::string& name, uint64_t begin, uint64_t end,
              nlohmann::json args = nullptr);
    // A counter sample: from `cycle` on, counter `name` of `pid` has `value`.
    void counter(uint32_t pid, const std::string& name, uint64_t cycle, double value);
    size_t spans() const { return spans_; }
    const nlohmann::json& json() const { return doc_; }
    void writeFile(const std::string& path) const;

  private:
    double usPerCycle_;
    nlohmann::json doc_;
    uint32_t next_pid_ = 1, next_tid_ = 1;
    size_t spans_ = 0;
};

}  // namespace wsc::hw
