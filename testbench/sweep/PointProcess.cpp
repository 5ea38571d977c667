#include "testbench/sweep/PointProcess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace wsc::tb::sweep {

PointProcess::PointProcess(const SweepSpec& spec, const Point& p, const PointStore& store,
                           std::string wsc, std::string executor, std::string job)
    : spec_(spec),
      point_(p),
      store_(store),
      wsc_(std::move(wsc)),
      executor_(std::move(executor)),
      job_(std::move(job)) {}

void PointProcess::start() {
    start_ = std::chrono::steady_clock::now();
    store_.prepare(point_, executor_);
    if (!point_.error.empty()) {
        status_.status = "invalid";
        status_.exit_code = 2;
        status_.error = point_.error;
        finish(-1, 0);
        return;
    }
    const std::string dir = store_.dir(point_);
    // Absolute: the child runs in the spec's folder.
    const std::string abs = std::filesystem::absolute(dir).string();
    std::vector<std::string> args{wsc_};
    args.insert(args.end(), point_.args.begin(), point_.args.end());
    args.push_back("--stats");
    args.push_back(abs + "/stats.json");
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
    if (pid_ == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(137);  // the sweep died before prctl took effect
        const int out = open((abs + "/stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open((abs + "/stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0) _exit(126);
        dup2(out, 1);
        dup2(err, 2);
        close(out);
        close(err);
        const int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        if (chdir(spec_.dir.c_str()) != 0) {
            dprintf(2, "error: cannot enter the spec's folder %s: %s\n", spec_.dir.c_str(),
                    std::strerror(errno));
            _exit(126);
        }
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(wsc_.c_str(), argv.data());
        dprintf(2, "error: cannot run %s: %s\n", wsc_.c_str(), std::strerror(errno));
        _exit(127);
    }
    setpgid(pid_, pid_);  // also here: no race with a kill before the child ran setpgid
}

bool PointProcess::poll() {
    if (done_) return true;
    int st = 0;
    rusage ru{};
    const pid_t r = wait4(pid_, &st, WNOHANG, &ru);
    if (r == pid_) {
        finish(st, ru.ru_maxrss);
        return true;
    }
    if (spec_.timeout_s > 0 && !timedOut_ &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >
            spec_.timeout_s) {
        timedOut_ = true;
        ::kill(-pid_, SIGKILL);
    }
    return false;
}

void PointProcess::kill() {
    if (done_ || pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    int st = 0;
    waitpid(pid_, &st, 0);
    done_ = true;
}

std::string PointProcess::lastError(const std::string& file) {
    std::ifstream f(file);
    std::string line, last, err;
    while (std::getline(f, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        // A progress line rewritten with \r: its last state.
        const size_t cr = line.rfind('\r');
        if (cr != std::string::npos) line = line.substr(cr + 1);
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        // CLI11 ends a flag error with this hint; the line before it is the error.
        if (line.rfind("Run with --help", 0) == 0) continue;
        last = line;
        if (line.rfind("error: ", 0) == 0) err = line.substr(7);
    }
    std::string s = err.empty() ? last : err;
    if (s.size() > 400) s = s.substr(0, 397) + "...";
    return s;
}

void PointProcess::finish(int st, long maxRssKb) {
    done_ = true;
    status_.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    status_.max_rss_mb = static_cast<double>(maxRssKb) / 1024.0;
    status_.host = PointStore::hostName();
    status_.executor = executor_;
    status_.job = job_;
    status_.finished_utc = PointStore::utcNow();
    if (st >= 0) {
        const std::string dir = store_.dir(point_);
        if (WIFSIGNALED(st)) {
            const int sig = WTERMSIG(st);
            status_.exit_code = 128 + sig;
            status_.status = timedOut_ ? "timeout" : "failed";
            status_.error = timedOut_
                                ? fmt::format("timeout after {:g} s", spec_.timeout_s)
                                : fmt::format("killed by signal {} ({})", sig, strsignal(sig));
        } else {
            status_.exit_code = WEXITSTATUS(st);
            status_.error = lastError(dir + "/stderr.txt");
            status_.status = status_.exit_code == 0 ? "ok" : "failed";
            if (status_.exit_code == 0 && !std::filesystem::exists(dir + "/stats.json")) {
                status_.status = "failed";
                status_.error = "the command wrote no stats file (does it take --stats?)";
            }
            if (status_.exit_code == 0 && status_.status == "ok") status_.error.clear();
        }
    }
    store_.write(spec_, point_, status_);
}

}  // namespace wsc::tb::sweep
