#pragma once
// The SystemC side of one memory port: a TLM-2.0 initiator (base protocol, nb_transport AT)
// shared by every core that uses the port. Cores push MemoryRequests into a plain queue from
// inside the NoC shell's step; one SC_METHOD sends them as BEGIN_REQ (at most one request phase
// open, at most `max_outstanding` transactions in flight) and hands each answer back through
// `onDone` with the NoC cycle it becomes visible. The target can be SimpleMemory or the HBM
// controller: same socket, same protocol.
//
// The answer crosses into the NoC clock domain (docs/ARCHITECTURE.md, "Clock domains"):
//  - Crossing::synchronous() (default; a target timed in the NoC domain, e.g. SimpleMemory):
//    captured by the first NoC edge strictly after BEGIN_RESP, as by a register;
//  - Crossing::asynchronous(S) (a target on its own clock, e.g. HBM at tCK): the
//    noc::ClockDomainCrossing rule, the first NoC edge at or after BEGIN_RESP plus S
//    synchronizer cycles.
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "core/MemoryPort.h"
#include "noc/NocShell.h"

namespace wsc::core {

class MemoryBridge : public sc_core::sc_module, public MemoryPort, public tlm::tlm_mm_interface {
  public:
    tlm_utils::simple_initiator_socket<MemoryBridge> socket;

    SC_HAS_PROCESS(MemoryBridge);
    MemoryBridge(sc_core::sc_module_name name, uint32_t max_outstanding, uint32_t max_bytes);

    struct Crossing {
        bool async = false;
        uint32_t sync = 0;  // synchronizer cycles (async only)
        static Crossing synchronous() { return {false, 0}; }
        static Crossing asynchronous(uint32_t s) { return {true, s}; }
    };

    // `shell` gives the NoC clock (cycles and edges); `onDone` receives each answered request
    // (CoreArray::memoryDone, then a shell wake-up).
    void connect(const noc::NocShell& shell, std::function<void(MemoryRequest&&)> onDone);
    void setCrossing(Crossing c) { crossing_ = c; }
    Crossing crossing() const { return crossing_; }
    void push(MemoryRequest&& r) override;
    void free(tlm::tlm_generic_payload* t) override;  // tlm_mm_interface
    uint64_t transactions() const { return transactions_; }
    // Host access to the target's contents through transport_dbg (test setup, result readout);
    // throws if the target moved fewer bytes.
    void debugAccess(uint64_t addr, void* data, uint32_t len, bool write);
    uint32_t inFlight() const { return in_flight_; }
    uint32_t maxOutstanding() const { return static_cast<uint32_t>(slots_.size()); }
    // Sets the number of transactions in flight at once (hw::MemoryStack: the per-port limit
    // times the NoC ports feeding this bridge). Only while nothing is queued or in flight.
    void setMaxOutstanding(uint32_t n);

  private:
    // A payload that knows its slot, so an answer and a release find their slot in O(1)
    // (a scan over 10^3 slots per transaction was 12% of a WATOS step's simulation).
    struct Payload : tlm::tlm_generic_payload {
        Payload(tlm::tlm_mm_interface* mm, uint32_t i) : tlm::tlm_generic_payload(mm), slot(i) {}
        uint32_t slot;
    };
    struct Slot {
        std::unique_ptr<Payload> payload;
        MemoryRequest req;
        bool busy = false;
    };
    void process();
    tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& ph,
                                       sc_core::sc_time& delay);
    void complete(tlm::tlm_generic_payload& t);
    uint32_t slotIndex(const tlm::tlm_generic_payload& t) const;

    std::vector<Slot> slots_;
    std::vector<uint32_t> free_slots_;
    std::deque<MemoryRequest> queue_;
    std::vector<uint8_t> scratch_;                  // data pointer for timing-only transactions
    tlm::tlm_generic_payload* req_open_ = nullptr;  // BEGIN_REQ sent, END_REQ not yet seen
    sc_core::sc_event wake_;
    const noc::NocShell* shell_ = nullptr;
    Crossing crossing_;
    std::function<void(MemoryRequest&&)> on_done_;
    uint32_t in_flight_ = 0;
    uint64_t transactions_ = 0;
};

}  // namespace wsc::core
