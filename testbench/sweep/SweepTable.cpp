#include "testbench/sweep/SweepTable.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "testbench/SvgPlot.h"
#include "testbench/sweep/ParetoFront.h"

namespace wsc::tb::sweep {

std::string SweepTable::csvField(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + "\"";
}

std::optional<double> SweepTable::number(const std::string& t) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0') return std::nullopt;
    return v;
}

std::string SweepTable::extract(const nlohmann::json& stats, const std::vector<std::string>& keys,
                                std::string& error) {
    const nlohmann::json* j = &stats;
    std::string at;
    for (const auto& k : keys) {
        const nlohmann::json* next = nullptr;
        if (j->is_object()) {
            auto it = j->find(k);
            if (it != j->end()) next = &*it;
        } else if (j->is_array()) {
            char* end = nullptr;
            const unsigned long i = std::strtoul(k.c_str(), &end, 10);
            if (!k.empty() && *end == '\0' && i < j->size()) next = &(*j)[i];
        }
        if (!next) {
            error = fmt::format("no '{}' in {}", k, at.empty() ? "the stats" : at);
            return "";
        }
        j = next;
        at += (at.empty() ? "" : ".") + k;
    }
    if (j->is_string()) return j->get<std::string>();
    if (j->is_number() || j->is_boolean()) return j->dump();
    error = fmt::format("{} is {}, not a value", at, j->is_null() ? "null" : "a map or list");
    return "";
}

SweepTable::SweepTable(const SweepSpec& spec, const std::vector<Point>& pts,
                       const PointStore& store)
    : spec_(spec), store_(store) {
    for (const auto& p : pts) {
        Row r;
        r.point = &p;
        r.status = store.status(p);
        r.metrics.assign(spec.metrics.size(), "");
        r.metric_errors.assign(spec.metrics.size(), "");
        r.numeric.assign(spec.metrics.size(), std::nullopt);
        if (!r.status) {
            const std::string run = store.running(p);
            r.state = run.rfind("running", 0) == 0 ? "running" : "pending";
            rows_.push_back(std::move(r));
            continue;
        }
        r.state = r.status->status;
        r.error = r.status->error;
        std::ifstream f(store.statsFile(p));
        if (f && r.state == "ok") {
            nlohmann::json j;
            try {
                j = nlohmann::json::parse(f);
            } catch (const std::exception& e) {
                r.error = fmt::format("stats file unreadable: {}", e.what());
            }
            if (j.contains("header")) {
                r.version = j["header"].value("wsc_version", "");
                r.describe = j["header"].value("git_describe", "");
            }
            for (size_t m = 0; m < spec.metrics.size(); ++m) {
                std::string err;
                r.metrics[m] = j.is_null() ? "" : extract(j, spec.metrics[m].keys, err);
                if (!err.empty() && !j.is_null()) {
                    r.error += fmt::format("{}metric {} ({}): {}", r.error.empty() ? "" : "; ",
                                           spec.metrics[m].name, spec.metrics[m].path, err);
                    r.metric_errors[m] = err;
                }
                r.numeric[m] = number(r.metrics[m]);
            }
        }
        rows_.push_back(std::move(r));
    }
    if (spec.pareto) {
        const size_t mx = spec.metricIndex(spec.pareto->x), my = spec.metricIndex(spec.pareto->y);
        std::vector<std::pair<double, double>> xy;
        std::vector<size_t> which;
        for (size_t i = 0; i < rows_.size(); ++i)
            if (rows_[i].numeric[mx] && rows_[i].numeric[my]) {
                xy.emplace_back(*rows_[i].numeric[mx], *rows_[i].numeric[my]);
                which.push_back(i);
            }
        const auto front =
            ParetoFront::compute(xy, spec.pareto->maximize_x, spec.pareto->maximize_y);
        for (size_t k = 0; k < which.size(); ++k) {
            rows_[which[k]].pareto = front[k];
            rows_[which[k]].pareto_known = true;
        }
    }
    // A metric no ok point has, or only some: the path is probably wrong.
    size_t ok = 0;
    for (const auto& r : rows_) ok += r.state == "ok";
    for (size_t m = 0; m < spec.metrics.size(); ++m) {
        size_t missing = 0;
        std::string first;
        for (const auto& r : rows_)
            if (r.state == "ok" && r.metrics[m].empty()) {
                if (!missing++) first = r.metric_errors[m];
            }
        if (missing)
            warnings_.push_back(fmt::format("metric {} ({}) is missing in {} of {} ok points: {}",
                                            spec.metrics[m].name, spec.metrics[m].path, missing, ok,
                                            first.empty() ? "not a value" : first));
    }
    for (const auto& ps : spec.plots) {
        const size_t ym = spec.metricIndex(ps.y);
        bool any = false;
        for (const auto& r : rows_) any = any || r.numeric[ym].has_value();
        if (!any && ok)
            warnings_.push_back(
                fmt::format("plot {}: no point has a number for {}", ps.file, ps.y));
    }
}

