#pragma once
// TEMP's TATP for one linear operator of an LLM step, on one group of N dies whose chain order
// is the group's (positions 0..N-1, neighbours one D2D hop apart on a physical ring or line):
// the dies' weights are column blocks W_p (K x C), their tokens row blocks I_p (T x K), and the
// weight blocks stream (docs/TEMP.md, "TATP in a plan"):
//   forward   O_p[:, j] = I_p W_j          broadcast of W over N rounds
//   backward  dI_p += dO_p[:, j] W_j^T      broadcast of W again
//   gradient  dW_j += I_p^T dO_p[:, j]     reduce: partials travel to their owner j
// Round r of position p computes with the item StreamSchedule::computeItem(p, r) gives; the
// round's transfers (one chain hop each, both directions) run in the two pipeline streams
// (kPipeComm towards position p + 1, kPipeBack towards p - 1) beside the product. Rounds are
// ordered by the compute <-> stream semaphores: a stream starts round r once compute finished
// round r - 1 (so a received item's buffer is free, and a reduce partial is computed), and
// compute starts round r once both streams finished round r - 1 (so the item it needs is in).
// Received items live in HBM slots (StreamSchedule::slots colours them); every operand is in
// HBM and every product a DieEmitter::matrix of T x K x C (forward) tiles.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/llm/DieEmitter.h"
#include "firmware/temp/StreamSchedule.h"

namespace wsc::firmware::llm {

class TatpLowering {
  public:
    using Stage = temp::OperatorStage;

    // The operator as one die sees it: T tokens, K input features, C output columns per block.
    struct Shape {
        uint64_t tokens = 0, in = 0, cols = 0;
        uint32_t elem_bytes = 2;
    };
    // One die's operands in HBM.
    struct DieMem {
        uint64_t input = 0;           // I_p (forward, gradient) or dO_p (backward)
        uint64_t output = 0;          // O_p (forward), dI_p (backward)
        uint64_t weights = 0;         // W_p
        uint64_t grads = 0;           // dW_p
        uint64_t dout = 0;            // dO_p (gradient)
        std::vector<uint64_t> slots;  // received items and partials
    };
    struct Comm {  // a direction's transfers of one die in one stage, for the step's records
        uint32_t die = 0, stream = 0;
        uint32_t begin = 0, end = 0;  // instruction indices in the stream
        uint64_t bytes = 0;
    };

    static const char* name(Stage s) { return temp::stageName(s); }
    // The item schedule of a stage over N positions (weight streaming).
    static temp::StreamSchedule schedule(Stage s, uint32_t n);
    // HBM slots position p needs over all three stages (the ledger's TATP buffers).
    static uint32_t slots(uint32_t n);
    // Bytes of one streamed item (a weight or weight-gradient block).
    static uint64_t itemBytes(const Shape& s) { return s.in * s.cols * s.elem_bytes; }

    // Emits `stage` on every die of the chain (chain[p] the emitter of position p, mem[p] its
    // operands). `accumulate`: the gradient adds onto dW (a later micro-batch). Returns the
    // per-die stream records and appends the compute stream's waits for the streams (pc of each
    // wait, per die) to `waits`.
    static std::vector<Comm> emit(Stage stage, const std::vector<DieEmitter*>& chain,
                                  const std::vector<DieMem>& mem, const Shape& shape,
                                  bool accumulate,
                                  std::vector<std::pair<uint32_t, uint32_t>>& waits);
};

}  // namespace wsc::firmware::llm
