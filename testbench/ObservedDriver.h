#pragma once
// A CycleDriver that passes every call to the run's own driver (the traffic generator, the core
// array) and lets RunObservers look at the model around each step. The model itself is unchanged:
// observers only read (see RunObserver).
#include <vector>

#include "noc/CycleDriver.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

class ObservedDriver : public noc::CycleDriver {
  public:
    // Attaches every observer to `net` (and `cores`, may be null).
    ObservedDriver(noc::CycleDriver& inner, const std::vector<RunObserver*>& observers,
                   const noc::Network& net, core::CoreArray* cores);
    void beforeStep(uint64_t cycle) override;
    void afterStep(uint64_t cycle) override;
    uint64_t nextWake(uint64_t cycle) const override { return inner_.nextWake(cycle); }
    bool done(uint64_t cycle) const override { return inner_.done(cycle); }
    // Tells every observer the run is over (call while the network still exists).
    void finish(uint64_t last_cycle);

  private:
    noc::CycleDriver& inner_;
    std::vector<RunObserver*> observers_;
};

}  // namespace wsc::tb
