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
    // Tokens already in the KV cache before these seq_len (decode: seq_len 1, past_len = context
    // so far). Attention then spans past_len + seq_len keys. 0 for training and prefill.
    uint64_t past_len = 0;
    // Causal attention computes only the unmasked part of each score matrix (query i attends
    // past_len + i + 1 keys): FLOPs count those pairs, about half the square. false: the full
    // square is computed (what Megatron's MFU formula counts).
    bool skip_masked = true;
    // FlashAttention-style fused attention: the score matrix is never stored (softmax keeps
    // one fp32 log-sum-exp per row), and backward recomputes Q K^T and the softmax. false: the
    // standard implementation of Korthikanti et al. (2022) that stores the score matrix.
    bool flash_attention = false;
    // Apply the model's dropout (training): masks are kept for backward where the model file
    // sets a dropout probability > 0. false for inference.
    bool dropout = true;
    uint64_t tokens() const { return sequences * seq_len; }
    uint64_t keys() const { return past_len + seq_len; }  // key positions per query row
};

struct Block {
    enum class Kind : uint8_t { Embedding, Dense, Moe, Head };
    Kind kind = Kind::Dense;
    std::string name;              // "embedding", "dense", "moe", "head"
    uint64_t repeat = 1;           // layers of this kind (1 for embedding and head)
    std::vector<uint64_t> layers;  // which layer indices (0-based) use it (empty: embedding/head)
    std::vector<Operator> ops;     // in forward order

    uint64_t params() const;        // weight elements of one block, every expert instance counted
    uint64_t activeParams() const;  // routed experts: top-k of them (what one token uses)
    uint64_t fwdFlops() const;
    uint64_t bwdFlops() const;  // dX + dW
    uint64_t savedElems() const;
    uint64_t savedMaskElems() const;                  // dropout masks, 1 B each
    uint64_t savedBytes(uint64_t dtype_bytes) const;  // activation memory of one layer
    const Operator* find(const std::string& op) const;
    uint32_t experts_per_token = 0;  // MoE blocks: top-k (for activeParams)
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
    uint64_t params() const { return params_; }
    // Parameters outside the embedding table and LM head (the "N" of 6 N T).
    uint64_t nonEmbeddingParams() const { return non_embedding_params_; }
    // Parameters one token activates (MoE: top-k routed experts plus shared ones).
    uint64_t activeParams() const { return active_params_; }
    // Parameters of the embedding tables (tokens, learned positions).
    uint64_t embeddingParams() const { return embedding_params_; }
    // Whole-model FLOPs for the graph's batch: forward, and forward + backward (training).
    uint64_t fwdFlops() const { return fwd_flops_; }
    uint64_t trainFlops() const { return train_flops_; }
    // Activation memory of the whole model for the graph's batch without recomputation: every
    // layer's saved tensors plus embedding and head, at the graph's dtype (masks 1 B/element).
    uint64_t savedBytes() const { return saved_bytes_; }

  private:
    ModelConfig model_;
    GraphShape shape_;
    std::vector<Block> blocks_;
    std::vector<uint32_t> layer_block_;  // layer -> index into blocks_
    // Totals, computed once by build() with overflow checks.
    uint64_t params_ = 0, non_embedding_params_ = 0, active_params_ = 0, embedding_params_ = 0;
    uint64_t fwd_flops_ = 0, train_flops_ = 0, saved_bytes_ = 0;
};

}  // namespace wsc::firmware::model
