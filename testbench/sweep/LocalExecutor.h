#pragma once
// Runs a sweep's points on this machine: a pool of `jobs` wsc processes, one line per finished
// point with the progress and an ETA. SIGINT or SIGTERM stops the sweep: running points are
// killed and left without a status, so a re-run runs them (and only them) again.
#include <ostream>
#include <string>
#include <vector>

#include "testbench/sweep/PointStore.h"

namespace wsc::tb::sweep {

struct RunSummary {
    size_t ran = 0, ok = 0, failed = 0;
    bool interrupted = false;
};

class LocalExecutor {
  public:
    static RunSummary run(const SweepSpec& spec, const std::vector<const Point*>& todo,
                          const PointStore& store, const std::string& wsc, unsigned jobs,
                          std::ostream& log);
    // "1h02m", "3m05s", "42s": for ETAs.
    static std::string duration(double seconds);
};

}  // namespace wsc::tb::sweep
