#pragma once
// The `wsc llm train|infer` subcommand and `wsc bench llm` (testbench/LlmTestbench), kept out of
// main.cpp. Bad input (flags, model file, plan, placement, a plan that does not fit in memory)
// throws std::invalid_argument or hw::ConfigError (exit 2).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace wsc::tb {

class LlmCli {
  public:
    struct Options {
        std::string model, hw, plan, placement = "ring", compare, memory = "bandwidth";
        uint64_t batch = 0, seq = 0, prompt = 0, generate = 0, micro_batches = 0, seed = 1;
        std::string dtype = "fp16";
        bool full = false;
        std::string stats, heatmap, perfetto, table;
        std::string bench_out;
    };
    static CLI::App* add(CLI::App& app, Options& o);
    static CLI::App* addBench(CLI::App* bench, Options& o);
    static int run(CLI::App* llm, const Options& o, std::ostream& os);
    static int runBench(const Options& o, std::ostream& os);
};

}  // namespace wsc::tb
