#pragma once
// Where a collective's data sits in SRAM, per rank: which buffer holds which element range of
// the rank's input tensor before the run and of its output tensor after it. Instructions address
// whole buffers, so a tensor is a list of buffers; the caller fills the input buffers (dma.load,
// or directly in a test) and reads the output ones (dma.store). docs/COLLECTIVES.md gives the
// tensor each kind's indices refer to.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wsc::firmware::coll {

// Elements [begin, begin + count) of the tensor are the first `count` elements of `buffer`.
struct Segment {
    std::string buffer;
    uint64_t begin = 0, count = 0;
};

struct RankLayout {
    uint32_t node = 0;
    std::vector<Segment> input, output;  // ascending begin; empty segments left out
};

struct CollectiveLayout {
    std::vector<RankLayout> ranks;  // in CollectiveSpec::ranks order

    const RankLayout& of(uint32_t node) const {
        for (const RankLayout& r : ranks)
            if (r.node == node) return r;
        throw std::out_of_range("collective layout: node " + std::to_string(node) +
                                " is not a rank of this collective");
    }
};

// What Collectives::emitStaged laid out.
struct StagedPlan {
    uint32_t segments = 0;       // the tensor moves through SRAM in this many segments
    uint64_t segment_elems = 0;  // elements of the largest segment (per rank input)
    uint64_t sram_bytes = 0;     // the most SRAM the collective's buffers take on any rank
    CollectiveLayout first;      // layout of segment 0 (set 0's buffers)
};

}  // namespace wsc::firmware::coll