std::string SweepTable::csv() const {
    std::vector<std::string> head{"index", "point"};
    for (const auto& a : spec_.axes) head.push_back(a.name);
    head.push_back("status");
    head.push_back("exit_code");
    for (const auto& m : spec_.metrics) head.push_back(m.name);
    if (spec_.pareto) head.push_back("pareto");
    for (const char* h :
         {"wall_s", "max_rss_mb", "host", "executor", "wsc_version", "git_describe", "error"})
        head.push_back(h);
    std::string o;
    for (size_t i = 0; i < head.size(); ++i) o += (i ? "," : "") + csvField(head[i]);
    o += "\n";
    for (const auto& r : rows_) {
        std::vector<std::string> f{std::to_string(r.point->index), r.point->id};
        for (size_t a = 0; a < spec_.axes.size(); ++a)
            f.push_back(spec_.axes[a].values[r.point->value[a]].label);
        f.push_back(r.state);
        f.push_back(r.status ? std::to_string(r.status->exit_code) : "");
        for (const auto& m : r.metrics) f.push_back(m);
        if (spec_.pareto) f.push_back(r.pareto_known ? (r.pareto ? "yes" : "no") : "");
        f.push_back(r.status ? fmt::format("{:.2f}", r.status->wall_s) : "");
        f.push_back(r.status ? fmt::format("{:.1f}", r.status->max_rss_mb) : "");
        f.push_back(r.status ? r.status->host : "");
        f.push_back(r.status ? r.status->executor : "");
        f.push_back(r.version);
        f.push_back(r.describe);
        f.push_back(r.error);
        for (size_t i = 0; i < f.size(); ++i) o += (i ? "," : "") + csvField(f[i]);
        o += "\n";
    }
    return o;
}

namespace {

double leadingNumber(const std::string& s) {
    return std::strtod(s.c_str(), nullptr);
}

}  // namespace

