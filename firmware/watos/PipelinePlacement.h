#pragma once
// WATOS's location-aware placement of pipeline stages (Sec. IV-C-1, Eq. 2, Fig. 11): pp stages,
// each a group of tp dies, on a die array, scored by
//
//   GlobalCost = sum_i Dist(S_i, S_i+1) * Comm_PP(i, i+1)
//              + sum_(s,h) in Mem_pairs Dist(S_s, S_h) * Comm_pair(s, h) * (1 + gamma(s, h))
//
// and placed to minimise it. Plain C++, no SystemC. Definitions (the paper leaves them open):
// - S_i is the centre of stage i's dies (the mean of their x and y, so a 2 x 1 block's centre is
//   half-way between its dies) and Dist the Manhattan distance between centres, in die hops.
// - gamma(s, h) counts the directed mesh links that the pair's checkpoint traffic shares with the
//   pipeline's. Paths are the XY routes between die pairs, rank t of one stage to rank t of the
//   other, both ways (offload and reload; activations forward and gradients back), because that
//   is the traffic the step sends (StepBuilder's pipeline sends go from rank t of stage s to rank t
//   of s +- 1, and XY is what the die-level configs route); a route between centres would miss
//   links the tp parallel transfers use, and B -> A is not A -> B reversed under XY. A link shared
//   with several pipeline boundaries counts once.
// - Placements searched: the die array is tiled by blocks of w x h = tp dies (w | x, h | y; every
//   such shape is tried), which is how RowMajorPlacement (tp x 1 along rows), SnakePlacement and
//   RingPlacement (w x h blocks in snake order) form groups; inside a block the ranks follow the
//   block's Hamiltonian cycle (RingPlacement::cycle) when it has one, else row-major, so the TP
//   ring stays physical where it can and rank t sits at the same offset in every block. The search
//   assigns stages to blocks: every order when pp <= Options::exhaustive_max_pp (8! = 40320),
//   otherwise a best-improvement pairwise-swap descent from the snake order and from
//   Options::restarts seeded random orders, keeping the best (ties: the first found), so the
//   result depends only on the inputs and the seed.
#include <cstdint>
#include <vector>

#include "firmware/placement/Placement.h"

namespace wsc::firmware::watos {

struct MemPair {
    uint32_t sender = 0, helper = 0;  // pipeline stages (0-based)
    double bytes = 0;                 // Comm_pair: checkpoint bytes moved between them
};

class PipelinePlacement {
  public:
    enum class Search { Auto, Exhaustive, Local };
    struct Options {
        Search search = Search::Auto;
        uint32_t exhaustive_max_pp = 8;  // Auto: exhaustive up to this many stages
        uint64_t seed = 1;               // local search's random starts
        uint32_t restarts = 16;          // random starts besides the snake order
    };
    struct Cost {
        double total = 0, pipeline = 0, pairs = 0;  // Eq. 2 and its two sums
        std::vector<double> centre_x, centre_y;     // S_i
        std::vector<double> pair_dist;              // Dist(S_s, S_h), in the pairs' order
        std::vector<uint32_t> pair_gamma;           // gamma(s, h)
        double pipelineHops() const;                // sum_i Dist(S_i, S_i+1), unweighted
        double meanPairDist() const;
    };
    struct Result {
        std::vector<uint32_t> rank_die;  // die of rank s * tp + t (Placement::place's format)
        Cost cost;
        uint32_t block_w = 0, block_h = 0;  // the block shape of the best placement
        bool exhaustive = false;            // every stage order was scored
        uint64_t evaluated = 0;             // placements scored
    };

    // comm_pp: pp - 1 weights, Comm_PP(i, i + 1) at index i (empty: 1 at every boundary). Pairs
    // name distinct stages < pp. Throws std::invalid_argument naming what is wrong.
    PipelinePlacement(const placement::DieArray& a, uint32_t pp, uint32_t tp,
                      std::vector<double> comm_pp, std::vector<MemPair> pairs);

    // Eq. 2 for any placement: rank_die[s * tp + t] is the die of rank t of stage s.
    Cost cost(const std::vector<uint32_t>& rank_die) const;
    // The placement minimising Eq. 2 over the block tilings. Needs pp * tp = the array's dies and
    // at least one block shape that tiles it; throws std::invalid_argument otherwise.
    Result search(const Options& o) const;
    Result search() const { return search(Options{}); }

    // Directed links of the XY route from die `from` to die `to` (x first), each as
    // die * 4 + direction of the link leaving that die (0 east +x, 1 west -x, 2 south +y,
    // 3 north -y), in route order.
    static std::vector<uint32_t> xyLinks(const placement::DieArray& a, uint32_t from, uint32_t to);
    // The blocks of w x h dies tiling the array in snake order; each block's dies in the order
    // its ranks take (cycle or row-major, the same offsets in every block).
    static std::vector<std::vector<uint32_t>> blocks(const placement::DieArray& a, uint32_t w,
                                                     uint32_t h);

  private:
    placement::DieArray a_;
    uint32_t pp_, tp_;
    std::vector<double> comm_pp_;
    std::vector<MemPair> pairs_;
};

}  // namespace wsc::firmware::watos
