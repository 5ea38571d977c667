#pragma once
// Where a core's DMA engine sends memory-port transactions. MemoryBridge (TLM-2.0) implements
// it; the interface keeps CoreArray free of SystemC so cores can run without a kernel.
#include "core/MemoryRequest.h"

namespace wsc::core {

class MemoryPort {
  public:
    virtual ~MemoryPort() = default;
    virtual void push(MemoryRequest&& r) = 0;
};

}  // namespace wsc::core
