#pragma once
// The shape of a reduction of n partials along a line of n cores (line index = physical position):
// levels of groups; inside a group the partials flow along one-hop chains from both ends into the
// group's root, and the roots are the next level's members. MeshGEMV's K-tree allreduce (WaferLLM
// Sec. 6.2, facts file) and dist-GEMM-T's row ReduceAdd (Sec. 5.3) both use it; the pipeline
// allreduce is the one-group chain. Plain C++ (no NoC), so the grouping is testable on its own.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace wsc::firmware {

class ReduceTree {
  public:
    struct Group {
        std::vector<uint32_t> members;  // line indices, increasing
        uint32_t root = 0;              // index into members
        uint32_t rootIndex() const { return members[root]; }
    };
    using Level = std::vector<Group>;
    static constexpr uint32_t kMiddle = std::numeric_limits<uint32_t>::max();

    // K levels (fewer if the line runs out of members). With `left` levels still to go, this one
    // included, a level of r members has G groups: 1 for the last level; for K = 2 the largest
    // power of two not above sqrt(r) (8 for 64 and 128, 16 for 256 and 512, as WaferLLM's
    // benchmarks); otherwise round(r^((left-1)/left)). Groups are contiguous and balanced; each
    // group's root is its middle member. With `root` given the tree must end there (dist-GEMM-T
    // reduces into a different column every step): the last level ends at the member nearest
    // `root` and, if that is not `root`, one more level of one message carries the sum there.
    // So every level below the last keeps its roots, and its routes, whatever `root` is (rooting
    // the groups at `root` instead needs routes to every member and overflows R near P = 32).
    static ReduceTree kTree(uint32_t n, uint32_t k, uint32_t root = kMiddle);
    // The pipeline: one group, every partial chained into line index `root`.
    static ReduceTree chain(uint32_t n, uint32_t root);
    // Groups at the first level of a K = 2 tree over n members.
    static uint32_t groupsFor(uint32_t n);

    const std::vector<Level>& levels() const { return levels_; }
    // The line index that ends with the sum.
    uint32_t root() const { return root_; }
    // Critical path, adjacent line indices one hop apart: per level the longest distance from a
    // group end to its root (hops) and the longest chain of reduce-and-forward stages, summed.
    uint32_t hops() const;
    uint32_t stages() const;
    std::string describe() const;  // "8 groups, then 1 groups"

  private:
    std::vector<Level> levels_;
    uint32_t root_ = 0;
};

}  // namespace wsc::firmware
