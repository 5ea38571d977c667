#include "dram/RefreshPolicy.h"

#include "dram/AllBankRefresh.h"
#include "dram/PerBankRefresh.h"

namespace wsc::dram {

namespace {
// RefreshMode::None: for timing unit tests that must not see refresh commands.
class NoRefresh : public RefreshPolicy {
  public:
    bool pending(uint64_t) const override { return false; }
    uint64_t nextDue() const override { return kNever; }
    bool blocksBank(unsigned, uint64_t) const override { return false; }
    DramCommand command(const TimingTracker&, uint16_t pch) const override {
        DramCommand c;
        c.pseudo_channel = pch;
        return c;
    }
    void onIssued(const DramCommand&, uint64_t) override {}
};
}  // namespace

std::unique_ptr<RefreshPolicy> RefreshPolicy::create(const HbmParams& p) {
    switch (p.refresh_mode) {
        case RefreshMode::AllBank:
            return std::make_unique<AllBankRefresh>(p);
        case RefreshMode::PerBank:
            return std::make_unique<PerBankRefresh>(p);
        case RefreshMode::None:
            break;
    }
    return std::make_unique<NoRefresh>();
}

}  // namespace wsc::dram
