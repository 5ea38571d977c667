#include "firmware/llm/Gcmr.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace wsc::firmware::llm {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void checkShape(const std::vector<std::vector<double>>& time,
                const std::vector<std::vector<uint64_t>>& memory,
                const std::vector<uint64_t>& capacity) {
    if (time.size() != memory.size() || time.size() != capacity.size() || time.empty())
        throw std::invalid_argument("gcmr: one row of times, memories and a capacity per stage");
    for (size_t s = 0; s < time.size(); ++s)
        if (time[s].size() != memory[s].size() || time[s].empty())
            throw std::invalid_argument("gcmr: every stage needs as many times as memories");
}

}  // namespace

Gcmr::Result Gcmr::solve(const std::vector<std::vector<double>>& time,
                         const std::vector<std::vector<uint64_t>>& memory,
                         const std::vector<uint64_t>& capacity, bool pooled, uint64_t grain) {
    checkShape(time, memory, capacity);
    if (grain == 0) throw std::invalid_argument("gcmr: grain must be > 0");
    const size_t S = time.size();
    // Memory units: options round up (never under-count), capacities round down.
    auto units = [&](uint64_t b) { return size_t((b + grain - 1) / grain); };
    // The whole pipeline's budget is the stages' capacities summed; without pooling each stage
    // is also held to its own (the check in run()).
    std::vector<size_t> cap(S);
    size_t budget = 0;
    for (size_t s = 0; s < S; ++s) cap[s] = size_t(capacity[s] / grain), budget += cap[s];
    const size_t M = budget + 1;
    // Pass 1: T[t][m] = least max time of stages t..S-1 given m units (Algorithm 2 lines 2-5).
    // Pass 2 (bound = T*): least total time with every stage within the bound.
    auto run = [&](double bound, bool sum, std::vector<std::vector<double>>& T,
                   std::vector<std::vector<int>>& arg) {
        T.assign(S + 1, std::vector<double>(M, kInf));
        arg.assign(S, std::vector<int>(M, -1));
        std::fill(T[S].begin(), T[S].end(), 0.0);
        for (size_t t = S; t-- > 0;)
            for (size_t m = 0; m < M; ++m)
                for (size_t o = 0; o < time[t].size(); ++o) {
                    const size_t u = units(memory[t][o]);
                    if (u > m || (!pooled && u > cap[t]) || time[t][o] > bound) continue;
                    const double rest = T[t + 1][m - u];
                    if (rest == kInf) continue;
                    const double v = sum ? rest + time[t][o] : std::max(rest, time[t][o]);
                    if (v < T[t][m]) T[t][m] = v, arg[t][m] = int(o);
                }
    };
    std::vector<std::vector<double>> T;
    std::vector<std::vector<int>> arg;
    run(kInf, false, T, arg);
    Result r;
    const double best = T[0][M - 1];
    if (best == kInf) return r;
    run(best, true, T, arg);
    r.feasible = true;
    size_t m = M - 1;
    for (size_t t = 0; t < S; ++t) {
        const size_t o = size_t(arg[t][m]);
        r.choice.push_back(o);
        r.max_time = std::max(r.max_time, time[t][o]);
        r.total_time += time[t][o];
        r.memory += memory[t][o];
        m -= units(memory[t][o]);
    }
    return r;
}

Gcmr::Result Gcmr::bruteForce(const std::vector<std::vector<double>>& time,
                              const std::vector<std::vector<uint64_t>>& memory,
                              const std::vector<uint64_t>& capacity, bool pooled) {
    checkShape(time, memory, capacity);
    const size_t S = time.size();
    uint64_t total_cap = 0;
    for (uint64_t c : capacity) total_cap += c;
    Result best;
    std::vector<size_t> c(S, 0);
    while (true) {
        double mx = 0, sum = 0;
        uint64_t mem = 0;
        bool ok = true;
        for (size_t s = 0; s < S; ++s) {
            mx = std::max(mx, time[s][c[s]]), sum += time[s][c[s]], mem += memory[s][c[s]];
            ok = ok && (pooled || memory[s][c[s]] <= capacity[s]);
        }
        ok = ok && mem <= total_cap;
        if (ok && (!best.feasible || mx < best.max_time ||
                   (mx == best.max_time && sum < best.total_time))) {
            best.feasible = true, best.choice = c, best.max_time = mx, best.total_time = sum;
            best.memory = mem;
        }
        size_t s = 0;
        while (s < S && ++c[s] == time[s].size()) c[s++] = 0;
        if (s == S) break;
    }
    return best;
}

}  // namespace wsc::firmware::llm
