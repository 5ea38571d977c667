#pragma once
// Whatever feeds and watches the network cycle by cycle from inside the shell's step (the
// traffic generator, later the wafer top): plain C++, called in a fixed order around
// Network::step, so injections made "at cycle t" really enter at t.
#include <cstdint>

namespace wsc::noc {

class CycleDriver {
  public:
    virtual ~CycleDriver() = default;
    virtual void beforeStep(uint64_t cycle) = 0;
    virtual void afterStep(uint64_t cycle) = 0;
    // Next cycle > cycle at which the driver needs a step even if the network is idle.
    virtual uint64_t nextWake(uint64_t cycle) const = 0;
    // True once the run is over; the shell stops scheduling itself.
    virtual bool done(uint64_t cycle) const = 0;
};

}  // namespace wsc::noc
