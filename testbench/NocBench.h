#pragma once
// `wsc bench noc`: simulation speed of the NoC model. Each case runs in a forked child so its
// peak RSS is its own (and SystemC elaborates once per process). Reports simulated cycles/s,
// flit-router traversals/s and peak RSS; results go to stdout as a markdown table. With
// repeats, the thread counts of one case run in turn, round after round (1, 2, then 2, 1,
// ...), so a host whose speed drifts slows them about alike; the table gives the median, and a
// second table gives each round's speed-up over one thread, the fastest run's over the fastest
// run's (on a shared host the least disturbed of each), and whether every count gave the same
// results.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace wsc::tb {

class NocBench {
  public:
    struct Case {
        uint32_t k;   // k x k mesh
        double rate;  // flits/node/cycle
        uint64_t warmup, measure;
        unsigned threads = 1;  // Network::setThreads
        // A fixed cycle budget: exactly warmup + measure cycles, no drain and no warm-up raised
        // to the zero-load latency (a mesh whose packets outlive the run: the 1024x1024 case).
        bool fixed = false;
    };
    struct Row {
        Case c;
        uint64_t cycles = 0;
        double wall = 0;   // simulating (building excluded)
        double build = 0;  // building the network and generator
        double traversals = 0;
        double accepted = 0;
        long rss_kb = 0;
        bool ok = false;
        std::string error;
    };
    // The committed table's cases; `meshes` (if not empty) keeps those sizes, `threads` (if not
    // empty) runs every kept case at each of these thread counts instead of its own.
    static std::vector<Case> defaultCases(bool quick, const std::vector<uint32_t>& meshes = {},
                                          const std::vector<unsigned>& threads = {});
    static Row runCase(const Case& c);  // in a child process
    // `repeat` runs of each case (at least 1).
    static void run(std::ostream& os, const std::vector<Case>& cases, unsigned repeat = 1);

    // What run() prints of a group of cases (the same work at different thread counts) and
    // their runs, round by round: the table's rows (medians), and the speed-up table's rows,
    // one per thread count other than 1 (none without a one-thread case).
    struct Result {
        Case c;
        std::vector<Row> runs;
    };
    static std::string tableRows(const std::vector<Result>& group);
    static std::string speedupRows(const std::vector<Result>& group);
};

}  // namespace wsc::tb
