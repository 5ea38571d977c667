#pragma once
// A sweep's results folder: OUT/points/<id>/ holds each point's stats.json, stdout.txt,
// stderr.txt and, once it has finished, status.json (written to a temporary file and renamed, so
// a point killed halfway has none and runs again). A `running` marker (host, pid, start) tells
// --status what is under way. Executors on many hosts share the folder; each point writes only
// its own directory.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "testbench/sweep/SweepPlan.h"

namespace wsc::tb::sweep {

struct PointStatus {
    std::string status;  // ok, failed, timeout, invalid (config does not resolve)
    int exit_code = 0;   // the wsc process's exit code; 128 + signal when killed
    std::string error;   // its last "error:" line, or what killed it
    double wall_s = 0;
    double max_rss_mb = 0;
    std::string host, executor, job, finished_utc;
};

class PointStore {
  public:
    explicit PointStore(std::string out) : out_(std::move(out)) {}
    const std::string& out() const { return out_; }
    std::string dir(const Point& p) const { return out_ + "/points/" + p.id; }
    std::string statsFile(const Point& p) const { return dir(p) + "/stats.json"; }

    // The finished status of a point, if it has one (a corrupt status.json reads as none).
    std::optional<PointStatus> status(const Point& p) const;
    // Records a finished point: status.json with the point's axes and arguments.
    void write(const SweepSpec& spec, const Point& p, const PointStatus& s) const;
    // Empties a point's directory before it runs (a killed attempt's files) and marks it running.
    void prepare(const Point& p, const std::string& executor) const;
    // "running on HOST (pid N) since T", or "" when no marker.
    std::string running(const Point& p) const;
    void writePlan(const SweepSpec& spec, const std::vector<Point>& pts) const;
    // The points of OUT/plan.json (index, id, axis values; no arguments): what --status,
    // --collect and --task read. Throws UsageError when there is none or it does not fit `spec`.
    std::vector<Point> readPlan(const SweepSpec& spec) const;

    static std::string hostName();
    static std::string utcNow();

  private:
    std::string out_;
};

}  // namespace wsc::tb::sweep
