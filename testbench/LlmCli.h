#pragma once
// The `wsc llm train|infer` subcommand and `wsc bench llm` (testbench/LlmTestbench), kept out of
// main.cpp. Bad input (flags, model file, plan, placement, a plan that does not fit in memory)
// throws std::invalid_argument or hw::ConfigError (exit 2).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "firmware/llm/RoutingSource.h"
#include "firmware/model/ModelConfig.h"
#include "hw/ScenarioConfig.h"
#include "testbench/RunProvenance.h"

namespace wsc::tb {

class LlmCli {
  public:
    struct Options {
        std::string model, hw, plan, placement = "ring", mapping, compare, compare_mappings,
                                     memory = "bandwidth";
        std::vector<uint32_t> placement_list;  // placement "list" (a scenario's YAML list)
        uint64_t batch = 0, seq = 0, prompt = 0, generate = 0, micro_batches = 0, seed = 1;
        std::string kv = "shift";  // infer on a core mesh: WaferLLM's KV cache policy
        // infer on a core mesh: word-hops per layer up to which the prefill is simulated directly
        // (beyond: extrapolated from smaller blocks; CoreDecodeRun::Request)
        uint64_t prefill_word_hops = 300'000'000;
        std::string dtype = "fp16";
        std::string recompute = "none";  // train: none, uniform or gcmr
        bool full = false, memory_only = false;
        bool offload = false;  // train: checkpoint offload to stages with free memory
        std::string stats, heatmap, perfetto, table;
        std::string perfetto_unit = "ns";
        std::string bench_out, bench_root = ".";
        bool bench_quick = false;
        const RunProvenance* provenance = nullptr;  // the --stats header (main sets it)
        std::vector<std::string> set;               // --set overrides of the --hw file
        // Expert routing (infer): as typed, so a knob given without its source is refused.
        std::string gating, gating_seed, zipf_s, hot_experts, hot_probability, drift, trace,
            iteration, balancer, expert_slots;
        bool no_migration = false;
        bool overlap = false;  // infer: overlapped micro-batches
        // Placement tcme: what TCME may change and how it weighs links, as typed ("": not given,
        // reorder,reroute and flows).
        std::string tcme_moves, tcme_cost;
        std::string pp_links = "routing";
        bool tcme_moves_given = false, tcme_cost_given = false;  // even as an empty string
    };
    static CLI::App* add(CLI::App& app, Options& o);
    static CLI::App* addBench(CLI::App* bench, Options& o);
    static int run(CLI::App* llm, const Options& o, std::ostream& os);
    // `wsc run` of a scenario with `workload: {type: llm}` (outputs from the run's flags).
    static int runScenario(const hw::ScenarioConfig& sc, const std::string& scenario_file,
                           const std::string& stats, const std::string& heatmap,
                           const std::string& perfetto, const RunProvenance& provenance,
                           std::ostream& os);
    // `wsc bench llm`: every committed plan of docs/results/llm_training.md as its own process
    // (peak RSS is per process), its wall time, peak RSS and the step's figures in one table.
    static int runBench(const Options& o, std::ostream& os);
    // The routing flags of `wsc llm infer` (refusing knobs given without their source).
    static firmware::llm::RoutingOptions routingOptions(const Options& o);

  private:
    static int runWith(const Options& o, bool train, const hw::HardwareConfig& hwc,
                       const firmware::model::ModelConfig& model, std::ostream& os);
};

}  // namespace wsc::tb
