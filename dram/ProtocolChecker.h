#pragma once
// Independent JEDEC timing checker for one pseudo-channel. It keeps its own history of when each
// command last hit each bank, bank group and the channel, and tests every new command against an
// explicit list of pairwise rules ("RD needs tRCD after ACT to the same bank"), plus bank state,
// command-bus and data-bus occupancy. It deliberately shares no code with TimingTracker, and it
// uses the configured timings, never the scheduler's (possibly debug-relaxed) copy.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dram/CommandObserver.h"
#include "dram/HbmParams.h"

namespace wsc::dram {

class ProtocolViolation : public std::runtime_error {
  public:
    ProtocolViolation(const std::string& msg, std::string rule)
        : std::runtime_error(msg), rule_(std::move(rule)) {}
    const std::string& rule() const { return rule_; }

  private:
    std::string rule_;
};

class ProtocolChecker : public CommandObserver {
  public:
    ProtocolChecker(const HbmParams& p, uint32_t pseudoChannel);

    // Throws ProtocolViolation naming command, pseudo-channel, bank, cycle and rule.
    void onCommand(const DramCommand& cmd, uint64_t cycle) override;
    // End of simulation: every bank must have been refreshed recently enough.
    void finish(uint64_t cycle);

    uint64_t checked() const { return checked_; }
    uint64_t checked(CommandType t) const { return per_type_[unsigned(t)]; }

  private:
    static constexpr int64_t kNever = INT64_MIN / 4;
    struct BankHist {
        bool open = false;
        uint32_t row = 0;
        int64_t act = kNever, pre = kNever, rd = kNever, wr = kNever, refpb = kNever;
        int64_t refreshed = 0;  // last REF or REFpb covering this bank (power-up counts)
    };
    struct GroupHist {
        int64_t act = kNever, rd = kNever, wr = kNever;
    };

    [[noreturn]] void fail(const DramCommand& c, int64_t t, const std::string& rule,
                           const std::string& detail) const;
    void need(const DramCommand& c, int64_t t, const char* rule, int64_t prev, const char* prevName,
              int64_t gap) const;
    void checkPrecharge(const DramCommand& c, int64_t t, unsigned bank) const;
    void checkRefreshGap(const DramCommand& c, int64_t t, const BankHist& b) const;
    void checkDataBus(const DramCommand& c, int64_t t, bool read);

    HbmParams p_;
    uint32_t pch_;
    int64_t burst_;
    std::vector<BankHist> banks_;
    std::vector<GroupHist> groups_;
    int64_t last_cmd_ = kNever, act_ = kNever, rd_ = kNever, wr_ = kNever, ref_ = kNever,
            refpb_ = kNever;
    std::array<int64_t, 4> acts_{kNever, kNever, kNever, kNever};  // last four ACTs, ring
    unsigned acts_pos_ = 0;
    int64_t bus_free_ = kNever;  // first cycle after the last data burst
    bool bus_read_ = true;
    uint64_t checked_ = 0;
    std::array<uint64_t, kCommandTypes> per_type_{};
};

}  // namespace wsc::dram
