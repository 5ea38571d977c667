#pragma once
// A model expanded into its operators for a given batch of sequences: the embedding, every
// distinct transformer block (dense, MoE) with how many layers repeat it, and the head (final
// norm, LM head, loss). Transformer layers of one kind are identical, which is what lets a run
// simulate each distinct block once and compose the step (docs/LLM.md).
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/Instruction.h"
#include "firmware/model/ModelConfig.h"
#include "firmware/model/Operator.h"

namespace wsc::firmware::model {

struct GraphShape {
    uint64_t sequences = 1;     // sequences in the batch the graph describes
    uint64_t seq_len = 1;       // tokens per sequence
    DType dtype = DType::FP16;  // weights and activations (mixed precision: fp32 optimizer)
    uint64_t tokens() const { return sequences * seq_len; }
};

struct Block {
    enum class Kind : uint8_t { Embedding, Dense, Moe, Head };
    Kind kind = Kind::Dense;
    std::string name;              // "embedding", "dense", "moe", "head"
    uint64_t repeat = 1;           // layers of this kind (1 for embedding and head)
    std::vector<uint64_t> layers;  // which layer indices (0-based) use it (empty: embedding/head)
    std::vector<Operator> ops;     // in forward order

    uint64_t params() const;  // weight elements of one block, every expert instance counted
    uint64_t fwdFlops() const;
    uint64_t bwdFlops() const;  // dX + dW
    uint64_t savedElems() const;
    const Operator* find(const std::string& op) const;
};

class LayerGraph {
  public:
    // Throws std::invalid_argument when the shape cannot be built (zero sizes, a sequence
    // longer than max_positions, heads not dividing hidden, ...), naming the field.
    static LayerGraph build(const ModelConfig& m, const GraphShape& s);

    const ModelConfig& model() const { return model_; }
    const GraphShape& shape() const { return shape_; }
    const Block& embedding() const { return blocks_.front(); }
    const Block& head() const { return blocks_.back(); }
    // Embedding first, head last, the distinct transformer blocks in between.
    const std::vector<Block>& blocks() const { return blocks_; }
    // The block layer `l` (0-based) runs.
    const Block& layer(uint64_t l) const;

    // Every parameter of the model (embedding, all layers with every expert, head unless tied).
    uint64_t params() const;
    // Parameters outside the embedding table and LM head (the "N" of 6 N T).
    uint64_t nonEmbeddingParams() const;
    // Parameters one token activates (MoE: top-k routed experts plus shared ones).
    uint64_t activeParams() const;
    // Whole-model FLOPs for the graph's batch: forward, and forward + backward (training).
    uint64_t fwdFlops() const;
    uint64_t trainFlops() const;

  private:
    ModelConfig model_;
    GraphShape shape_;
    std::vector<Block> blocks_;
};

}  // namespace wsc::firmware::model
