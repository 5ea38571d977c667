#pragma once
// a k x n block of B stays in the PEs; rows of A stream through (S_R = k, S_C = n, T = m).
#include "core/Dataflow.h"

namespace wsc::core {

class WeightStationary : public Dataflow {
  public:
    FoldMapping map(uint64_t m, uint64_t k, uint64_t n) const override;
    const char* name() const override { return "ws"; }
};

}  // namespace wsc::core
