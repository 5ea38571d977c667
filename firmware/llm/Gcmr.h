#pragma once
// WATOS Algorithm 2's dynamic programme (globally coordinated memory-efficient recomputation):
// every pipeline stage picks one recomputation option; an option costs the stage memory and
// time; the programme minimises the slowest stage's time (1F1B runs at the pace of its slowest
// stage) under the dies' memory, walking from the last stage backwards over the memory given
// to the stages after it. docs/LLM.md, "Recomputation".
//
// Memory is counted in units of `grain` bytes (each option's memory rounded up), so the table
// has stages x (budget / grain) cells. With `pooled` false every stage must fit its own
// capacity (no offload); with `pooled` true only the stages' sum must fit the sum of their
// capacities (Algorithm 2 as printed: a stage may exceed its die and becomes a Sender whose
// overflow a Helper stage stores).
//
// Among the assignments with the least maximum, a second pass picks the one with the least
// total time, so a stage that is not the slowest does not recompute more than it must.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace wsc::firmware::llm {

class Gcmr {
  public:
    struct Result {
        bool feasible = false;
        std::vector<size_t> choice;  // option per stage
        double max_time = 0, total_time = 0;
        uint64_t memory = 0;  // sum of the chosen options' memory
    };
    // time[s][o], memory[s][o]: stage s under option o. capacity[s]: its dies' memory.
    static Result solve(const std::vector<std::vector<double>>& time,
                        const std::vector<std::vector<uint64_t>>& memory,
                        const std::vector<uint64_t>& capacity, bool pooled, uint64_t grain);
    // Every assignment tried (tests, and small cases): the same objective, exact memory.
    static Result bruteForce(const std::vector<std::vector<double>>& time,
                             const std::vector<std::vector<uint64_t>>& memory,
                             const std::vector<uint64_t>& capacity, bool pooled);
};

}  // namespace wsc::firmware::llm
