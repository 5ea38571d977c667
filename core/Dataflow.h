#pragma once
// A systolic dataflow policy: which GEMM dimensions map onto the array's rows and columns
// (spatial) and which one streams through it (temporal), as SCALE-Sim maps them. OS keeps
// outputs in place, WS weights, IS inputs (WATOS Fig. 14): the MACs are the same, the fold
// count, fill/drain overhead and operand traffic differ.
#include <cstdint>
#include <memory>

#include "core/CoreParams.h"

namespace wsc::core {

struct FoldMapping {
    uint64_t spatial_rows;  // S_R
    uint64_t spatial_cols;  // S_C
    uint64_t temporal;      // T
};

class Dataflow {
  public:
    virtual ~Dataflow() = default;
    virtual FoldMapping map(uint64_t m, uint64_t k, uint64_t n) const = 0;
    virtual const char* name() const = 0;
    static std::unique_ptr<Dataflow> make(DataflowKind k);
};

}  // namespace wsc::core
