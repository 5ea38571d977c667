#pragma once
// `wsc llm search`: WATOS's GA (Sec. IV-D) over a training step's choices, each candidate a
// simulated `wsc llm train` run. It writes a sweep spec with a `search:` section (docs/SWEEPS.md)
// whose genes are the plan (tp x pp filling the wafer), the micro-batches, the recomputation
// policy, checkpoint offload, the placement and the inter-stage link allocation, and runs it with
// the sweep machinery (parallel processes, Slurm, resumable results). Before that, a pre-screen
// builds every (plan, micro-batches, recomputation, offload) combination's memory ledger (the
// exact one a run builds, milliseconds each) and excludes the ones that do not fit or cannot run,
// so the GA spends no simulation on them. Bad flags throw std::invalid_argument (exit 2).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace wsc::tb {

class LlmSearchCli {
  public:
    struct Options {
        std::string model, hw, out, executor = "local";
        uint64_t batch = 0, seq = 0;
        std::string plans;  // "tp=8,pp=7;tp=4,pp=14" ("": every tp x pp = the wafer's dies)
        std::string micro_batches = "8,16,32";
        std::string recompute = "none,uniform,gcmr", offload = "false,true";
        std::string placement = "ring,watos", pp_links = "routing,watos";
        uint32_t tp_max = 16;
        uint32_t population = 8, generations = 4, elite = 2, tournament = 2;
        double crossover = 0.8, mutation = 0.2;
        uint64_t seed = 1;
        uint32_t jobs = 0;
        std::string timeout = "7200 s";
        bool prescreen_only = false;  // write the spec and the pre-screen table, run nothing
    };
    // Adds `search` under the `llm` subcommand.
    static CLI::App* add(CLI::App* llm, Options& o);
    static int run(const Options& o, std::ostream& os);
};

}  // namespace wsc::tb
