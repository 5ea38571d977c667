#pragma once
// The points of a sweep: the cartesian product of its axes (first axis outermost) minus the
// exclusions, each with the wsc arguments that run it and an id that is a hash of what the run
// reads: the base config resolved with the point's --set values (hw::ResolvedConfig, so "4 TB/s"
// and a file edit that changes nothing resolve alike), the arguments, and the contents of every
// argument that names a file (a model). A re-run finds a point's results by this id, so a sweep
// resumes where it stopped and a changed axis adds only new points.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "testbench/sweep/SweepSpec.h"

namespace wsc::tb::sweep {

struct Point {
    size_t index = 0;               // position in the plan
    std::vector<size_t> value;      // per axis: the index of its value
    std::vector<std::string> args;  // wsc's arguments, without --stats; run in spec.dir
    std::string id;                 // 16 hex digits
    std::string error;              // the point's config does not resolve: the error text
};

class SweepPlan {
  public:
    explicit SweepPlan(const SweepSpec& spec) : spec_(spec) {}
    // The point of one value per axis (searches build points one at a time).
    Point make(const std::vector<size_t>& value, size_t index);
    bool excluded(const std::vector<size_t>& value) const;
    // Every point of the grid; two that resolve to the same config are refused (UsageError).
    static std::vector<Point> expand(const SweepSpec& spec);
    // "plan=tatp=32 d2d_bw=4 TB/s": the point's axis values, for progress lines and errors.
    static std::string describe(const SweepSpec& spec, const Point& p);
    // 64-bit FNV-1a, printed as 16 hex digits (stable across runs, hosts and builds).
    static std::string hash(const std::string& text);

  private:
    const SweepSpec& spec_;
    std::map<std::string, std::string> files_;  // path -> contents' hash ("" if not a file)
};

}  // namespace wsc::tb::sweep
