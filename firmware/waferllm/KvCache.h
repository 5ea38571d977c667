#pragma once
// Where a decode's KV cache lives on a core mesh, row by row (WaferLLM Sec. 4.3, Fig. 5): the
// sequence is split over `rows` core rows (row 0 the oldest tokens, each row a contiguous range),
// the features over the columns. Two policies for a new token:
// - Concat (PagedAttention's, as on a GPU): the new token's K and V join the last row, so that
//   row's cores hold, and attend over, every generated token.
// - Shift (WaferLLM): the new token joins the last row and then, where a row holds more than the
//   row above, the row passes its oldest token up, cascading to the first row with fewer: the rows
//   stay within one token of each other (the extra tokens on the first rows), every move is one
//   hop and all of a step's moves run in parallel.
// Plain C++, no NoC: the decode-attention schedule asks it what each row holds and sends.
#include <cstdint>
#include <string>
#include <vector>

namespace wsc::firmware::waferllm {

class KvCache {
  public:
    enum class Policy { Concat, Shift };
    static Policy parse(const std::string& name);  // "concat" | "shift"
    static const char* name(Policy p);

    // After the prefill the prompt's tokens are split evenly, the first `prompt % rows` rows
    // taking one more (the layout the shift keeps).
    KvCache(Policy p, uint32_t rows, uint64_t prompt);

    // A token's K and V leaving row `from` for the row above (to = from - 1).
    struct Move {
        uint32_t from = 0, to = 0;
    };
    // One decode step: the new token joins the last row; Shift then passes the oldest token of
    // every row of the cascade up. Returns that step's moves (none under Concat).
    std::vector<Move> append();
    // The state after n more appends (closed form: the counts do not depend on the path).
    void advance(uint64_t n);

    Policy policy() const { return policy_; }
    uint32_t rows() const { return uint32_t(counts_.size()); }
    uint64_t count(uint32_t row) const { return counts_[row]; }
    const std::vector<uint64_t>& counts() const { return counts_; }
    uint64_t tokens() const { return tokens_; }
    uint64_t maxCount() const;
    // Index (in sequence order) of the oldest token on `row`.
    uint64_t first(uint32_t row) const;
    // The moves the next append() would make, without making them.
    std::vector<Move> nextMoves() const;
    // Tokens each row attends over in the next step (the last row also the new one's), checked:
    // every row must hold a token (else the error names the prompt it needs; `prompt` and
    // `generated` describe this state) and d features of a row's tokens must fit a buffer.
    // `who` ("decode attention (shift)") starts the errors.
    std::vector<uint64_t> stepTokens(const std::string& who, uint32_t d, uint64_t prompt,
                                     uint64_t generated) const;

    // Tokens that can be decoded after the prompt before some row would hold more than
    // `row_capacity` tokens (0 if the prompt alone does not fit).
    static uint64_t maxGenerate(Policy p, uint32_t rows, uint64_t prompt, uint64_t row_capacity);

  private:
    Policy policy_;
    std::vector<uint64_t> counts_;
    uint64_t tokens_ = 0;
};

}  // namespace wsc::firmware::waferllm
