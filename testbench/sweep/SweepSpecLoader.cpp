#include "testbench/sweep/SweepSpecLoader.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "hw/YamlReader.h"

namespace wsc::tb::sweep {

using hw::YamlReader;

std::string SweepSpec::path(const std::string& f) const {
    if (f.empty() || f.front() == '/' || dir.empty() || dir == ".") return f;
    return dir + "/" + f;
}

size_t SweepSpec::axisIndex(const std::string& n) const {
    for (size_t i = 0; i < axes.size(); ++i)
        if (axes[i].name == n) return i;
    return npos;
}

size_t SweepSpec::metricIndex(const std::string& n) const {
    for (size_t i = 0; i < metrics.size(); ++i)
        if (metrics[i].name == n) return i;
    return npos;
}

namespace {

// Columns the table always has; axis and metric names must not take them.
const std::set<std::string> kFixedColumns = {"index",  "point",      "status",      "exit_code",
                                             "wall_s", "max_rss_mb", "host",        "executor",
                                             "error",  "pareto",     "wsc_version", "git_describe"};

bool validName(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
            return false;
    return true;
}

// YAML text of a value as --set takes it; a scalar quoted in the spec stays a string.
std::string yamlText(const YAML::Node& n) {
    if (n.IsScalar()) {
        if (n.Tag() != "!") return n.Scalar();
        std::string q = "\"";
        for (char c : n.Scalar()) {
            if (c == '"' || c == '\\') q += '\\';
            q += c;
        }
        return q + "\"";
    }
    YAML::Emitter e;
    e.SetMapFormat(YAML::Flow);
    e.SetSeqFormat(YAML::Flow);
    e << n;
    return e.c_str();
}

// The text of a value for labels and option arguments.
std::string labelText(const YAML::Node& n) {
    return n.IsScalar() ? n.Scalar() : yamlText(n);
}

// A range value as the run receives it: whole numbers exactly (a seed of 2^34, a size in bytes),
// others with 12 significant digits, so 0.1 + 2 x 0.1 reads 0.3, not 0.30000000000000004.
std::string fmtNumber(double v) {
    const double r = std::stod(fmt::format("{:.12g}", v));
    if (std::fabs(r) < 9e15 && r == std::floor(r)) return fmt::format("{:.0f}", r == 0 ? 0.0 : r);
    return fmt::format("{:.12g}", r);
}

void checkKeyPath(const YamlReader& r, const std::string& key, const std::string& path) {
    bool ok = !path.empty() && path.front() != '.' && path.back() != '.' &&
              path.find("..") == std::string::npos;
    for (char c : path)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
            ok = false;
    if (!ok) r.fail(key, "a config key path of names joined by '.' (noc.d2d.bandwidth)");
}

std::vector<double> expandRange(const YamlReader& r) {
    r.checkKeys({"from", "to", "step", "times", "unit"});
    const double from = r.getDouble("from", -1e300, 1e300);
    const double to = r.getDouble("to", -1e300, 1e300);
    if (to < from) r.fail("to", fmt::format("a value >= from ({})", fmtNumber(from)));
    const bool step = r.has("step"), times = r.has("times");
    if (step == times) r.failHere("exactly one of 'step' (additive) or 'times' (geometric)");
    std::vector<double> v;
    const double tol = 1e-9 * std::max({std::fabs(from), std::fabs(to), 1.0});
    if (step) {
        const double s = r.getDouble("step", 0, 1e300);
        if (s <= 0) r.fail("step", "a number > 0");
        // The count first: a step too small to change the value still gives (to - from) / s.
        const double n = std::floor((to - from) / s + 1e-9) + 1;
        if (n > static_cast<double>(SweepSpecLoader::kMaxAxisValues))
            r.fail("step",
                   fmt::format("a step giving at most {} values", SweepSpecLoader::kMaxAxisValues));
        for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
            const double x = from + static_cast<double>(i) * s;
            if (x > to + tol) break;
            v.push_back(x);
        }
    } else {
        const double f = r.getDouble("times", 0, 1e300);
        if (f <= 1) r.fail("times", "a factor > 1");
        if (from <= 0) r.fail("from", "a number > 0 for a geometric range (times)");
        for (double x = from; x <= to * (1 + 1e-9); x *= f) {
            if (v.size() == SweepSpecLoader::kMaxAxisValues)
                r.fail("times", fmt::format("a factor giving at most {} values",
                                            SweepSpecLoader::kMaxAxisValues));
            v.push_back(x);
        }
    }
    return v;
}

Axis loadAxis(const YamlReader& r, size_t index) {
    r.checkKeys({"name", "set", "option", "values", "range", "labels"});
    Axis a;
    const bool hasSet = r.has("set"), hasOption = r.has("option");
    if (hasSet && hasOption) r.failHere("one of 'set' or 'option', not both");
    const bool hasValues = r.has("values"), hasRange = r.has("range");
    if (hasValues == hasRange) r.failHere("exactly one of 'values' (a list) or 'range'");
    std::string key;
    if (hasSet) {
        key = r.getString("set");
        checkKeyPath(r, "set", key);
        a.kind = Axis::Kind::Set;
        a.name = key;
    } else if (hasOption) {
        a.option = r.getString("option");
        if (a.option.size() < 3 || a.option.compare(0, 2, "--") != 0 ||
            a.option.find('=') != std::string::npos)
            r.fail("option", "a long option of the command, such as --plan");
        if (a.option == "--stats" || a.option == "--set")
            r.fail("option",
                   "an option other than --stats (the sweep sets it) and --set (use "
                   "'set: key.path')");
        a.kind = Axis::Kind::Option;
        a.name = a.option.substr(2);
    } else {
        a.kind = Axis::Kind::Sets;  // each value a map of key paths
        if (!r.has("name"))
            r.failHere(
                "'set: KEY', 'option: --FLAG', or a 'name' with values that are maps of "
                "key paths ({hbm.stacks: 2, hbm.attach: [west, east]})");
    }
    if (r.has("name")) a.name = r.getString("name");
    if (!validName(a.name))
        r.fail(r.has("name") ? "name" : (hasSet ? "set" : "option"),
               fmt::format("an axis name of letters, digits, '_', '-' and '.' (axis {})", index));
    if (hasRange) {
        if (a.kind == Axis::Kind::Sets) r.fail("range", "'values' (maps of key paths)");
        const YamlReader rr = r.child("range");
        a.unit = rr.getString("unit", std::string());
        for (double x : expandRange(rr)) {
            AxisValue v;
            v.label = fmtNumber(x) + (a.unit.empty() ? "" : " " + a.unit);
            if (a.kind == Axis::Kind::Set)
                v.sets.emplace_back(key, v.label);
            else
                v.option_value = v.label;
            a.values.push_back(std::move(v));
        }
    } else {
        const YamlReader list = r.entry("values");
        if (!list.isSequence() || list.node().size() == 0)
            throw r.errorAt("values", "expected a non-empty list of values");
        if (list.node().size() > SweepSpecLoader::kMaxAxisValues)
            r.fail("values", fmt::format("at most {} values", SweepSpecLoader::kMaxAxisValues));
        for (const YamlReader& e : list.elements()) {
            AxisValue v;
            const YAML::Node& n = e.node();
            if (a.kind == Axis::Kind::Sets) {
                if (!e.isMap() || n.size() == 0)
                    throw e.errorHere(
                        "expected a non-empty map of key paths to values ({hbm.stacks: 2})");
                std::set<std::string> keys;
                for (const auto& kv : n) {
                    const std::string k = kv.first.Scalar();
                    checkKeyPath(e, k, k);
                    if (!keys.insert(k).second)
                        throw e.errorAt(k, fmt::format("key '{}' is listed twice in one value", k));
                    v.sets.emplace_back(k, yamlText(kv.second));
                }
                v.label = labelText(n.begin()->second);
            } else {
                if (n.IsNull() || (n.IsScalar() && n.Scalar().empty()))
                    e.failHere("a value (an empty one is not a default)");
                if (a.kind == Axis::Kind::Option && !n.IsScalar())
                    e.failHere("a scalar (an option's argument)");
                v.label = labelText(n);
                if (a.kind == Axis::Kind::Set)
                    v.sets.emplace_back(key, yamlText(n));
                else
                    v.option_value = n.Scalar();
            }
            a.values.push_back(std::move(v));
        }
    }
    if (r.has("labels")) {
        const YamlReader labels = r.entry("labels");
        if (!labels.isSequence() || labels.node().size() != a.values.size())
            throw r.errorAt("labels", fmt::format("expected a list of {} labels, one per value",
                                                  a.values.size()));
        size_t i = 0;
        for (const YamlReader& l : labels.elements())
            a.values[i++].label = l.scalar("a label (a scalar)");
    }
    std::set<std::string> seen;
    for (const auto& v : a.values)
        if (!seen.insert(v.label).second)
            throw r.errorAt(hasRange ? "range" : (r.has("labels") ? "labels" : "values"),
                            fmt::format("expected distinct values; '{}' is listed twice{}", v.label,
                                        a.kind == Axis::Kind::Sets && !r.has("labels")
                                            ? " (the label of a map is its first key's value: give "
                                              "labels:)"
                                            : ""));
    return a;
}

std::vector<std::string> splitPath(const std::string& p) {
    std::vector<std::string> k;
    size_t s = 0;
    for (size_t i = 0; i <= p.size(); ++i)
        if (i == p.size() || p[i] == '.') {
            k.push_back(p.substr(s, i - s));
            s = i + 1;
        }
    return k;
}

// {axis: label or [labels]} as (axis index, labels), every label one the axis has.
std::vector<std::pair<size_t, std::vector<std::string>>> loadMatch(const YamlReader& m,
                                                                   const SweepSpec& s,
                                                                   bool single) {
    if (!m.isMap() || m.node().size() == 0)
        m.failHere(single ? "a map of axis names to one value each"
                          : "a map of axis names to a value or a list of values");
    std::vector<std::pair<size_t, std::vector<std::string>>> out;
    for (const auto& kv : m.node()) {
        const std::string axis = kv.first.Scalar();
        const size_t ai = s.axisIndex(axis);
        std::string names;
        for (const auto& a : s.axes) names += (names.empty() ? "" : ", ") + a.name;
        if (ai == SweepSpec::npos)
            throw m.errorAt(axis, fmt::format("expected an axis name ({}), got '{}'", names, axis));
        const YamlReader v = m.entry(axis);
        std::vector<std::string> labels;
        if (v.isSequence() && !single) {
            for (const YamlReader& e : v.elements()) labels.push_back(labelText(e.node()));
        } else {
            labels.push_back(labelText(v.node()));
        }
        for (const auto& l : labels) {
            bool found = false;
            std::string have;
            for (const auto& av : s.axes[ai].values) {
                found = found || av.label == l;
                have += (have.empty() ? "'" : ", '") + av.label + "'";
            }
            if (!found)
                throw m.errorAt(axis, fmt::format("expected a value of axis '{}' ({}), got '{}'",
                                                  axis, have, l));
        }
        out.emplace_back(ai, labels);
    }
    return out;
}

SweepSpec load(const YamlReader& root, const std::string& file, const std::string& dir) {
    root.checkKeys({"sweep"});
    const YamlReader r = root.child("sweep");
    r.checkKeys({"name", "base", "command", "axes", "exclude", "metrics", "plots", "pareto",
                 "timeout", "slurm", "search"});
    const bool searching = r.has("search");
    SweepSpec s;
    s.file = file;
    s.dir = dir;
    s.name = r.getString("name");
    if (!validName(s.name)) r.fail("name", "a name of letters, digits, '_', '-' and '.'");
    s.base = r.getString("base", std::string());
    if (r.has("base")) {
        const std::string b = s.path(s.base);
        if (!std::filesystem::is_regular_file(b))
            r.fail("base", fmt::format("a config file (relative to the spec's folder: {} does not "
                                       "exist)",
                                       b));
    }
    const YamlReader cmd = r.entry("command");
    if (!cmd.isSequence() || cmd.node().size() == 0)
        r.fail("command",
               "a non-empty list: wsc's arguments ([llm, train, --hw, \"{base}\", ...])");
    bool namesBase = false;
    for (const YamlReader& e : cmd.elements()) {
        const std::string a = e.scalar("a scalar argument");
        if (a == "--stats" || a.rfind("--stats=", 0) == 0)
            e.failHere("an argument other than --stats (each point's stats file is the sweep's)");
        if (a == "sweep") e.failHere("a wsc subcommand other than sweep");
        namesBase = namesBase || a.find("{base}") != std::string::npos;
        s.command.push_back(a);
    }
    if (!s.base.empty() && !namesBase)
        r.fail("command", "an argument \"{base}\" where the command takes the base config");
    if (s.base.empty() && namesBase) r.fail("base", "a config file: the command names {base}");

    const YamlReader axes = r.entry("axes");
    if (!axes.isSequence() || axes.node().size() == 0)
        throw r.errorAt("axes", "expected a non-empty list of axes");
    double points = 1;  // a search samples the grid: it may be far larger than kMaxPoints
    for (const YamlReader& e : axes.elements()) {
        if (!e.isMap()) e.failHere("an axis (a map with set or option, and values or range)");
        Axis a = loadAxis(e, s.axes.size());
        if (a.kind != Axis::Kind::Option && s.base.empty())
            e.failHere("an option axis, or a 'base' config in the sweep for --set axes");
        if (s.axisIndex(a.name) != SweepSpec::npos || kFixedColumns.count(a.name))
            throw e.errorHere(fmt::format(
                "expected a distinct axis name; '{}' is taken (give it a name:)", a.name));
        // Two axes setting one key, or an option twice: the table would show a value that
        // did not run (the later assignment wins).
        for (const auto& other : s.axes) {
            if (a.kind == Axis::Kind::Option && other.kind == Axis::Kind::Option &&
                a.option == other.option)
                throw e.errorHere(
                    fmt::format("expected an option no other axis sets; axis '{}' "
                                "sets {} already",
                                other.name, a.option));
            for (const auto& av : a.values)
                for (const auto& [k, v] : av.sets)
                    for (const auto& ov : other.values)
                        for (const auto& [ok, ovv] : ov.sets)
                            if (ok == k)
                                throw e.errorHere(fmt::format(
                                    "expected keys no other axis sets; axis '{}' sets {} already",
                                    other.name, k));
        }
        if (a.kind == Axis::Kind::Option)
            for (const auto& c : s.command)
                if (c == a.option || c.rfind(a.option + "=", 0) == 0)
                    throw e.errorHere(fmt::format(
                        "expected an option the command does not give already; the command has {}",
                        a.option));
        points *= static_cast<double>(a.values.size());
        const double cap = searching ? 1e15 : static_cast<double>(SweepSpecLoader::kMaxPoints);
        if (points > cap)
            throw e.errorHere(fmt::format(
                "expected axes giving at most {:g} points{}", cap,
                searching ? "" : " (a larger space can be sampled by a search: see 'search:')"));
        s.axes.push_back(std::move(a));
    }

    if (r.has("exclude")) {
        const YamlReader ex = r.entry("exclude");
        if (!ex.isSequence()) r.fail("exclude", "a list of {axis: value or [values]} maps");
        for (const YamlReader& e : ex.elements()) s.excludes.push_back({loadMatch(e, s, false)});
    }

    const YamlReader metrics = r.entry("metrics");
    if (!metrics.isMap() || metrics.node().size() == 0)
        r.fail("metrics",
               "a map of metric names to paths in the stats JSON "
               "(step_s: runs.0.phases.train.seconds)");
    for (const auto& kv : metrics.node()) {
        Metric m;
        m.name = kv.first.Scalar();
        if (!validName(m.name) || kFixedColumns.count(m.name) ||
            s.axisIndex(m.name) != SweepSpec::npos || s.metricIndex(m.name) != SweepSpec::npos)
            throw metrics.errorAt(m.name,
                                  fmt::format("expected a distinct metric name of letters, digits, "
                                              "'_', '-' and '.' (not an axis or table column), "
                                              "got '{}'",
                                              m.name));
        m.path = metrics.getString(m.name);
        m.keys = splitPath(m.path);
        for (const auto& k : m.keys)
            if (k.empty()) metrics.fail(m.name, "a path of keys joined by '.'");
        s.metrics.push_back(std::move(m));
    }

    auto isNumericAxis = [&](size_t ai) {
        for (const auto& v : s.axes[ai].values) {
            char* end = nullptr;
            std::strtod(v.label.c_str(), &end);
            if (end == v.label.c_str()) return false;
        }
        return true;
    };
    std::set<std::string> files;
    auto plotFile = [&files](const YamlReader& p) {
        const std::string f = p.getString("file");
        if (f.empty() || f.find('/') != std::string::npos || f.size() < 5 ||
            f.substr(f.size() - 4) != ".svg")
            p.fail("file", "a file name ending in .svg (written into the results folder)");
        if (!files.insert(f).second)
            throw p.errorAt("file", fmt::format("expected a file name no other plot uses; '{}' "
                                                "is taken",
                                                f));
        return f;
    };
    if (r.has("plots")) {
        const YamlReader plots = r.entry("plots");
        if (!plots.isSequence()) r.fail("plots", "a list of {file, x, y[, where]} maps");
        for (const YamlReader& p : plots.elements()) {
            p.checkKeys({"file", "x", "y", "where"});
            PlotSpec ps;
            ps.file = plotFile(p);
            ps.x = p.getString("x");
            ps.y = p.getString("y");
            const size_t xa = s.axisIndex(ps.x);
            if (xa == SweepSpec::npos && s.metricIndex(ps.x) == SweepSpec::npos)
                p.fail("x", "an axis or a metric name");
            if (xa != SweepSpec::npos && !isNumericAxis(xa))
                p.fail("x", fmt::format("an axis whose values start with a number (axis '{}' is "
                                        "plotted as series instead)",
                                        ps.x));
            if (s.metricIndex(ps.y) == SweepSpec::npos) p.fail("y", "a metric name");
            if (p.has("where"))
                for (auto& [ai, labels] : loadMatch(p.entry("where"), s, true))
                    ps.where.emplace_back(ai, labels.front());
            s.plots.push_back(std::move(ps));
        }
    }
    if (r.has("pareto")) {
        const YamlReader p = r.child("pareto");
        p.checkKeys({"file", "x", "y", "maximize"});
        ParetoSpec ps;
        ps.file = plotFile(p);
        ps.x = p.getString("x");
        ps.y = p.getString("y");
        if (s.metricIndex(ps.x) == SweepSpec::npos) p.fail("x", "a metric name");
        if (s.metricIndex(ps.y) == SweepSpec::npos || ps.y == ps.x)
            p.fail("y", "a metric name other than x");
        if (p.has("maximize")) {
            const YamlReader m = p.entry("maximize");
            if (!m.isSequence()) p.fail("maximize", "a list of x and/or y");
            for (const YamlReader& e : m.elements()) {
                const std::string w = e.scalar("x or y");
                if (w == "x")
                    ps.maximize_x = true;
                else if (w == "y")
                    ps.maximize_y = true;
                else
                    e.failHere("x or y");
            }
        }
        s.pareto = ps;
    }
    if (searching) {
        const YamlReader q = r.child("search");
        q.checkKeys({"kind", "objective", "maximize", "population", "generations", "elite",
                     "tournament", "crossover", "mutation", "seed", "outer", "keep"});
        SearchSpec ss;
        ss.kind = q.getEnum("kind", {"ga", "dual-level"});
        ss.objective = q.getString("objective");
        if (s.metricIndex(ss.objective) == SweepSpec::npos) q.fail("objective", "a metric name");
        ss.maximize = q.getBool("maximize", false);
        auto& g = ss.ga;
        g.population = q.getUInt("population", 2, 10000, 8);
        g.generations = q.getUInt("generations", 1, 10000, 5);
        g.elite = q.getUInt("elite", 0, g.population - 1, std::min(2u, g.population - 1));
        g.tournament = q.getUInt("tournament", 1, g.population, 2);
        g.crossover = q.getDouble("crossover", 0, 1, 0.8);
        g.mutation = q.getDouble("mutation", 0, 1, 0.2);
        g.seed = q.getUInt64("seed", 0, YamlReader::kMaxU64, 1);
        if (ss.kind == "dual-level") {
            const YamlReader o = q.entry("outer");
            if (!o.isSequence() || o.node().size() == 0 || o.node().size() >= s.axes.size())
                q.fail("outer",
                       "a list of axis names: the outer level (parallel degrees), "
                       "leaving at least one axis to the inner search");
            for (const YamlReader& e : o.elements()) {
                const size_t ai = s.axisIndex(e.scalar("an axis name"));
                if (ai == SweepSpec::npos) e.failHere("an axis name");
                if (std::find(ss.outer.begin(), ss.outer.end(), ai) != ss.outer.end())
                    e.failHere("an axis listed once");
                ss.outer.push_back(ai);
            }
            ss.keep = q.getUInt("keep", 1, 10000, 2);
        } else if (q.has("outer") || q.has("keep")) {
            q.failHere("no 'outer' or 'keep' (they belong to kind: dual-level)");
        }
        s.search = ss;
    }
    s.timeout_s = r.getQuantity("timeout", hw::Dim::Time, 0.0);
    if (r.has("slurm")) {
        const YamlReader sl = r.child("slurm");
        sl.checkKeys({"partition", "time", "mem", "cpus_per_task", "max_parallel", "extra"});
        s.slurm.partition = sl.getString("partition", std::string());
        s.slurm.time = sl.getString("time", std::string());
        s.slurm.mem = sl.getString("mem", std::string());
        s.slurm.cpus_per_task = sl.getUInt("cpus_per_task", 1, 4096, 1);
        s.slurm.max_parallel = sl.getUInt("max_parallel", 1, 1000000, 0);
        if (sl.has("extra")) {
            const YamlReader ex = sl.entry("extra");
            if (!ex.isSequence()) sl.fail("extra", "a list of sbatch options (--account=x)");
            for (const YamlReader& e : ex.elements()) {
                const std::string o = e.scalar("an sbatch option");
                if (o.rfind("--", 0) != 0 || o.find('\n') != std::string::npos)
                    e.failHere("an sbatch long option on one line (--account=x)");
                s.slurm.extra.push_back(o);
            }
        }
        for (const char* k : {"partition", "time", "mem"})
            if (sl.has(k)) {
                const std::string v = sl.getString(k);
                if (v.empty() || v.find_first_of(" \t\n'\"") != std::string::npos)
                    sl.fail(k, "a value without spaces or quotes");
            }
    }
    return s;
}

}  // namespace

SweepSpec SweepSpecLoader::loadFile(const std::string& path) {
    const YamlReader root = YamlReader::loadFile(path);
    std::string dir = std::filesystem::path(path).parent_path().string();
    return load(root, path, dir.empty() ? "." : dir);
}

SweepSpec SweepSpecLoader::loadString(const std::string& text, const std::string& name,
                                      const std::string& dir) {
    return load(YamlReader::loadString(text, name), name, dir);
}

}  // namespace wsc::tb::sweep
