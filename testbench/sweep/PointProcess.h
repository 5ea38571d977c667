#pragma once
// One point run as a wsc child process: started in the spec's folder with stdout and stderr in
// the point's directory, polled without blocking (a pool polls many), killed with its process
// group on timeout or when the sweep stops, and reaped with wait4 for its peak memory. The child
// dies with the sweep (PR_SET_PDEATHSIG), so a killed sweep leaves no orphan runs behind.
#include <sys/types.h>

#include <chrono>
#include <string>

#include "testbench/sweep/PointStore.h"

namespace wsc::tb::sweep {

class PointProcess {
  public:
    PointProcess(const SweepSpec& spec, const Point& p, const PointStore& store, std::string wsc,
                 std::string executor, std::string job = "");
    // Starts the child (a point whose config does not resolve is finished at once, "invalid").
    void start();
    // True once the point has finished; its status is then written to the store.
    bool poll();
    void kill();  // the sweep stops: the child's group is killed, no status is written
    const PointStatus& status() const { return status_; }
    const Point& point() const { return point_; }

    // The last "error: " line of a stderr file (without the prefix), else its last line.
    static std::string lastError(const std::string& stderrFile);

  private:
    void finish(int waitStatus, long maxRssKb);

    const SweepSpec& spec_;
    const Point& point_;
    const PointStore& store_;
    std::string wsc_, executor_, job_;
    pid_t pid_ = -1;
    bool done_ = false, timedOut_ = false;
    std::chrono::steady_clock::time_point start_;
    PointStatus status_;
};

}  // namespace wsc::tb::sweep
