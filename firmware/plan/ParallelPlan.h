#pragma once
// A parallel plan: how many dies each parallel dimension takes, and how the batch is cut into
// micro-batches. Dimensions (TEMP Sec. II, WATOS Sec. II, MoEntwine Sec. II):
//   dp    data parallel: replicas hold every weight; gradients are all-reduced after backward
//   fsdp  fully sharded data parallel (ZeRO-3): weights, gradients and optimizer states are
//         sharded; weights are all-gathered before use, gradients reduce-scattered after
//   tp    Megatron tensor parallel: column/row splits with their all-reduces (with `seqpar`,
//         Megatron sequence parallelism: reduce-scatter + all-gather instead, norms and
//         residuals on sequence shards)
//   sp    sequence (context) parallel: each rank holds a slice of every sequence; attention
//         all-gathers K and V across the group and reduce-scatters their gradients
//   pp    pipeline stages of consecutive layers, fed micro-batches (1F1B)
//   ep    expert parallel (MoE): the routed experts are spread over ep ranks of a stage
//   tatp  TEMP's tensor-stream partition: every linear operator's weights and tokens are split
//         over the group, and sub-tensors stream one hop per round in both directions (TATP)
//         so each die computes one sub-output per round; attention gathers K and V across the
//         group like sp (docs/TEMP.md, "TATP in a plan")
// The dies a plan needs are dp x fsdp x tp x tatp x sp x pp; ep divides a stage's ranks.
#include <cstdint>
#include <string>

namespace wsc::firmware::plan {

struct ParallelPlan {
    uint32_t dp = 1, fsdp = 1, tp = 1, sp = 1, pp = 1, ep = 1, tatp = 1;
    bool seqpar = false;         // Megatron sequence parallelism inside the TP group
    uint32_t micro_batches = 0;  // 0: pp micro-batches (1 without pipelining)

    uint64_t dies() const { return uint64_t(dp) * fsdp * tp * tatp * sp * pp; }
    uint64_t stageRanks() const { return uint64_t(dp) * fsdp * tp * tatp * sp; }
    // Ways every token-wise tensor is split inside a data-parallel group (sp x tatp).
    uint32_t tokenWays() const { return sp * tatp; }
    uint32_t microBatches() const { return micro_batches ? micro_batches : pp; }
    // Data-parallel width: the ways the batch is split (dp x fsdp).
    uint32_t dataWays() const { return dp * fsdp; }

    // "dp=2,tp=4,pp=4,mb=8,seqpar". Keys: dp fsdp tp sp pp ep tatp mb (micro-batches) and the flag
    // seqpar; each at most once, degrees >= 1. Throws std::invalid_argument naming the item.
    static ParallelPlan parse(const std::string& text);
    // The canonical text (only the degrees that are not 1), e.g. "dp=2,tp=4,pp=4,mb=8".
    std::string str() const;
    // "dp=2 x tp=4 x pp=2 = 16 dies" for messages.
    std::string arithmetic() const;
};

bool operator==(const ParallelPlan& a, const ParallelPlan& b);

}  // namespace wsc::firmware::plan
