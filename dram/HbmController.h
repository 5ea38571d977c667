#pragma once
// The controller of one HBM stack as plain C++: accepts transactions (any size), splits them into
// access-granularity bursts, feeds the bursts into the per-pseudo-channel controllers and reports
// each transaction once when its last burst has finished. HbmTarget wraps it in TLM-2.0; tests
// drive it directly with tick(nextWake()).
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "dram/AddressMapper.h"
#include "dram/ChannelController.h"
#include "dram/HbmParams.h"
#include "dram/HbmStats.h"
#include "dram/ProtocolChecker.h"
#include "dram/RingBuffer.h"

namespace wsc::dram {

struct HbmCompletion {
    uint64_t user = 0;     // the caller's handle given to submit()
    uint64_t arrival = 0;  // cycle accepted
    uint64_t done = 0;     // cycle the last data beat finished
    bool write = false;
};

class HbmController : public BurstSink {
  public:
    static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

    explicit HbmController(const HbmParams& p);  // validates p (std::invalid_argument)
    ~HbmController() override;

    // True when a transaction slot is free (max_outstanding); queue space is not required, the
    // bursts wait in the front end until their pseudo-channel queue has room.
    bool canAccept() const { return !free_.empty(); }
    // Accepts [addr, addr + bytes) at cycle `now`. addr + bytes must lie within the stack.
    void submit(uint64_t addr, uint32_t bytes, bool write, uint64_t now, uint64_t user);
    // Advances to cycle `now` (non-decreasing; repeating a cycle is allowed).
    void tick(uint64_t now);
    // Earliest cycle tick() has work; kNever when idle with refresh off.
    uint64_t nextWake() const;
    bool popCompletion(HbmCompletion& out);
    bool idle() const { return free_.size() == txns_.size() && completed_.empty(); }
    size_t outstanding() const { return txns_.size() - free_.size(); }

    // End of run: checks every bank was refreshed in time (throws ProtocolViolation).
    void finish(uint64_t now);
    HbmStats stats(uint64_t now) const;
    uint64_t commandsChecked() const;
    const AddressMapper& mapper() const { return mapper_; }
    const HbmParams& params() const { return p_; }
    const ChannelController& channel(unsigned pch) const { return *channels_[pch]; }

    void burstDone(uint32_t tag, bool write, uint64_t cycle) override;

  private:
    struct Txn {
        uint64_t user = 0, arrival = 0, next_addr = 0;
        uint32_t unfed = 0;      // bursts not yet in a channel queue
        uint32_t remaining = 0;  // bursts not yet finished
        bool write = false;
    };
    void feed(uint64_t now);

    HbmParams p_;
    AddressMapper mapper_;
    uint32_t access_;
    std::vector<std::unique_ptr<ChannelController>> channels_;
    std::vector<std::unique_ptr<ProtocolChecker>> checkers_;
    std::vector<Txn> txns_;
    std::vector<uint32_t> free_;    // free transaction slots (stack)
    std::vector<uint32_t> admit_;   // slots with unfed bursts, in arrival order
    std::vector<uint8_t> blocked_;  // per pseudo-channel scratch for feed()
    RingBuffer<HbmCompletion> completed_;
    bool feed_dirty_ = false;  // the front end may be able to move bursts into queues
    uint64_t last_tick_ = 0;
    LatencyHistogram read_lat_, write_lat_;
    uint64_t transactions_ = 0, first_arrival_ = kNever, last_completion_ = 0;
};

}  // namespace wsc::dram
