#include "dram/PerBankRefresh.h"

#include "dram/TimingTracker.h"

namespace wsc::dram {

DramCommand PerBankRefresh::command(const TimingTracker& tracker, uint16_t pseudoChannel) const {
    DramCommand c;
    c.pseudo_channel = pseudoChannel;
    c.bank_group = uint8_t(target_ / banks_per_group_);
    c.bank = uint8_t(target_ % banks_per_group_);
    c.type = tracker.isOpen(target_) ? CommandType::PRE : CommandType::REFpb;
    return c;
}

void PerBankRefresh::onIssued(const DramCommand& cmd, uint64_t) {
    if (cmd.type != CommandType::REFpb) return;
    due_ += interval_;
    target_ = (target_ + 1) % banks_;
}

}  // namespace wsc::dram
