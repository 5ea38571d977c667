#pragma once
// A sweep's results as one table, in plan order: the point's index and id, every axis, its
// status and exit code, every metric read from its stats JSON, whether it is on the Pareto front,
// and provenance (wall time, peak memory, host, executor, the wsc version and git describe from
// the stats header, the error). Written as CSV (RFC 4180 quoting) with the spec's SVG plots.
#include <optional>
#include <string>
#include <vector>

#include "testbench/sweep/PointStore.h"

namespace wsc::tb::sweep {

class SweepTable {
  public:
    struct Row {
        const Point* point = nullptr;
        std::optional<PointStatus> status;  // none: not run yet
        std::string state;                  // ok, failed, timeout, invalid, running, pending
        std::vector<std::string> metrics;   // text as the CSV shows it ("" if missing)
        std::vector<std::optional<double>> numeric;  // the same, when a number
        bool pareto = false, pareto_known = false;   // known: both Pareto metrics are numbers
        std::vector<std::string> metric_errors;      // per metric: why it is missing ("" if not)
        std::string version, describe;               // from the stats header
        std::string error;
    };

    SweepTable(const SweepSpec& spec, const std::vector<Point>& pts, const PointStore& store);
    const std::vector<Row>& rows() const { return rows_; }
    // Metrics missing from ok points, plots with nothing to draw: said once each, not per row.
    const std::vector<std::string>& warnings() const { return warnings_; }

    std::string csv() const;
    // results.csv and the spec's plots in the store's folder; returns the files written.
    std::vector<std::string> write() const;

    // A metric of a stats document: the value at `keys` as text, or an error naming the key.
    static std::string extract(const nlohmann::json& stats, const std::vector<std::string>& keys,
                               std::string& error);
    static std::string csvField(const std::string& s);
    // A metric's text as a number, when all of it is one ("0.25", "2500000000").
    static std::optional<double> number(const std::string& text);

  private:
    void plot(const PlotSpec& ps, const std::string& path) const;
    void plotPareto(const std::string& path) const;

    const SweepSpec& spec_;
    const PointStore& store_;
    std::vector<Row> rows_;
    std::vector<std::string> warnings_;
};

}  // namespace wsc::tb::sweep
