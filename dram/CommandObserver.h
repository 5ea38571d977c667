#pragma once
// Anything that wants to see every command a pseudo-channel issues (the protocol checker, tracers).
#include <cstdint>

#include "dram/DramCommand.h"

namespace wsc::dram {

class CommandObserver {
  public:
    virtual ~CommandObserver() = default;
    virtual void onCommand(const DramCommand& cmd, uint64_t cycle) = 0;
};

}  // namespace wsc::dram
