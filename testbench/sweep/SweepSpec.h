#pragma once
// A sweep as its spec file describes it (docs/SWEEPS.md): one wsc command, a base config that
// --set axes change, option axes (models, plans, seeds), exclusions, the metrics to collect, and
// the plots. Parsed and checked by SweepSpecLoader; expanded into points by SweepPlan.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "testbench/sweep/GeneticSearch.h"

namespace wsc::tb::sweep {

// One value of an axis: the label the table shows and what it changes in the command.
struct AxisValue {
    std::string label;
    // --set assignments (key path, YAML value text) for set/sets axes.
    std::vector<std::pair<std::string, std::string>> sets;
    std::string option_value;  // option axes: the option's argument
};

struct Axis {
    enum class Kind { Set, Sets, Option };
    std::string name;  // table column; exclusions and plots name axes by it
    Kind kind = Kind::Set;
    std::string option;  // Option: the flag ("--plan")
    std::string unit;    // a range's unit, shown in plot labels ("TB/s")
    std::vector<AxisValue> values;
};

// A value to collect from each point's stats JSON: keys separated by '.', array indices as
// numbers ("runs.0.phases.train.seconds").
struct Metric {
    std::string name;
    std::string path;
    std::vector<std::string> keys;
};

// Points whose labels match every listed axis are dropped.
struct Exclude {
    std::vector<std::pair<size_t, std::vector<std::string>>> match;  // axis index, labels
};

struct PlotSpec {
    std::string file;                                   // SVG, relative to the results folder
    std::string x;                                      // an axis with numeric labels, or a metric
    std::string y;                                      // a metric
    std::vector<std::pair<size_t, std::string>> where;  // axis index, label: a slice
};

struct ParetoSpec {
    std::string file;
    std::string x, y;  // metrics
    bool maximize_x = false, maximize_y = false;
};

struct SlurmSpec {
    std::string partition;  // empty: the cluster's default
    std::string time;       // sbatch --time, e.g. "02:00:00"
    std::string mem;        // sbatch --mem, e.g. "8G"
    uint32_t cpus_per_task = 1;
    uint32_t max_parallel = 0;       // array concurrency cap (%N); 0: -j, else none
    std::vector<std::string> extra;  // further sbatch options, verbatim
};

// A search instead of the whole grid (docs/SWEEPS.md, "Searches"): its candidates are points.
struct SearchSpec {
    std::string kind;       // "ga", or "dual-level" (outer axes enumerated, inner ones by GA)
    std::string objective;  // a metric
    bool maximize = false;
    GeneticSearch::Params ga;
    std::vector<size_t> outer;  // dual-level: the outer axes
    uint32_t keep = 2;          // dual-level: outer candidates refined by the GA
};

struct SweepSpec {
    std::string file;  // the spec as given
    std::string dir;   // its folder: relative paths resolve here and points run here
    std::string name;
    std::string base;                  // the config --set axes apply to ("" if none)
    std::vector<std::string> command;  // wsc's arguments; "{base}" stands for `base`
    std::vector<Axis> axes;
    std::vector<Exclude> excludes;
    std::vector<Metric> metrics;
    std::vector<PlotSpec> plots;
    std::optional<ParetoSpec> pareto;
    double timeout_s = 0;  // per point; 0: none
    SlurmSpec slurm;
    std::optional<SearchSpec> search;

    // A path of the spec (`base`, a file argument) as seen from the current folder: relative
    // paths are relative to the spec's folder.
    std::string path(const std::string& f) const;
    // Index of the axis or metric called `name`, or npos.
    size_t axisIndex(const std::string& name) const;
    size_t metricIndex(const std::string& name) const;
    static constexpr size_t npos = static_cast<size_t>(-1);
};

}  // namespace wsc::tb::sweep
