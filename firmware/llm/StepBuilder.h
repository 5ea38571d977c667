#pragma once
// Builds the per-die instruction streams of one LLM step (training step, prefill or one decode
// token) for a model, a parallel plan and a placement: the layer graph sharded per die, the
// pipeline schedule (1F1B for training, micro-batches in order for inference), the compute
// lowering (DieEmitter), the collectives of every parallel dimension on their own streams
// (firmware/collectives), pipeline transfers, and every die's memory ledger. docs/LLM.md has the
// schedule, the streams, the sharding and the collectives each dimension needs.
//
// A build covers `layers` transformer layers per pipeline stage (the first ones of each stage,
// at most the stage's own)
// plus the embedding (first stage) and the head (last stage); StepComposer composes the whole
// model from builds of 1 and 2 layers per stage, or a build of every layer is simulated whole.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "firmware/Firmware.h"
#include "firmware/llm/DieSpec.h"
#include "firmware/llm/ExpertRouter.h"
#include "firmware/llm/MemoryLedger.h"
#include "firmware/model/LayerGraph.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/ParallelPlan.h"

namespace wsc::firmware::llm {

// Training: checkpoint offload (WATOS's memory scheduler; docs/LLM.md, "Checkpoint offload"). A
// Sender stage sends the kept activations of its first `layers[stage]` transformer layers of every
// micro-batch to its Helper stages once their forward is done and takes them back when that
// micro-batch's backward starts; rank t of the Sender stage pairs with rank t of each Helper
// stage, which stores `share` of every such tensor (a Sender's shares sum to 1).
struct OffloadPair {
    uint32_t sender = 0, helper = 0;  // pipeline stages
    double share = 1.0;
};
struct OffloadSpec {
    std::vector<uint64_t> layers;  // per stage; 0: the stage keeps its activations
    std::vector<OffloadPair> pairs;
    bool empty() const { return pairs.empty(); }
};

struct StepSpec {
    enum class Mode : uint8_t { Train, Prefill, Decode };
    Mode mode = Mode::Train;
    uint64_t batch = 1;  // sequences per step, over all data-parallel groups
    uint64_t seq = 1;    // tokens per sequence (train, prefill); decode: tokens already cached
    DType dtype = DType::FP16;
    uint64_t layers = 0;    // transformer layers built per stage (0: all of the stage's)
    bool optimizer = true;  // train: the Adam update after the last backward
    // Inference with ep > 1: the tokens' chosen experts and the experts' copies (ExpertRouter).
    // Null: every expert gets tokens x k / E rows (balanced routing).
    std::shared_ptr<const ExpertRouting> routing;
    // Training: per pipeline stage, the RecomputeBlock mask applied to every transformer layer
    // of the stage (dropped saved tensors, re-run before their segment's backward). Empty: every
    // operator keeps its saved tensors.
    std::vector<uint64_t> recompute;
    OffloadSpec offload;
    // Inference: overlap micro-batches (MoEntwine Fig. 11e): each operator for every micro-batch
    // in turn, micro-batch i's collectives on their own stream while compute runs the next one.
    // Needs pp = 1 and mb >= 2; every micro-batch in flight keeps its own activation scratch.
    bool overlap = false;
    // Inference, MoEntwine's hierarchical ER-Mapping (Fig. 10(c)) over this many wafers (> 1; the
    // plan's dp groups split evenly, wafer w holding groups w dp/W .. (w+1) dp/W - 1): before an
    // MoE layer the attention's all-reduce becomes a reduce-scatter in each TP group and an
    // all-gather among the ranks at the same place on every wafer, the all-to-alls stay inside
    // each wafer, and after the combine a reduce-scatter across the wafers and an all-gather in
    // the TP group restore every rank's tokens (docs/LLM.md, "Expert parallelism").
    uint32_t her_wafers = 0;
};
const char* modeName(StepSpec::Mode m);

// A collective (or transfer) as it appears in one die's program: its stream, its instructions
// [pc_begin, pc_end), what it is (for reports and the Perfetto tracks).
struct CommRecord {
    uint32_t die = 0;
    uint32_t stream = 0;
    uint32_t pc_begin = 0, pc_end = 0;
    std::string kind;    // "tp all-reduce", "dp all-reduce", "pp send", ...
    std::string label;   // "mb 2 layer 0 attn.out"
    uint64_t bytes = 0;  // this die's tensor
};
// A wait of the compute stream for a communication stream: cycles stalled there are that
// kind's exposed communication.
struct WaitRecord {
    uint32_t die = 0;
    uint32_t pc = 0;
    std::string kind;
};

struct StepProgram {
    Firmware fw;
    MemoryLedger ledger{0, 0};
    std::vector<uint32_t> rank_die;  // die (NoC node) of every rank
    std::vector<CommRecord> comms;
    std::vector<WaitRecord> waits;
    uint64_t layers_per_stage = 0;    // built
    uint64_t model_flops = 0;         // FLOPs of the model in this build (all dies)
    uint64_t die_flops_max = 0;       // the busiest die's FLOPs in this build
    std::vector<uint64_t> die_flops;  // per rank: FLOPs executed, re-runs included
    uint64_t recompute_flops = 0;     // of them, re-run by recomputation (all dies)
    // Checkpoint offload, per stage: the most bytes one rank of a Sender stage holds on its
    // helpers at once (over all its pairs; 0 for other stages).
    std::vector<uint64_t> offload_held;
    std::vector<uint64_t> sram_bytes;  // per die
    // Expert migration (ExpertRouting::migrations) in this build: parts and bytes moved.
    uint64_t migration_parts = 0, migration_bytes = 0;
    // HBM bytes of every die's compute lowering by operator ("mlp.up bwd", "attention fwd",
    // "optimizer", "pipeline transfer"); collectives' staging is not included.
    std::map<uint32_t, std::map<std::string, uint64_t>> hbm_by_op;
    std::string notes;
};

class StepBuilder {
  public:
    // Throws std::invalid_argument for a plan that does not fit the model, the batch or the
    // wafer, with the arithmetic shown.
    StepBuilder(const model::ModelConfig& m, const plan::ParallelPlan& p,
                std::vector<uint32_t> rank_die, const placement::DieArray& dies, const DieSpec& die,
                const StepSpec& s);

    // Layers per stage of the whole model: the most any stage has (stages differ by one when pp
    // does not divide the layers; the later stages take the extra ones).
    uint64_t stageLayers() const;
    static uint64_t stageLayers(const model::ModelConfig& m, uint32_t pp, uint32_t stage);
    static uint64_t firstLayer(const model::ModelConfig& m, uint32_t pp, uint32_t stage);
    // The step with `layers` layers per stage (0: all). The ledger is filled, not checked.
    // emit = false walks the same schedule for the ledger and the FLOPs only (no instructions,
    // no collectives): the memory of a whole model in milliseconds instead of minutes.
    StepProgram build(uint64_t layers, bool emit = true) const;
    // The graph of one micro-batch of one data-parallel group.
    const model::LayerGraph& graph() const { return graph_; }
    uint64_t microBatchSequences() const { return mb_sequences_; }
    // Whole-step model FLOPs (the graph's, times micro-batches and data-parallel groups).
    uint64_t stepModelFlops() const;
    uint64_t stepTokens() const;

  private:
    model::ModelConfig model_;
    plan::ParallelPlan plan_;
    std::vector<uint32_t> rank_die_;
    placement::DieArray dies_;
    DieSpec die_;
    StepSpec spec_;
    uint64_t mb_sequences_ = 0;
    model::LayerGraph graph_;
};

}  // namespace wsc::firmware::llm
