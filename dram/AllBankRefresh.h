#pragma once
// All-bank refresh: every tREFI the whole pseudo-channel is precharged (PREA) and refreshed (REF),
// blocking all banks for tRFC. Due cycles are k * tREFI, so a late refresh does not drift the
// schedule.
#include "dram/RefreshPolicy.h"

namespace wsc::dram {

class AllBankRefresh : public RefreshPolicy {
  public:
    explicit AllBankRefresh(const HbmParams& p) : interval_(p.tREFI), due_(p.tREFI) {}
    bool pending(uint64_t now) const override { return now >= due_; }
    uint64_t nextDue() const override { return due_; }
    bool blocksBank(unsigned, uint64_t now) const override { return pending(now); }
    DramCommand command(const TimingTracker& tracker, uint16_t pseudoChannel) const override;
    void onIssued(const DramCommand& cmd, uint64_t now) override;

  private:
    uint64_t interval_;
    uint64_t due_;
};

}  // namespace wsc::dram
