#pragma once
// WATOS's PP-engine link allocation (Sec. IV-E-2, Fig. 13): every inter-stage transfer of a step
// (pipeline activations and gradients between adjacent stages, checkpoint offload and reload
// between Sender and Helper stages) gets one of its shortest paths on the die mesh, the largest
// transfers first, each avoiding the links the ones before it took. Plain C++, no SystemC.
//
// Definitions (the paper leaves them open):
// - A transfer is a (source die, destination die) pair with its bytes per step; transfers of the
//   same pair are merged first (the network routes by pair: noc::Network::addPairRoute).
// - Candidates are the pair's minimal paths (every monotone staircase between the two dies), so
//   no transfer is lengthened. A path is judged first by its bottleneck, the highest load a link
//   of it would carry with this transfer added (so the busiest link never grows more than the
//   pair's best path forces), then among paths within that bottleneck by the links it uses that
//   earlier pairs occupy (WATOS's punishment of occupied links), then by their load summed. Each
//   criterion is exact by a recursion over the pair's bounding box. Ties prefer the X move at
//   every step, so a transfer with nothing in its way keeps the X-first (XY) path.
// - Order: largest first (WATOS), equal sizes the straight pairs (one path) before the ones that
//   can step aside. Then rip-up and reroute: each pair in turn is taken off and placed again
//   under all the others' loads, until a pass changes nothing (at most Options::kMaxPasses), so
//   a pair placed early is not stuck on a link that later pairs had no way around.
// - Unless the result is better than every pair on XY (a lower busiest link, or as low with
//   fewer shared links), every pair keeps XY (Result::kept_xy): pair routes only for a gain.
// - A path that differs from XY needs one route entry on every router it visits; with a route
//   limit, a path that would push a router over it is not taken (the pair keeps XY and counts in
//   Result::kept_by_limit).
// Paths of several turn orders share the VCs with XY traffic, so a cyclic channel dependency is
// possible in principle (as with TCME's reroutes); the network's deadlock watchdog guards the run.
#include <cstdint>
#include <vector>

#include "firmware/placement/Placement.h"

namespace wsc::firmware::watos {

class LinkAllocator {
  public:
    struct Transfer {
        uint32_t src = 0, dst = 0;  // dies
        double bytes = 0;           // per step
    };
    struct Options {
        uint32_t route_limit = 0;  // route entries a router may take for moved pairs (0: no limit)
        static constexpr uint32_t kMaxPasses = 16;  // rip-up-and-reroute passes at most
    };
    struct Result {
        std::vector<Transfer> pairs;               // merged, in allocation order (largest first)
        std::vector<std::vector<uint32_t>> paths;  // per pair: the dies visited, src to dst
        std::vector<uint8_t> moved;                // per pair: the path is not the XY one
        // Bytes on the busiest directed link, and links carrying two or more pairs, with every
        // pair on XY and with the allocation.
        double max_link_xy = 0, max_link = 0;
        uint32_t shared_xy = 0, shared = 0;
        uint32_t kept_by_limit = 0;  // pairs left on XY because of the route limit
        uint32_t passes = 0;   // rip-up passes until one changed nothing; kMaxPasses + 1: unsettled
        bool kept_xy = false;  // the allocation was no better than XY: every pair kept XY
        uint32_t movedCount() const;
    };

    explicit LinkAllocator(const placement::DieArray& a) : LinkAllocator(a, Options()) {}
    LinkAllocator(const placement::DieArray& a, Options o);
    // Throws std::invalid_argument for a die off the array or negative bytes. Pairs with src ==
    // dst are dropped (they use no link).
    Result allocate(const std::vector<Transfer>& transfers) const;

    // The dies of the XY path from `src` to `dst`.
    static std::vector<uint32_t> xyPath(const placement::DieArray& a, uint32_t src, uint32_t dst);
    // Directed link index (die * 4 + direction: 0 east, 1 west, 2 south, 3 north) of the hop
    // between two neighbouring dies.
    static uint32_t linkOf(const placement::DieArray& a, uint32_t from, uint32_t to);

  private:
    // The pair's best minimal path under `load` (the criteria above).
    std::vector<uint32_t> choose(const Transfer& t, const std::vector<double>& load) const;

    placement::DieArray a_;
    Options o_;
};

}  // namespace wsc::firmware::watos
