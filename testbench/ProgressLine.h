#pragma once
// The progress line on stderr for long runs: silent for the first two seconds (short runs and
// tests print nothing), then at most one update every two seconds with the simulated cycle, the
// simulation speed and what the caller adds (cores finished, flits in flight). Looks at the wall
// clock only every 1024 calls, so calling it once per simulated step costs next to nothing.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace wsc::tb {

class ProgressLine {
  public:
    using Detail = std::function<std::string(uint64_t cycle)>;
    explicit ProgressLine(Detail detail = {}, std::FILE* out = stderr,
                          std::chrono::milliseconds first = std::chrono::seconds(2),
                          std::chrono::milliseconds every = std::chrono::seconds(2));
    ~ProgressLine() { clear(); }

    void tick(uint64_t cycle) {
        if (++calls_ & 1023) return;
        update(cycle);
    }
    // Erases the line if one was printed (before the run's report goes to stdout).
    void clear();
    bool shown() const { return shown_; }
    uint32_t updates() const { return updates_; }

  private:
    void update(uint64_t cycle);

    Detail detail_;
    std::FILE* out_;
    std::chrono::steady_clock::duration first_, every_;
    std::chrono::steady_clock::time_point start_, last_;
    uint64_t calls_ = 0;
    bool shown_ = false;
    uint32_t updates_ = 0;
};

}  // namespace wsc::tb
