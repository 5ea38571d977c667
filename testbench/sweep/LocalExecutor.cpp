#include "testbench/sweep/LocalExecutor.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
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
    // On a terminal, a live bar on stderr between the per-point lines (which go to `log`).
    const bool tty = isatty(2) != 0;
    auto lastBar = t0 - std::chrono::seconds(1);
    bool barShown = false;
    auto clearBar = [&] {
        if (barShown) std::fputs("\r\033[K", stderr);
        barShown = false;
    };
    auto drawBar = [&] {
        const auto now = std::chrono::steady_clock::now();
        if (!tty || now - lastBar < std::chrono::milliseconds(500)) return;
        lastBar = now;
        const double el = std::chrono::duration<double>(now - t0).count();
        const size_t n = todo.empty() ? 0 : 30 * sum.ran / todo.size();
        const std::string eta =
            sum.ran ? duration(el / sum.ran * (todo.size() - sum.ran)) : std::string("?");
        std::fprintf(stderr, "\r\033[K[%s%s] %zu/%zu done, %zu running, %s elapsed, ETA %s",
                     std::string(n, '#').c_str(), std::string(30 - n, '.').c_str(), sum.ran,
                     todo.size(), running.size(), duration(el).c_str(), eta.c_str());
        std::fflush(stderr);
        barShown = true;
    };
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
            clearBar();
            log << line << std::endl;
            running.erase(running.begin() + static_cast<long>(i));
        }
        if (!any) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        drawBar();
    }
    clearBar();
    if (gStop) {
        for (auto& r : running) r->kill();
        sum.interrupted = true;
    }
    sigaction(SIGINT, &oldInt, nullptr);
    sigaction(SIGTERM, &oldTerm, nullptr);
    return sum;
}

}  // namespace wsc::tb::sweep
