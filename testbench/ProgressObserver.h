#pragma once
// A ProgressLine for runs driven by the SystemC shell (gemm scenarios, DMA streams): a
// RunObserver ticked after every step, reporting finished cores and flits in flight.
#include <memory>

#include "testbench/ProgressLine.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

class ProgressObserver : public RunObserver {
  public:
    void attach(const noc::Network& net, core::CoreArray* cores) override;
    void afterStep(uint64_t cycle) override { line_->tick(cycle); }
    void finish(uint64_t) override { line_->clear(); }

  private:
    std::unique_ptr<ProgressLine> line_;
};

}  // namespace wsc::tb
