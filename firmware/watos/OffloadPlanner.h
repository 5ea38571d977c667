#pragma once
// WATOS's memory scheduler as a step's checkpoint offload (docs/LLM.md, "Checkpoint offload"):
// which pipeline stages are Senders, how many of their layers' kept activations leave per
// micro-batch, and which Helper stages store how much of them. Plain C++, no SystemC; the
// caller supplies accounting builds (StepBuilder::build without instructions) and the cost of a
// Sender -> Helper path.
//
// 1. The stages' peaks without offload (recomputation already chosen): a stage above the die's
//    capacity is a Sender.
// 2. Each Sender offloads its first k layers (the ones its backward needs last, so their reload
//    has the longest to hide): k is the least with which its peak fits, found from accounting
//    builds with k = 1, 2, ... layers offloaded by every Sender at once (the stages' ledgers are
//    independent). What a Sender then holds on its helpers at once (its in-flight micro-batches'
//    pieces, StepProgram::offload_held) is its demand.
// 3. MemoryBalancer (WATOS Algorithm 3) places each Sender's demand in the other stages' free
//    memory, cheapest path first; each allocation becomes a pair whose share is its bytes over
//    the demand.
// 4. A last accounting build with the pairs checks every stage, Helpers with their regions.
// A plan that cannot fit says why: a Sender that does not fit with every layer offloaded, no
// stage to help, or the Helpers' free memory short of the demand.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "firmware/llm/StepBuilder.h"
#include "firmware/watos/MemoryBalancer.h"

namespace wsc::firmware::watos {

class OffloadPlanner {
  public:
    // What an accounting build gives under an offload: every stage's extent (the highest of its
    // dies' MemoryLedger::extent: peak with fragmentation, above capacity when something did not
    // fit) and what each Sender stage holds on helpers (StepProgram::offload_held).
    struct Figures {
        std::vector<uint64_t> extent;
        std::vector<uint64_t> held;
    };
    using Accounting = std::function<Figures(const llm::OffloadSpec&)>;
    // Cost of a Sender stage's data in a Helper stage (MemoryBalancer::CostFn over stages).
    using CostFn = MemoryBalancer::CostFn;

    struct Plan {
        bool feasible = true;
        llm::OffloadSpec spec;         // empty when every stage fits by itself
        BalanceResult balance;         // over stages
        std::vector<uint64_t> before;  // per stage: extent without offload
        std::vector<uint64_t> after;   // per stage: extent with the offload (Helpers' regions in)
        std::vector<uint64_t> held;    // per stage: bytes a Sender's rank holds on helpers
        std::string why;               // infeasible: what does not fit
    };

    // `stage_layers`: transformer layers of every stage; `capacity`: a die's memory.
    static Plan plan(const Accounting& account, const std::vector<uint64_t>& stage_layers,
                     uint64_t capacity, const CostFn& cost);
    // One line per pair for reports: "stage 0 -> stage 7: 3 layers, 41.2% (12.00 GB per die)".
    static std::vector<std::string> describe(const Plan& p);
};

}  // namespace wsc::firmware::watos
