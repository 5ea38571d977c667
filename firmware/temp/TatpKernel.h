#pragma once
// One linear operator's training step under TEMP's tensor-stream partition, as firmware for every
// die of every group: forward O = I W, backward dI = dO W^T and gradient dW = I^T dO (TEMP Eq. 1),
// each run as the rounds of a StreamSchedule (TATP or the naive ring) over the group's chain.
// Operands sit in SRAM before the run (as the WaferLLM kernels are measured); sends and receives
// go straight to the neighbour die (XY routing, so a non-adjacent chain step or the ring's wrap
// crosses several routers and may share links with other groups).
//
// Selective transfer (TEMP Sec. V): the smaller of W (h x k) and I (m x h) is streamed.
//  - weight streaming (k <= m): die p keeps I_p (rows of I), dO_p and its output rows; forward and
//    backward broadcast the column blocks W_j, the gradient reduces the partial sums of dW_j onto
//    die j. O and dI are split by rows like I.
//  - input streaming (m < k): die p keeps W_p (columns of W) and dO's column block p; forward
//    broadcasts the row blocks I_j, backward reduces the partials of dI_j onto die j, the gradient
//    broadcasts I_j^T (the input as the backward keeps it). O is split by columns like W.
// docs/TEMP.md lists every buffer and instruction.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "firmware/Firmware.h"
#include "firmware/KernelPlan.h"
#include "firmware/placement/Placement.h"
#include "firmware/temp/GroupLayout.h"
#include "firmware/temp/StreamSchedule.h"

namespace wsc::firmware::temp {

class TatpKernel {
  public:
    using Stage = OperatorStage;
    enum class Stream { Weight, Input };

    struct Spec {
        StreamSchedule::Algo algo = StreamSchedule::Algo::Tatp;
        Stream stream = Stream::Weight;
        uint32_t m = 64, h = 64, k = 64;  // per group: I [m x h], W [h x k]
        DType dtype = DType::FP16;        // operand bytes and PE timing (values are fp32)
        std::vector<Stage> stages{Stage::Forward, Stage::Backward, Stage::Gradient};
        // FSDP ring all-gathers running at the same time on stream 1 (TEMP Fig. 11): each die
        // of a group (ring order) contributes `fsdp_elems` and ends with the whole group's.
        std::vector<GroupLayout::Group> fsdp;
        uint32_t fsdp_elems = 0;
        // Table routes chosen by a mapper (TCME): (stream, source die, destination die) ->
        // route id installed on the network; other transfers take dimension order.
        std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> routes;
        // Multicast trees chosen by the mapper (TCME's path merging): (source die, round) ->
        // multicast route id. In every broadcast stage that die sends the round's item once on
        // the tree and its destinations receive it from the tree.
        std::map<std::pair<uint32_t, uint32_t>, uint32_t> multicast;
    };
    // A block of one of the group's matrices on one die: I [m x h], IT = I^T [h x m], W [h x k],
    // dO [m x k] are inputs; O [m x k], dI [m x h], dW [h x k] are outputs.
    struct Block {
        uint32_t group = 0;
        std::string matrix;
        TilePlacement tile;
    };
    struct Plan {
        Firmware fw;
        std::vector<Block> inputs, outputs;
        std::vector<uint32_t> cores;  // every die that takes part
        uint32_t slots = 0;           // stream buffers per die (the most any stage needs)
        uint64_t item_bytes = 0;      // one streamed sub-tensor (or partial sum)
        uint64_t useful_macs = 0;     // m h k per stage per group
        std::string notes;
    };

    // Weight streaming when W is no larger than I (k <= m), else input streaming.
    static Stream choose(uint32_t m, uint32_t h, uint32_t k) {
        (void)h;
        return k <= m ? Stream::Weight : Stream::Input;
    }
    static const char* name(Stage s) { return stageName(s); }
    static const char* name(Stream s) { return s == Stream::Weight ? "weight" : "input"; }
    // Throws std::invalid_argument when a group size does not divide m (input streaming: also
    // k) or the split shape is empty.
    static Plan build(const placement::DieArray& a, const std::vector<GroupLayout::Group>& groups,
                      const Spec& s);
};

}  // namespace wsc::firmware::temp
