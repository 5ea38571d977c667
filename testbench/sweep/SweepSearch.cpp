#include "testbench/sweep/SweepSearch.h"

#include <fmt/format.h>

#include <cmath>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "testbench/CliArgs.h"
#include "testbench/sweep/GeneticSearch.h"
#include "testbench/sweep/SweepTable.h"

namespace wsc::tb::sweep {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class Evaluator {
  public:
    Evaluator(const SweepSpec& spec, const PointStore& store, const SweepSearch::Runner& runner,
              std::ostream& os)
        : spec_(spec), store_(store), runner_(runner), os_(os), plan_(spec) {
        metric_ = spec.metricIndex(spec.search->objective);
    }

    // Objective values (minimised: a maximised metric is negated; +inf when infeasible).
    std::vector<double> operator()(const std::vector<GeneticSearch::Genome>& batch,
                                   const std::string& stage, size_t generation) {
        std::vector<const Point*> pts, todo;
        std::set<std::string> queued;
        for (const auto& g : batch) {
            auto it = byGenome_.find(g);
            if (it == byGenome_.end()) {
                // Two genomes that resolve to one config (linked keys equal to the base) are one
                // point: run once, never twice at the same time in one folder.
                Point p = plan_.make(g, points_.size());
                auto known = byId_.find(p.id);
                if (known == byId_.end()) {
                    points_.push_back(std::move(p));
                    known = byId_.emplace(points_.back().id, &points_.back()).first;
                }
                it = byGenome_.emplace(g, known->second).first;
            }
            pts.push_back(it->second);
            if (!store_.status(*it->second) && queued.insert(it->second->id).second)
                todo.push_back(it->second);
        }
        // The plan first: Slurm tasks find their point in it (--task INDEX).
        store_.writePlan(spec_, points());
        ran_[{stage, generation}] = todo.size();
        if (!todo.empty()) {
            os_ << fmt::format("  {} generation {}: running {} points\n", stage, generation,
                               todo.size())
                << std::flush;
            runner_(todo);
        }
        // Each point's stats are read once: its objective, or why it has none.
        std::vector<double> f;
        for (const Point* p : pts) {
            const Outcome o = objective(*p);
            if (o.ok) {
                ++ok_;
                numeric_ += std::isfinite(o.value);
                if (!std::isfinite(o.value) && firstMissing_.empty())
                    firstMissing_ = fmt::format("point {} ({}): {}", p->index, p->id, o.why);
            }
            f.push_back(o.value);
        }
        // Ok points without the objective: the metric's path is wrong, and every further
        // evaluation would be wasted. Refused after the first batch that shows it.
        if (ok_ && !numeric_)
            throw UsageError(fmt::format(
                "{}: the objective {} ({}) is in none of the {} ok points so far ({}); the search "
                "stops (fix the metric's path)",
                spec_.file, spec_.search->objective, spec_.metrics[metric_].path, ok_,
                firstMissing_));
        for (size_t i = 0; i < pts.size(); ++i) {
            if (f[i] < best_) {
                best_ = f[i];
                bestPoint_ = pts[i];
            }
            log_.push_back({stage, generation, pts[i], f[i], best_});
        }
        return f;
    }

    // A point's objective (minimised: a maximised metric is negated; +inf when infeasible).
    struct Outcome {
        bool ok = false;  // the point ran ok
        double value = kInf;
        std::string why;  // ok but no number: the metric's error
    };
    Outcome objective(const Point& p) const {
        Outcome o;
        const auto s = store_.status(p);
        if (!s || s->status != "ok") return o;
        o.ok = true;
        std::ifstream f(store_.statsFile(p));
        try {
            const std::string t =
                SweepTable::extract(nlohmann::json::parse(f), spec_.metrics[metric_].keys, o.why);
            const auto v = SweepTable::number(t);
            if (v && std::isfinite(*v))
                o.value = spec_.search->maximize ? -*v : *v;
            else if (o.why.empty())
                o.why = fmt::format("'{}' is not a number", t);
        } catch (const std::exception& e) {
            o.why = e.what();
        }
        return o;
    }

    std::string shown(double v) const {
        if (!std::isfinite(v)) return "infeasible";
        return fmt::format("{:.6g}", spec_.search->maximize ? -v : v);
    }

    void writeLog(const std::string& path) const {
        std::string o = "stage,generation,index,point";
        for (const auto& a : spec_.axes) o += "," + SweepTable::csvField(a.name);
        o += fmt::format(",{},best_so_far\n", SweepTable::csvField(spec_.search->objective));
        for (const auto& e : log_) {
            o += fmt::format("{},{},{},{}", SweepTable::csvField(e.stage), e.generation,
                             e.point->index, e.point->id);
            for (size_t a = 0; a < spec_.axes.size(); ++a)
                o += "," + SweepTable::csvField(spec_.axes[a].values[e.point->value[a]].label);
            o += fmt::format(",{},{}\n", std::isfinite(e.value) ? shown(e.value) : "",
                             std::isfinite(e.best) ? shown(e.best) : "");
        }
        std::ofstream f(path);
        f << o;
        if (!f.flush()) throw std::runtime_error("cannot write " + path);
    }

    std::vector<Point> points() const { return {points_.begin(), points_.end()}; }
    const Point* best() const { return bestPoint_; }
    double bestValue() const { return best_; }
    bool allowed(const GeneticSearch::Genome& g) const { return !plan_.excluded(g); }
    // Points of a batch that ran (the others were finished in the folder already).
    size_t ran(const std::string& stage, size_t generation) const {
        auto it = ran_.find({stage, generation});
        return it == ran_.end() ? 0 : it->second;
    }

