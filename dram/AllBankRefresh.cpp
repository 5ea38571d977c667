#include "dram/AllBankRefresh.h"

#include "dram/TimingTracker.h"

namespace wsc::dram {

DramCommand AllBankRefresh::command(const TimingTracker& tracker, uint16_t pseudoChannel) const {
    DramCommand c;
    c.pseudo_channel = pseudoChannel;
    c.type = tracker.openBanks() > 0 ? CommandType::PREA : CommandType::REF;
    return c;
}

void AllBankRefresh::onIssued(const DramCommand& cmd, uint64_t) {
    if (cmd.type == CommandType::REF) due_ += interval_;
}

}  // namespace wsc::dram
