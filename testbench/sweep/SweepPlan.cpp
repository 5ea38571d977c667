#include "testbench/sweep/SweepPlan.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>

#include "hw/ConfigError.h"
#include "hw/ConfigOverrides.h"
#include "hw/ResolvedConfig.h"
#include "testbench/CliArgs.h"

namespace wsc::tb::sweep {

std::string SweepPlan::hash(const std::string& text) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return fmt::format("{:016x}", h);
}

std::string SweepPlan::describe(const SweepSpec& spec, const Point& p) {
    std::string s;
    for (size_t a = 0; a < spec.axes.size(); ++a)
        s += fmt::format("{}{}={}", a ? " " : "", spec.axes[a].name,
                         spec.axes[a].values[p.value[a]].label);
    return s;
}

namespace {

// The contents' hash of an argument that names a regular file (a model, a trace), else "".
std::string fileDigest(const std::string& path, std::map<std::string, std::string>& cache) {
    auto it = cache.find(path);
    if (it != cache.end()) return it->second;
    struct stat st {};
    std::string d;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (64 << 20)) {
        std::ifstream f(path, std::ios::binary);
        std::ostringstream ss;
        ss << f.rdbuf();
        d = SweepPlan::hash(ss.str());
    }
    return cache[path] = d;
}

}  // namespace

bool SweepPlan::excluded(const std::vector<size_t>& v) const {
    for (const auto& ex : spec_.excludes) {
        bool all = true;
        for (const auto& [ai, labels] : ex.match) {
            bool any = false;
            for (const auto& l : labels) any = any || spec_.axes[ai].values[v[ai]].label == l;
            all = all && any;
        }
        if (all) return true;
    }
    return false;
}

Point SweepPlan::make(const std::vector<size_t>& v, size_t index) {
    const SweepSpec& spec = spec_;
    Point p;
    p.index = index;
    p.value = v;
    std::string key = "wsc sweep point v1\n";
    for (const auto& c : spec.command) {
        std::string a = c;
        for (size_t at; (at = a.find("{base}")) != std::string::npos;) a.replace(at, 6, spec.base);
        p.args.push_back(a);
        key += c + '\0';  // the template: where the base file lives does not matter
        if (a != c) continue;
        const std::string d = fileDigest(spec.path(a), files_);
        if (!d.empty()) key += "file " + d + '\0';
    }
    std::vector<std::string> sets;
    for (size_t ai = 0; ai < spec.axes.size(); ++ai) {
        const Axis& ax = spec.axes[ai];
        const AxisValue& av = ax.values[v[ai]];
        if (ax.kind == Axis::Kind::Option) {
            // One argument, --FLAG=VALUE: a value may start with '-', and a boolean flag
            // (--offload) takes true or false this way.
            p.args.push_back(ax.option + "=" + av.option_value);
            key += ax.option + '\0' + av.option_value + '\0';
            const std::string d = fileDigest(spec.path(av.option_value), files_);
            if (!d.empty()) key += "file " + d + '\0';
        }
        for (const auto& [k, val] : av.sets) sets.push_back(k + "=" + val);
    }
    for (const auto& s : sets) {
        p.args.push_back("--set");
        p.args.push_back(s);
    }
    if (!spec.base.empty()) {
        try {
            std::string r =
                hw::ResolvedConfig::print(spec.path(spec.base), hw::ConfigOverrides(sets));
            // The first line names the file as given; the rest is the config.
            const size_t nl = r.find('\n');
            key += "resolved\n" + (nl == std::string::npos ? r : r.substr(nl + 1));
        } catch (const std::exception& e) {
            // A point whose config is invalid is recorded as failed, not planned away.
            p.error = e.what();
            for (const auto& s : sets) key += "set " + s + '\0';
        }
    }
    p.id = hash(key);
    return p;
}

std::vector<Point> SweepPlan::expand(const SweepSpec& spec) {
    SweepPlan plan(spec);
    std::vector<Point> pts;
    std::map<std::string, size_t> seen;
    std::vector<size_t> v(spec.axes.size(), 0);
    for (;;) {
        if (!plan.excluded(v)) {
            Point p = plan.make(v, pts.size());
            auto [it, fresh] = seen.emplace(p.id, p.index);
            if (!fresh)
                throw UsageError(fmt::format(
                    "{}: points {} ({}) and {} ({}) run the same resolved config; drop one of "
                    "the values or exclude one of the points",
                    spec.file, it->second, describe(spec, pts[it->second]), p.index,
                    describe(spec, p)));
            pts.push_back(std::move(p));
        }
        // Next combination, last axis fastest.
        size_t a = spec.axes.size();
        while (a > 0) {
            --a;
            if (++v[a] < spec.axes[a].values.size()) break;
            v[a] = 0;
            if (a == 0) return pts;
        }
        if (spec.axes.empty()) return pts;
    }
}

}  // namespace wsc::tb::sweep
