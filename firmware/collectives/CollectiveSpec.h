#pragma once
// What a collective is: its kind, algorithm, group of ranks (NoC nodes; a rank's program is the
// program of its node), tensor size, element type, buffer-name prefix and the algorithm's knobs.
// One spec drives both the instruction streams (Collectives::emit) and the closed-form time
// (CollectiveTiming::estimate). Semantics and layouts: docs/COLLECTIVES.md.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/Instruction.h"

namespace wsc::firmware::coll {

enum class Collective : uint8_t {
    AllReduce,      // every rank: the element-wise sum of all ranks' tensors
    ReduceScatter,  // rank q: block q of that sum
    AllGather,      // every rank: all ranks' blocks; rank q contributes block q
    AllToAll,       // rank q's block j goes to rank j (block q of rank j's output); with
                    // CollectiveSpec::counts the blocks have per-pair sizes (all-to-all-v)
    Broadcast,      // every rank: the root's tensor
    Reduce,         // the root: the sum of all ranks' tensors
    SendRecv        // ranks {src, dst}: dst gets src's tensor
};

enum class Algorithm : uint8_t {
    Ring,    // AllReduce / ReduceScatter / AllGather on `ranks` in ring order (any nodes)
    Ring2D,  // the same on a rows x cols grid (ranks row-major): rings along rows and columns
    Direct,  // AllToAll: every pair in one message stream each; SendRecv
    Tree,    // Broadcast / Reduce: binomial tree over `ranks` rooted at ranks[root]
    Tree2D   // Broadcast / Reduce on a rows x cols grid: along the root's row, then every column
};

struct CollectiveSpec {
    Collective kind = Collective::AllReduce;
    Algorithm algo = Algorithm::Ring;
    std::vector<uint32_t> ranks;  // distinct NoC nodes; order matters (ring order, grid order)
    uint32_t rows = 0, cols = 0;  // Ring2D / Tree2D grid; rows * cols == ranks.size()
    // Tensor elements: per rank for AllReduce, Reduce, Broadcast, SendRecv and the input of
    // ReduceScatter and AllToAll (with `counts`: 0 or the largest row sum); the whole gathered
    // tensor for AllGather.
    uint64_t elems = 0;
    DType dtype = DType::FP32;  // bytes per element on the wire and in SRAM
    // Buffer names start with "<prefix>."; a later collective with the same prefix reuses them.
    std::string prefix;
    uint32_t pieces = 1;         // pipelining: every step's message is cut into this many
    bool bidirectional = false;  // rings: half of every block goes each way round
    bool staggered = true;       // AllToAll: round r, rank q sends to rank (q + r) mod N
    uint32_t root = 0;           // Broadcast / Reduce: index into ranks
    // AllToAll only: per-pair element counts, row-major n x n: counts[q * n + j] = elements rank
    // q sends to rank j (counts[q * n + q] stays on q). Empty: the uniform all-to-all of `elems`.
    // With counts, `elems` must be 0 or the largest row sum (a rank's input).
    std::vector<uint64_t> counts;

    uint32_t size() const { return static_cast<uint32_t>(ranks.size()); }
    // AllToAll: elements rank q sends to rank j (counts, or block j of the uniform `elems`).
    uint64_t pair(uint32_t q, uint32_t j) const;
};

// A tensor that lives in the memory port (HBM) and is staged through SRAM segment by segment
// (Collectives::emitStaged). Addresses are bytes in each rank's own memory port.
struct Staging {
    uint64_t budget_bytes = 0;       // SRAM the collective may hold per rank (both sets + rx)
    std::vector<uint64_t> in_addr;   // per rank (in spec.ranks order)
    std::vector<uint64_t> out_addr;  // per rank; empty: the result overwrites the input
};

const char* collectiveName(Collective c);  // "all-reduce", ...
const char* algorithmName(Algorithm a);    // "ring", "ring2d", ...
// "ring all-reduce of 1000 fp32 on 4 ranks (2 pieces, bidirectional)"; with counts
// "direct all-to-all-v of 1000 fp32 in all on 4 ranks" (the sum of the counts)
std::string describe(const CollectiveSpec& s);

}  // namespace wsc::firmware::coll
