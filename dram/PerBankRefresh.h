#pragma once
// Per-bank refresh: every tREFIpb one bank (round robin) is precharged and refreshed with REFpb,
// blocking only that bank for tRFCpb while the others keep serving requests.
#include "dram/RefreshPolicy.h"

namespace wsc::dram {

class PerBankRefresh : public RefreshPolicy {
  public:
    explicit PerBankRefresh(const HbmParams& p)
        : interval_(p.tREFIpb),
          due_(p.tREFIpb),
          banks_(p.banksPerPseudoChannel()),
          banks_per_group_(p.banks_per_group) {}
    bool pending(uint64_t now) const override { return now >= due_; }
    uint64_t nextDue() const override { return due_; }
    bool blocksBank(unsigned flatBank, uint64_t now) const override {
        return pending(now) && flatBank == target_;
    }
    DramCommand command(const TimingTracker& tracker, uint16_t pseudoChannel) const override;
    void onIssued(const DramCommand& cmd, uint64_t now) override;
    unsigned target() const { return target_; }

  private:
    uint64_t interval_;
    uint64_t due_;
    unsigned banks_;
    unsigned banks_per_group_;
    unsigned target_ = 0;
};

}  // namespace wsc::dram
