#pragma once
// One broadcast along a line of cores (a mesh row or column), as SUMMA and allgather-GEMM need:
// one multicast route from the source when every router on the line has room for it, else a
// software pipeline (WaferLLM Sec. 5.1 (1)-(2): the R limit forces step-by-step transmission):
// the block travels outwards from the source in both directions, every core storing it and
// sending it on to its next neighbour, so it pays one routing stage per hop.
#include <cstdint>
#include <vector>

#include "firmware/KernelPlan.h"
#include "firmware/RoutePlanner.h"

namespace wsc::firmware {

class LineBroadcast {
  public:
    // line: the cores in physical order; src: index into line of the sender.
    LineBroadcast(RoutePlanner& rp, std::vector<uint32_t> line, uint32_t src);

    // Instructions of the core at index `at` of the line: the source sends `own`; the others
    // receive into `into` (and forward it when pipelined).
    void emit(Program& prog, uint32_t at, uint16_t own, uint16_t into, uint64_t bytes) const;
    bool direct() const { return route_ != kNoRouteId; }
    CriticalPath path(uint64_t bytes) const;

  private:
    std::vector<uint32_t> line_;
    uint32_t src_;
    uint32_t route_ = kNoRouteId;
};

}  // namespace wsc::firmware
