#pragma once
// Where TEMP's TATP (or naive-ring TSPP) groups sit on the die array, each as a chain: the
// order of its dies that the stream schedules walk (StreamSchedule position p -> die). Policies:
//  - ring:   every group an a x b block of dies with a Hamiltonian cycle (one side even), laid
//            along the cycle: every chain hop and the ring's wrap are one physical hop
//            (TEMP Fig. 7a, blue groups). The blocks of placement::RingPlacement (the squarest,
//            tiled in snake order), so `wsc llm --placement ring` and these groups agree.
//  - line:   straight runs of N dies along the wafer's rows (N <= dies per row) or columns: a
//            chain of one-hop steps whose ring wrap spans N - 1 hops (TEMP Fig. 5a).
//  - tetris: N consecutive dies along the wafer's snake order (rows alternately left to right
//            and right to left; TEMP Fig. 7a red and Fig. 8a groups): a line, a block, or an L /
//            S shape when N does not divide a row. The chain is a Hamiltonian path of
//            the shape where one exists (so TATP still moves one hop), and the ring's wrap spans
//            the shape; otherwise the row-major order, with multi-hop chain steps.
//  - an explicit list of groups, each in its chain order ("0,1,5,4;2,3,7,6"): TEMP Fig. 11's
//            strided groups such as {0, 2, 8, 10}, whose chain steps are two hops.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/placement/Placement.h"

namespace wsc::firmware::temp {

class GroupLayout {
  public:
    using Group = std::vector<uint32_t>;  // dies in chain order

    // `policy` is ring, line, tetris, or a list of groups separated by ';' (dies by ','). Throws
    // std::invalid_argument saying why a layout cannot be made (sizes, a die twice, off the
    // array, a ring block that does not exist).
    static std::vector<Group> make(const std::string& policy, uint32_t group_size,
                                   const placement::DieArray& a);
    static std::vector<Group> ring(uint32_t n, const placement::DieArray& a);
    static std::vector<Group> tetris(uint32_t n, const placement::DieArray& a);
    static std::vector<Group> line(uint32_t n, const placement::DieArray& a);
    static std::vector<Group> parse(const std::string& list, const placement::DieArray& a);

    // A Hamiltonian path through `dies` over mesh links (depth-first, bounded), preferring one
    // whose ends are neighbours (a physical ring), or the input order when none is found.
    static Group chainOrder(const Group& dies, const placement::DieArray& a);
    // Physical hops of every chain step (n - 1 of them) and of the ring's wrap (last to first).
    static std::vector<uint32_t> chainHops(const Group& g, const placement::DieArray& a);
    static uint32_t wrapHops(const Group& g, const placement::DieArray& a);
};

}  // namespace wsc::firmware::temp
