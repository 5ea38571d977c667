#pragma once
// Every router-to-router link's busy cycles over time, in windows: a run observer that snaps the
// links' busy counters on a grid of `width` cycles and, when it holds more than `max_windows`
// windows, merges neighbours in pairs and doubles the width (memory stays bounded whatever the
// run's length: max_windows x links counters). Windows are exact: the shell skips idle cycles, and
// a boundary passed while idle is snapped at the next step, when nothing has moved since.
// CommPhaseSplit then sums the windows by what the dies were doing (per-phase heatmaps).
#include <cstdint>
#include <vector>

#include "hw/LinkUse.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

class LinkTimeline : public RunObserver {
  public:
    struct Window {
        uint64_t begin = 0, end = 0;  // cycles [begin, end)
        std::vector<uint64_t> busy;   // per link (links() order): busy cycles in the window
    };
    explicit LinkTimeline(size_t max_windows = 2048, uint64_t width = 64);

    void attach(const noc::Network& net, core::CoreArray* cores) override;
    void beforeStep(uint64_t cycle) override;
    void finish(uint64_t last_cycle) override;

    // After finish(): the windows, in order and contiguous from cycle 0, and the links (each
    // LinkUse with utilization 0: which routers and port, kind, name).
    const std::vector<Window>& windows() const { return windows_; }
    const std::vector<hw::LinkUse>& links() const { return links_; }
    uint64_t width() const { return width_; }

  private:
    std::vector<uint64_t> busyNow() const;
    void close(uint64_t at);  // a window [last boundary, at)
    void mergePairs();

    size_t max_;
    uint64_t width_, next_ = 0, begin_ = 0;
    const noc::Network* net_ = nullptr;
    std::vector<uint32_t> ids_;
    std::vector<uint64_t> last_;
    std::vector<Window> windows_;
    std::vector<hw::LinkUse> links_;
};

}  // namespace wsc::tb
