#pragma once
// The Verilated RTL router (hw/rtl/wsc_router.sv) in a noc::Network position, in place of the C++
// noc::Router (Network::replaceRouter). One evaluate() call is one clock of the RTL: the flits and
// credits the network delivered this cycle go on the model's input ports, its outputs become
// Network::forward / returnCredit / flitsMoved calls in the order noc::Router makes them.
//
// Flits cross the RTL as 64-bit words holding what the hardware needs (destination x/y and local
// port from the packet table, head/tail, VC) and an opaque id: the index of the original
// noc::Flit in a small pool here, so the network gets back exactly the flit it sent in.
//
// The network only evaluates routers that hold flits. An RTL router's idle cycles are replayed
// when it wakes up: enough clocks for its link-busy counters to run out and to take the credits
// that arrived meanwhile (an empty router cannot tell when a credit came), never one per idle cycle
// of a long gap.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/rtl/RtlModel.h"
#include "noc/ExternalRouter.h"
#include "noc/Flit.h"
#include "noc/Network.h"

namespace wsc::rtl {

class RtlRouter : public noc::ExternalRouter {
  public:
    // What the router did in a cycle, for lockstep comparison against noc::Router.
    class Listener {
      public:
        virtual ~Listener() = default;
        virtual void onFlitOut(uint64_t cycle, uint32_t router, uint8_t out_port,
                               const noc::Flit& f) = 0;
        virtual void onCreditOut(uint64_t cycle, uint32_t router, uint8_t in_port, uint8_t vc) = 0;
    };

    // `net` provides wiring (links of the C++ router at `r`), geometry and the packet table.
    RtlRouter(const noc::Network& net, uint32_t r, std::unique_ptr<RtlModel> model);

    void acceptFlit(uint8_t port, const noc::Flit& f, uint64_t now) override;
    void acceptCredit(uint8_t port, uint8_t vc) override;
    void evaluate(uint64_t now, noc::Network& net) override;
    uint32_t buffered() const override { return buffered_; }

    void setListener(Listener* l) { listener_ = l; }
    // FST of the RTL internals, time-aligned with NocShell's VCD (cycle c at c * period ps).
    // Throws if this variant was built without tracing.
    void openTrace(const std::string& path);

    uint32_t id() const { return id_; }
    uint64_t traversals() const override { return traversals_; }
    uint32_t maxOccupancy() const override { return max_occupancy_; }
    uint64_t clocks() const { return clocks_; }  // RTL clock cycles simulated (incl. replayed)

  private:
    void clockIdle(uint64_t cycle);
    void checkErrors(uint64_t cycle) const;
    uint64_t pack(const noc::Flit& f, uint32_t tag) const;
    void dump(uint64_t cycle);

    const noc::Network& net_;
    std::unique_ptr<RtlModel> model_;
    RtlPins& pins_;
    uint32_t id_;
    uint8_t ports_, vcs_, depth_;
    uint32_t max_ser_ = 1;
    uint32_t out_link_[8], in_link_[8];
    // Flits delivered this cycle, one per input port at most (a link carries one per cycle).
    uint8_t in_mask_ = 0;
    uint64_t in_word_[8] = {};
    // Credits per output port not yet shown to the RTL (ring buffers, ports x capacity).
    std::vector<uint8_t> cr_q_;
    uint32_t cr_cap_;
    uint32_t cr_head_[8] = {}, cr_count_[8] = {};
    // Flit pool: the RTL carries the index.
    std::vector<noc::Flit> pool_;
    std::vector<uint32_t> free_;
    std::vector<uint8_t> occupancy_;  // per input VC, for maxOccupancy()
    uint32_t buffered_ = 0;
    uint32_t max_occupancy_ = 0;
    uint64_t traversals_ = 0, clocks_ = 0;
    bool started_ = false;
    uint64_t last_ = 0;  // last cycle clocked
    uint64_t period_ps_;
    bool tracing_ = false, dumped_ = false;
    uint64_t last_dump_ps_ = 0;
    Listener* listener_ = nullptr;
};

}  // namespace wsc::rtl
