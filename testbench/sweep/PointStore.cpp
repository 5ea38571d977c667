#include "testbench/sweep/PointStore.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "testbench/CliArgs.h"

namespace wsc::tb::sweep {

namespace fs = std::filesystem;

std::string PointStore::hostName() {
    char h[256] = {};
    if (gethostname(h, sizeof h - 1) != 0) return "unknown";
    return h;
}

std::string PointStore::utcNow() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return b;
}

namespace {

void writeAtomically(const std::string& path, const std::string& text) {
    const std::string tmp = fmt::format("{}.tmp.{}.{}", path, PointStore::hostName(), getpid());
    {
        std::ofstream f(tmp);
        f << text;
        if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
    }
    fs::rename(tmp, path);
}

}  // namespace

std::optional<PointStatus> PointStore::status(const Point& p) const {
    std::ifstream f(dir(p) + "/status.json");
    if (!f) return std::nullopt;
    try {
        const nlohmann::json j = nlohmann::json::parse(f);
        PointStatus s;
        s.status = j.at("status").get<std::string>();
        s.exit_code = j.at("exit_code").get<int>();
        s.error = j.value("error", "");
        s.wall_s = j.value("wall_s", 0.0);
        s.max_rss_mb = j.value("max_rss_mb", 0.0);
        s.host = j.value("host", "");
        s.executor = j.value("executor", "");
        s.job = j.value("job", "");
        s.finished_utc = j.value("finished_utc", "");
        return s;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

void PointStore::write(const SweepSpec& spec, const Point& p, const PointStatus& s) const {
    fs::create_directories(dir(p));
    nlohmann::ordered_json j;
    j["point"] = p.id;
    j["index"] = p.index;
    nlohmann::ordered_json axes = nlohmann::ordered_json::object();
    for (size_t a = 0; a < spec.axes.size(); ++a)
        axes[spec.axes[a].name] = spec.axes[a].values[p.value[a]].label;
    j["axes"] = axes;
    j["args"] = p.args;
    j["status"] = s.status;
    j["exit_code"] = s.exit_code;
    j["error"] = s.error;
    j["wall_s"] = s.wall_s;
    j["max_rss_mb"] = s.max_rss_mb;
    j["host"] = s.host;
    j["executor"] = s.executor;
    j["job"] = s.job;
    j["finished_utc"] = s.finished_utc;
    writeAtomically(dir(p) + "/status.json", j.dump(2) + "\n");
    std::error_code ec;
    fs::remove(dir(p) + "/running", ec);
}

void PointStore::prepare(const Point& p, const std::string& executor) const {
    const std::string d = dir(p);
    std::error_code ec;
    fs::remove_all(d, ec);
    fs::create_directories(d);
    writeAtomically(d + "/running",
                    fmt::format("{} {} {} {}\n", hostName(), getpid(), utcNow(), executor));
}

std::string PointStore::running(const Point& p) const {
    std::ifstream f(dir(p) + "/running");
    std::string host, start, executor;
    long pid = 0;
    if (!(f >> host >> pid >> start >> executor)) return "";
    std::string s = fmt::format("running on {} (pid {}, {}) since {}", host, pid, executor, start);
    // On this host a marker whose process is gone is from a killed run: it will run again.
    if (host == hostName() && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        s = fmt::format("interrupted on {} (pid {} is gone): runs again", host, pid);
    return s;
}

void PointStore::writePlan(const SweepSpec& spec, const std::vector<Point>& pts) const {
    fs::create_directories(out_ + "/points");
    nlohmann::ordered_json j;
    j["spec"] = spec.file;
    j["name"] = spec.name;
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& p : pts) {
        nlohmann::ordered_json e;
        e["index"] = p.index;
        e["point"] = p.id;
        e["describe"] = SweepPlan::describe(spec, p);
        e["value"] = p.value;
        if (!p.error.empty()) e["error"] = p.error;
        list.push_back(e);
    }
    j["points"] = list;
    writeAtomically(out_ + "/plan.json", j.dump(2) + "\n");
}

std::vector<Point> PointStore::readPlan(const SweepSpec& spec) const {
    const std::string path = out_ + "/plan.json";
    std::ifstream f(path);
    if (!f)
        throw UsageError(fmt::format("{}: no plan.json: nothing of this sweep has run in {} yet",
                                     spec.file, out_));
    std::vector<Point> pts;
    try {
        const nlohmann::json j = nlohmann::json::parse(f);
        for (const auto& e : j.at("points")) {
            Point p;
            p.index = e.at("index").get<size_t>();
            p.id = e.at("point").get<std::string>();
            p.value = e.at("value").get<std::vector<size_t>>();
            p.error = e.value("error", "");
            bool fits = p.value.size() == spec.axes.size() && p.index == pts.size();
            for (size_t a = 0; fits && a < p.value.size(); ++a)
                fits = p.value[a] < spec.axes[a].values.size();
            if (!fits) throw std::runtime_error("point " + std::to_string(pts.size()));
            pts.push_back(std::move(p));
        }
    } catch (const std::exception& e) {
        throw UsageError(
            fmt::format("{}: does not fit the axes of {} ({}); was the spec "
                        "changed? Run the sweep again to rewrite it",
                        path, spec.file, e.what()));
    }
    return pts;
}

}  // namespace wsc::tb::sweep
