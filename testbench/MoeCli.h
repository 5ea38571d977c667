#pragma once
// `wsc moe trace` (a seeded expert-selection trace in the JSON Lines format of docs/MOE.md),
// `wsc moe map` (MoEntwine's mappings and their full token domains on a die mesh) and `wsc moe
// balance` (balancers' run-time load traces over many iterations, MoEntwine Fig. 15). Bad input
// throws std::invalid_argument (exit 2).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace wsc::tb {

class MoeCli {
  public:
    // The gating model's flags, shared by `trace` and `balance` (each with its own defaults).
    struct Gating {
        std::string kind = "temporal";
        uint32_t experts = 32, top_k = 4, layers = 2, tokens = 8, iterations = 8, hot = 4;
        uint64_t seed = 15;
        double zipf_s = 1.0, hot_probability = 0.6, drift = 0.1;
    };
    struct Options {
        // trace
        Gating trace_gating;
        std::string out;
        // map
        std::string mesh = "4x4", mapping = "er";
        uint32_t dp = 4, tp = 4, wafers = 1;
        // balance (also --mesh, --mapping, --dp and --tp)
        Gating balance_gating{"temporal", 64, 8, 4, 1024, 40, 16, 15, 1.0, 0.5, 0.1};
        std::string balancers = "none,greedy,topo,ni", trace, svg, table;
        uint32_t slots = 1, beta = 10;
        double alpha = 0.5;
    };
    // Adds `moe` with `trace` and `map` under `app`; returns `moe`.
    static CLI::App* add(CLI::App& app, Options& o);
    static int run(CLI::App* moe, const Options& o, std::ostream& os);

  private:
    // --kind, --experts, --top-k, --layers, --tokens, --iterations, --seed, --zipf-s, --hot,
    // --hot-probability, --drift on `app`, their defaults shown.
    static void addGating(CLI::App* app, Gating& g, const std::string& hot_help);
    static int runBalance(const CLI::App* cmd, const Options& o, std::ostream& os);
};

}  // namespace wsc::tb
