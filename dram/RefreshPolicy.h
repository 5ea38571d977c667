#pragma once
// Decides when a pseudo-channel must refresh and which command moves it toward that refresh.
// The scheduler asks it every decision; implementations: AllBankRefresh, PerBankRefresh and a
// no-refresh policy (RefreshMode::None, for unit tests of timing).
#include <cstdint>
#include <limits>
#include <memory>

#include "dram/DramCommand.h"
#include "dram/HbmParams.h"

namespace wsc::dram {

class TimingTracker;

class RefreshPolicy {
  public:
    static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
    virtual ~RefreshPolicy() = default;

    // A refresh is due (at or after its due cycle) and not yet issued.
    virtual bool pending(uint64_t now) const = 0;
    // Cycle the next refresh falls due; kNever if refresh is off.
    virtual uint64_t nextDue() const = 0;
    // While true, requests must not use this bank: the refresh needs it precharged.
    virtual bool blocksBank(unsigned flatBank, uint64_t now) const = 0;
    // Only meaningful while pending(): the next command toward the refresh (PRE/PREA/REF/REFpb).
    virtual DramCommand command(const TimingTracker& tracker, uint16_t pseudoChannel) const = 0;
    // Told about every command the channel issues; acts on its own REF/REFpb.
    virtual void onIssued(const DramCommand& cmd, uint64_t now) = 0;

    static std::unique_ptr<RefreshPolicy> create(const HbmParams& p);
};

}  // namespace wsc::dram
