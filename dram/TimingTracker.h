#pragma once
// The scheduler's view of one pseudo-channel's timing: for every bank, bank group and the channel,
// the earliest cycle each command may issue, updated forward when a command issues. This is the
// fast "next allowed time" formulation (as in DRAMSys/Ramulator); ProtocolChecker re-derives
// legality from the command history with separate code so a bug here cannot hide itself.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dram/DramCommand.h"
#include "dram/HbmParams.h"

namespace wsc::dram {

class TimingTracker {
  public:
    // Applies p.debug_break_rule (test-only) to the tracker's own copy of the timings.
    explicit TimingTracker(const HbmParams& p);

    static bool canBreak(const std::string& rule);

    // Earliest cycle `cmd` may issue given everything issued so far (command bus included).
    uint64_t earliest(const DramCommand& cmd) const;
    void issue(const DramCommand& cmd, uint64_t now);

    unsigned bankIndex(unsigned group, unsigned bank) const {
        return group * banks_per_group_ + bank;
    }
    unsigned banks() const { return unsigned(banks_.size()); }
    unsigned banksPerGroup() const { return banks_per_group_; }
    bool isOpen(unsigned flatBank) const { return banks_[flatBank].open; }
    uint32_t openRow(unsigned flatBank) const { return banks_[flatBank].row; }
    unsigned openBanks() const { return open_banks_; }

  private:
    struct Bank {
        bool open = false;
        uint32_t row = 0;
        uint64_t next_act = 0, next_pre = 0, next_rd = 0, next_wr = 0;
    };
    struct Group {
        uint64_t next_act = 0, next_rd = 0, next_wr = 0;
    };

    // Timings in cycles after the debug relaxation.
    uint32_t tRL_, tWL_, tBurst_, tRCD_, tRCDWR_, tRP_, tRAS_, tRC_, tCCD_S_, tCCD_L_, tRRD_S_,
        tRRD_L_, tFAW_, tWR_, tWTR_S_, tWTR_L_, tRTP_, tRTRS_, tRFC_, tRFCpb_, tRREFD_;
    unsigned banks_per_group_;
    std::vector<Bank> banks_;
    std::vector<Group> groups_;
    uint64_t next_act_ = 0, next_rd_ = 0, next_wr_ = 0, next_refpb_ = 0;
    std::array<uint64_t, 4> faw_{};  // cycles of the last four ACTs, oldest at faw_pos_
    unsigned faw_pos_ = 0, faw_count_ = 0;
    uint64_t next_cmd_ = 0;  // command bus: one command per cycle
    unsigned open_banks_ = 0;
};

}  // namespace wsc::dram
