#include "testbench/sweep/LocalExecutor.h"

#include <fmt/format.h>
#include <signal.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <memory>
#include <thread>

#include "testbench/sweep/PointProcess.h"

namespace wsc::tb::sweep {

namespace {
volatile std::sig_atomic_t gStop = 0;
void onStop(int) {
    gStop = 1;
}
}  // namespace

std::string LocalExecutor::duration(double s) {
    const long t = std::lround(std::max(0.0, s));
    if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, (t / 60) % 60);
    if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
    return fmt::format("{}s", t);
}

RunSummary LocalExecutor::run(const SweepSpec& spec, const std::vector<const Point*>& todo,
                              const PointStore& store, const std::string& wsc, unsigned jobs,
                              std::ostream& log) {
    RunSummary sum;
    gStop = 0;
    struct sigaction sa {
    }, oldInt{}, oldTerm{};
    sa.sa_handler = onStop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &oldInt);
    sigaction(SIGTERM, &sa, &oldTerm);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<PointProcess>> running;
    size_t next = 0;
    const size_t width = std::to_string(todo.size()).size();
    while ((next < todo.size() || !running.empty()) && !gStop) {
        while (running.size() < jobs && next < todo.size() && !gStop) {
            running.push_back(
                std::make_unique<PointProcess>(spec, *todo[next++], store, wsc, "local"));
            running.back()->start();
        }
        bool any = false;
        for (size_t i = 0; i < running.size();) {
            if (!running[i]->poll()) {
                ++i;
                continue;
            }
            any = true;
            const PointStatus& s = running[i]->status();
            const Point& p = running[i]->point();
            ++sum.ran;
            (s.status == "ok" ? sum.ok : sum.failed)++;
            const double el =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const size_t left = todo.size() - sum.ran;
            std::string line = fmt::format("[{:>{}}/{}] {:<7} {:>7}  {}  {}", sum.ran, width,
                                           todo.size(), s.status, fmt::format("{:.1f} s", s.wall_s),
                                           p.id, SweepPlan::describe(spec, p));
            if (left) line += fmt::format("  (ETA {})", duration(el / sum.ran * left));
            if (s.status != "ok") line += fmt::format("\n    exit {}: {}", s.exit_code, s.error);
            log << line << std::endl;
            running.erase(running.begin() + static_cast<long>(i));
        }
        if (!any) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (gStop) {
        for (auto& r : running) r->kill();
        sum.interrupted = true;
    }
    sigaction(SIGINT, &oldInt, nullptr);
    sigaction(SIGTERM, &oldTerm, nullptr);
    return sum;
}

}  // namespace wsc::tb::sweep
