#pragma once
// `wsc tatp`: one linear operator's tensor-stream step (TATP or the naive ring TSPP) on every
// group of a die-level wafer (testbench/TatpTestbench), one run or a table over algorithms,
// layouts and group sizes. Bad flags throw UsageError (testbench/CliArgs), a layout or shape that
// cannot be made std::invalid_argument, a bad hardware file hw::ConfigError: exit 2 for all.
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace wsc::tb {

class TatpCli {
  public:
    struct Options {
        std::string hw = "configs/temp_4x8_die_level.yaml";
        std::vector<std::string> set;  // --set overrides of the --hw file
        std::string algo = "tatp", layout = "ring", n = "4", stream = "auto";
        std::string stages = "forward,backward,gradient", dtype = "fp16", table;
        uint32_t m = 0, h = 0, k = 0;
        std::string fsdp, mapping = "smap";
        std::string tcme_moves = "reorder,reroute,merge";
        uint32_t fsdp_elems = 0;
        std::string heatmap;  // link heatmap (SVG) per run
        bool timing_only = false;
        uint64_t seed = 1;
    };
    static CLI::App* add(CLI::App& app, Options& o);
    // Returns the exit code (1 if a functional check failed). `c` is the parsed subcommand.
    static int run(const CLI::App* c, const Options& o, std::ostream& os);
};

}  // namespace wsc::tb
