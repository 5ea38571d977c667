#pragma once
// What one die computes of an operator under a parallel plan, for one micro-batch (the graph is
// built for the micro-batch of one data-parallel group): tensor parallelism splits columns, rows
// or heads; sequence parallelism (sp) splits tokens (attention still sees every key); Megatron
// sequence parallelism (seqpar) also splits the replicated token-wise operators across the TP
// group; expert parallelism places experts / ep on each die, each receiving the tokens its
// EP group routes to it; TATP splits tokens like sp and every linear operator's weights by
// output columns. docs/LLM.md, "Sharding", has every rule.
#include <cstdint>

#include "firmware/model/Operator.h"
#include "firmware/plan/ParallelPlan.h"

namespace wsc::firmware::llm {

struct OpShard {
    model::Operator op;     // the operator with the die's shapes (instances: experts on the die)
    uint64_t weight_elems;  // weights the die holds for it (before FSDP sharding)
    uint64_t in_elems, out_elems;   // activations read and written
    uint64_t flops_fwd, flops_bwd;  // the die's share
    // TATP (plan tatp > 1, a linear operator with its own weights): the die owns a column
    // block of `tatp_cols` output features of the weights (the LM head's vocabulary padded to
    // a multiple of tatp) and computes its tokens' outputs over tatp rounds, one column block
    // per round (firmware/temp/StreamSchedule, docs/TEMP.md "TATP in a plan").
    bool tatp = false;
    uint64_t tatp_cols = 0;
};

// Throws std::invalid_argument when the plan cannot split the operator (a degree not dividing
// the dimension it splits), naming the operator, the dimension and the degree.
OpShard shardOf(const model::Operator& op, const plan::ParallelPlan& p);

// Elements the die keeps for the operator's backward (every instance on the die): the
// operator's saved elements scaled by the die's share of its input (matrix operators) or of its
// elements (element-wise ones).
uint64_t savedElemsOnDie(const model::Operator& op, const OpShard& sh);

}  // namespace wsc::firmware::llm
