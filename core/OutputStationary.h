#pragma once
// outputs stay in the PEs; rows of A and columns of B stream in (S_R = m, S_C = n, T = k).
#include "core/Dataflow.h"

namespace wsc::core {

class OutputStationary : public Dataflow {
  public:
    FoldMapping map(uint64_t m, uint64_t k, uint64_t n) const override;
    const char* name() const override { return "os"; }
};

}  // namespace wsc::core