void SweepTable::plot(const PlotSpec& ps, const std::string& path) const {
    const size_t xa = spec_.axisIndex(ps.x), xm = spec_.metricIndex(ps.x);
    const size_t ym = spec_.metricIndex(ps.y);
    // Series: every other axis with more than one value that `where` does not fix.
    std::vector<size_t> seriesAxes;
    // Against a metric, points do not line up by axis value: one scatter of every point.
    for (size_t a = 0; a < spec_.axes.size() && xa != SweepSpec::npos; ++a) {
        bool fixed = a == xa;
        for (const auto& [wa, l] : ps.where) fixed = fixed || wa == a;
        if (!fixed && spec_.axes[a].values.size() > 1) seriesAxes.push_back(a);
    }
    std::map<std::string, SvgPlot::Series> series;
    std::vector<std::string> order;
    for (const auto& r : rows_) {
        if (!r.numeric[ym]) continue;
        bool in = true;
        for (const auto& [wa, l] : ps.where)
            in = in && spec_.axes[wa].values[r.point->value[wa]].label == l;
        if (!in) continue;
        double x = 0;
        if (xa != SweepSpec::npos) {
            x = leadingNumber(spec_.axes[xa].values[r.point->value[xa]].label);
        } else if (r.numeric[xm]) {
            x = *r.numeric[xm];
        } else {
            continue;
        }
        std::string name;
        for (size_t a : seriesAxes)
            name += fmt::format("{}{}={}", name.empty() ? "" : " ", spec_.axes[a].name,
                                spec_.axes[a].values[r.point->value[a]].label);
        if (name.empty()) name = ps.y;
        if (!series.count(name)) order.push_back(name);
        auto& s = series[name];
        s.name = name;
        s.points.emplace_back(x, *r.numeric[ym]);
    }
    std::string xlabel = ps.x;
    if (xa != SweepSpec::npos) {
        // The unit: a range's, else what every label has after its number ("4 TB/s").
        std::string unit = spec_.axes[xa].unit;
        for (size_t i = 0; unit.empty() && i < spec_.axes[xa].values.size(); ++i) {
            const std::string& l = spec_.axes[xa].values[i].label;
            char* end = nullptr;
            std::strtod(l.c_str(), &end);
            std::string rest(end);
            rest.erase(0, rest.find_first_not_of(' '));
            if (rest.empty()) break;
            bool same = true;
            for (const auto& v : spec_.axes[xa].values) {
                const std::string& o = v.label;
                same = same && o.size() > rest.size() &&
                       o.compare(o.size() - rest.size(), rest.size(), rest) == 0;
            }
            if (same) unit = rest;
            break;
        }
        if (!unit.empty()) xlabel += " (" + unit + ")";
    }
    std::string title = fmt::format("{}: {} vs {}", spec_.name, ps.y, ps.x);
    for (const auto& [wa, l] : ps.where) title += fmt::format(", {}={}", spec_.axes[wa].name, l);
    SvgPlot plot(title, xlabel, ps.y);
    for (const auto& n : order) {
        auto s = series[n];
        std::sort(s.points.begin(), s.points.end());
        s.line = xa != SweepSpec::npos;
        plot.add(s);
    }
    plot.write(path);
}

void SweepTable::plotPareto(const std::string& path) const {
    const auto& pa = *spec_.pareto;
    const size_t mx = spec_.metricIndex(pa.x), my = spec_.metricIndex(pa.y);
    SvgPlot::Series all{"points", {}, false}, front{"Pareto front", {}, true};
    for (const auto& r : rows_) {
        if (!r.numeric[mx] || !r.numeric[my]) continue;
        (r.pareto ? front : all).points.emplace_back(*r.numeric[mx], *r.numeric[my]);
    }
    std::sort(front.points.begin(), front.points.end());
    SvgPlot plot(
        fmt::format("{}: Pareto front, {} {} and {} {}", spec_.name, pa.maximize_x ? "max" : "min",
                    pa.x, pa.maximize_y ? "max" : "min", pa.y),
        pa.x, pa.y);
    plot.add(all);
    plot.add(front);
    plot.write(path);
}

std::vector<std::string> SweepTable::write() const {
    std::vector<std::string> files;
    const std::string table = store_.out() + "/results.csv";
    {
        std::ofstream f(table);
        f << csv();
        if (!f.flush()) throw std::runtime_error("cannot write " + table);
    }
    files.push_back(table);
    for (const auto& ps : spec_.plots) {
        plot(ps, store_.out() + "/" + ps.file);
        files.push_back(store_.out() + "/" + ps.file);
    }
    if (spec_.pareto) {
        plotPareto(store_.out() + "/" + spec_.pareto->file);
        files.push_back(store_.out() + "/" + spec_.pareto->file);
    }
    return files;
}

}  // namespace wsc::tb::sweep
