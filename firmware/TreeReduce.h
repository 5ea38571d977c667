#pragma once
// Emits a ReduceTree over one line of cores (a mesh row or column) as firmware: every non-root
// member of a group receives what comes from its outer neighbours in the group, adds it to its
// partial and sends the sum one member towards the root; the root adds what reaches it from both
// sides. Routes are laid once per (sender, receiver) pair and reused when the same pair meets
// again (dist-GEMM-T's trees change root every step, so the same neighbour pairs recur).
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "firmware/KernelPlan.h"
#include "firmware/ReduceTree.h"
#include "firmware/RoutePlanner.h"

namespace wsc::firmware {

class TreeReduce {
  public:
    struct Buffers {
        uint16_t part = kNoBuf;  // the member's partial; accumulates what it receives
        uint16_t r0 = kNoBuf;    // receives from the member on the lower-index side
        uint16_t r1 = kNoBuf;    // receives from the member on the higher-index side
    };

    explicit TreeReduce(RoutePlanner& rp) : rp_(rp) {}

    // cores[x], bufs[x]: the core at line index x and its buffers. `elems` per partial. The
    // root's last add writes `out` (kNoBuf: into its partial). A one-member line emits nothing.
    // `combine` is the element-wise operation (VAdd for a sum, VMax for softmax's maximum).
    void emit(Firmware& fw, const ReduceTree& tree, const std::vector<uint32_t>& cores,
              const std::vector<Buffers>& bufs, uint32_t elems, uint16_t out = kNoBuf,
              Opcode combine = Opcode::VAdd);

    // The critical path of one reduction on this planner's routes: physical hops and stages
    // (a relayed transfer adds a stage per relay), `bytes` per message.
    CriticalPath path(const ReduceTree& tree, const std::vector<uint32_t>& cores,
                      uint64_t bytes) const;

  private:
    const RoutePlanner::Path& pathFor(uint32_t src, uint32_t dst);

    RoutePlanner& rp_;
    std::map<std::pair<uint32_t, uint32_t>, RoutePlanner::Path> paths_;
};

}  // namespace wsc::firmware
