#pragma once
// The `workload: {type: llm}` map of a scenario (docs/CONFIG.md, docs/LLM.md): what `wsc llm
// train|infer` takes on its command line, so a scenario file runs an LLM step with `wsc run`.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/model/ModelConfig.h"
#include "firmware/plan/ParallelPlan.h"

namespace wsc::firmware::llm {

struct LlmWorkload {
    bool train = true;       // mode: train | infer
    std::string model_path;  // resolved against the scenario file's folder
    model::ModelConfig model;
    plan::ParallelPlan plan;
    std::string placement = "ring";        // a named policy, or "list"
    std::vector<uint32_t> placement_list;  // placement "list": the die of every rank
    uint64_t batch = 1;
    uint64_t seq = 0;       // train: tokens per sequence; infer: prompt tokens
    uint64_t generate = 0;  // infer: tokens decoded after the prefill
    std::string dtype = "fp16";
    std::string memory = "bandwidth";  // bandwidth | hbm
    bool full = false;
    std::string recompute = "none";    // train: none, uniform or gcmr (RecomputePlanner)
    bool offload = false;              // train: checkpoint offload (watos::OffloadPlanner)
    std::string pp_links = "routing";  // train: routing or watos (watos::LinkAllocator, Fig. 13)
    uint64_t seed = 1;
};

}  // namespace wsc::firmware::llm
