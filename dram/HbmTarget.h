#pragma once
// SystemC shell of one HBM stack controller: a TLM-2.0 target speaking the base protocol's AT
// phases (BEGIN_REQ/END_REQ/BEGIN_RESP/END_RESP) over nb_transport_fw/bw. All timing lives in the
// plain C++ HbmController; this module only converts between TLM and cycles. Its one SC_METHOD is
// woken by events (a request, an END_RESP) or by next_trigger at the controller's next busy cycle,
// so an idle stack costs nothing but its refreshes. In functional mode it also carries the data.
// Refresh runs from time zero, so the simulation never runs out of events by itself: end it with
// sc_start(duration) or sc_stop().
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <systemc>
#include <tlm>

#include "dram/BackingStore.h"
#include "dram/HbmController.h"
#include "dram/RingBuffer.h"

namespace wsc::dram {

class HbmTarget : public sc_core::sc_module {
  public:
    tlm_utils::simple_target_socket<HbmTarget> socket;

    SC_HAS_PROCESS(HbmTarget);
    HbmTarget(sc_core::sc_module_name name, const HbmParams& p, bool functional = true);

    HbmController& controller() { return ctrl_; }
    const HbmController& controller() const { return ctrl_; }
    uint64_t cycle() const;  // current controller cycle
    uint64_t requestsAccepted() const { return accepted_; }
    uint64_t responsesSent() const { return responses_; }
    uint64_t processActivations() const { return activations_; }

  private:
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& ph,
                                       sc_core::sc_time& delay);
    unsigned int transport_dbg(tlm::tlm_generic_payload& t);
    void peqCallback(tlm::tlm_generic_payload& t, const tlm::tlm_phase& ph);
    void process();
    // A transaction holds its place from acceptance until its BEGIN_RESP is sent, not just while
    // the controller works on it, so finished-but-unanswered ones cannot overfill the shell.
    bool canTake() const { return ctrl_.canAccept() && in_shell_ < max_in_shell_; }
    void accept(tlm::tlm_generic_payload& t);
    void sendResponses();

    sc_core::sc_time tck_;
    bool functional_;
    HbmController ctrl_;
    BackingStore store_;
    tlm_utils::peq_with_cb_and_phase<HbmTarget> peq_;
    sc_core::sc_event wake_;
    tlm::tlm_generic_payload* req_waiting_ = nullptr;    // BEGIN_REQ seen, END_REQ withheld
    RingBuffer<tlm::tlm_generic_payload*> responses_q_;  // finished, BEGIN_RESP not yet sent
    tlm::tlm_generic_payload* resp_open_ = nullptr;      // BEGIN_RESP sent, END_RESP awaited
    uint64_t accepted_ = 0, responses_ = 0, activations_ = 0;
    uint32_t in_shell_ = 0;  // accepted, BEGIN_RESP not yet sent
    uint32_t max_in_shell_;
};

}  // namespace wsc::dram
