#pragma once
// a k x m block of A stays in the PEs; columns of B stream through (S_R = k, S_C = m, T = n).
#include "core/Dataflow.h"

namespace wsc::core {

class InputStationary : public Dataflow {
  public:
    FoldMapping map(uint64_t m, uint64_t k, uint64_t n) const override;
    const char* name() const override { return "is"; }
};

}  // namespace wsc::core