  private:
    struct Entry {
        std::string stage;
        size_t generation;
        const Point* point;
        double value, best;
    };
    const SweepSpec& spec_;
    const PointStore& store_;
    const SweepSearch::Runner& runner_;
    std::ostream& os_;
    SweepPlan plan_;
    size_t metric_ = 0;
    std::deque<Point> points_;  // stable addresses
    std::map<GeneticSearch::Genome, const Point*> byGenome_;
    std::map<std::string, const Point*> byId_;
    size_t ok_ = 0, numeric_ = 0;
    std::string firstMissing_;
    std::vector<Entry> log_;
    std::map<std::pair<std::string, size_t>, size_t> ran_;
    double best_ = kInf;
    const Point* bestPoint_ = nullptr;
};

std::string labels(const SweepSpec& spec, const GeneticSearch::Genome& g,
                   const std::vector<size_t>& axes) {
    std::string s;
    for (size_t a : axes)
        s += fmt::format("{}{}={}", s.empty() ? "" : " ", spec.axes[a].name,
                         spec.axes[a].values[g[a]].label);
    return s;
}

}  // namespace

bool SweepSearch::run(const SweepSpec& spec, const PointStore& store, const Runner& runner,
                      std::ostream& os) {
    const SearchSpec& ss = *spec.search;
    Evaluator ev(spec, store, runner, os);
    std::vector<size_t> sizes;
    double grid = 1;
    for (const auto& a : spec.axes) {
        sizes.push_back(a.values.size());
        grid *= static_cast<double>(a.values.size());
    }
    auto allowed = [&](const GeneticSearch::Genome& g) { return ev.allowed(g); };

    auto gaStage = [&](const std::string& stage, const std::vector<bool>& free,
                       const GeneticSearch::Genome& start, uint64_t seed) {
        GeneticSearch::Params p = ss.ga;
        p.seed = seed;
        size_t gen = 0;
        auto evaluate = [&](const std::vector<GeneticSearch::Genome>& b) {
            return ev(b, stage, gen++);
        };
        // One line per generation as it finishes.
        auto onGeneration = [&](size_t i, const GeneticSearch::Generation& g) {
            os << fmt::format("  {} generation {}: {} points ({} new, {} run), best {} = {}\n",
                              stage, i, g.members.size(), g.fresh, ev.ran(stage, i), ss.objective,
                              ev.shown(g.best_fitness))
               << std::flush;
        };
        return GeneticSearch::run(sizes, free, start, p, evaluate, allowed, onGeneration);
    };

    os << fmt::format("search {} ({}): {} of {} over a grid of {:g} points; objective {} {}\n",
                      spec.name, ss.kind, ss.kind == "ga" ? "genetic search" : "dual level",
                      spec.axes.size() == 1 ? "1 axis" : fmt::format("{} axes", spec.axes.size()),
                      grid, ss.maximize ? "max" : "min", ss.objective);
    if (ss.kind == "ga") {
        gaStage("ga", std::vector<bool>(spec.axes.size(), true),
                GeneticSearch::Genome(spec.axes.size(), 0), ss.ga.seed);
    } else {
        // Level 1: every outer combination, inner axes at their first value.
        std::vector<bool> isOuter(spec.axes.size(), false);
        for (size_t a : ss.outer) isOuter[a] = true;
        std::vector<size_t> inner;
        for (size_t a = 0; a < spec.axes.size(); ++a)
            if (!isOuter[a]) inner.push_back(a);
        std::vector<GeneticSearch::Genome> level1;
        GeneticSearch::Genome g(spec.axes.size(), 0);
        for (;;) {
            if (allowed(g)) level1.push_back(g);
            size_t k = ss.outer.size();
            bool done = true;
            while (k > 0) {
                --k;
                if (++g[ss.outer[k]] < sizes[ss.outer[k]]) {
                    done = false;
                    break;
                }
                g[ss.outer[k]] = 0;
            }
            if (done) break;
        }
        const std::vector<double> f = ev(level1, "outer", 0);

        std::vector<size_t> order(level1.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return f[a] < f[b]; });
        std::string names;
        for (size_t a : ss.outer) names += (names.empty() ? "" : ", ") + spec.axes[a].name;
        os << fmt::format("  outer level: {} combinations of {} ({} run)\n", level1.size(), names,
                          ev.ran("outer", 0));
        size_t kept = 0;
        for (size_t i : order) {
            if (!std::isfinite(f[i]) || kept == ss.keep) break;
            const std::string stage = "inner " + labels(spec, level1[i], ss.outer);
            os << fmt::format("  {} ({} = {} at the first inner values)\n", stage, ss.objective,
                              ev.shown(f[i]));
            std::vector<bool> free(spec.axes.size(), false);
            for (size_t a : inner) free[a] = true;
            gaStage(stage, free, level1[i], ss.ga.seed + kept);
            ++kept;
        }
        if (kept == 0) os << "  no outer combination is feasible: no inner search\n";
    }

    const std::vector<Point> pts = ev.points();
    store.writePlan(spec, pts);
    const SweepTable table(spec, pts, store);
    for (const auto& f : table.write()) os << fmt::format("  wrote {}\n", f);
    ev.writeLog(store.out() + "/search.csv");
    os << fmt::format("  wrote {}/search.csv\n", store.out());
    if (!ev.best()) {
        os << fmt::format("{} points evaluated; none feasible\n", pts.size());
        return false;
    }
    os << fmt::format("best of {} points evaluated ({:.1f}% of the grid): {} = {} at {} ({})\n",
                      pts.size(), 100.0 * static_cast<double>(pts.size()) / grid, ss.objective,
                      ev.shown(ev.bestValue()), SweepPlan::describe(spec, *ev.best()),
                      ev.best()->id);
    return true;
}

}  // namespace wsc::tb::sweep
