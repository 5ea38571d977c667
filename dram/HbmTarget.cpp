#include "dram/HbmTarget.h"

namespace wsc::dram {

using namespace sc_core;
using namespace tlm;

HbmTarget::HbmTarget(sc_module_name name, const HbmParams& p, bool functional)
    : sc_module(name),
      socket("socket"),
      tck_(double(p.tCK_ps), SC_PS),
      functional_(functional),
      ctrl_(p),
      peq_(this, &HbmTarget::peqCallback),
      responses_q_(p.max_outstanding),
      max_in_shell_(p.max_outstanding) {
    socket.register_nb_transport_fw(this, &HbmTarget::nb_transport_fw);
    socket.register_transport_dbg(this, &HbmTarget::transport_dbg);
    SC_METHOD(process);
    sensitive << wake_;  // runs once at time zero, then only via next_trigger
}

uint64_t HbmTarget::cycle() const {
    return sc_time_stamp().value() / tck_.value();
}

tlm_sync_enum HbmTarget::nb_transport_fw(tlm_generic_payload& t, tlm_phase& ph, sc_time& delay) {
    if (ph == BEGIN_REQ || ph == END_RESP) {
        peq_.notify(t, ph, delay);  // honour the annotated delay
        return TLM_ACCEPTED;
    }
    SC_REPORT_ERROR(name(), "nb_transport_fw: unexpected phase");
    return TLM_COMPLETED;
}

void HbmTarget::peqCallback(tlm_generic_payload& t, const tlm_phase& ph) {
    if (ph == BEGIN_REQ) {
        if (req_waiting_) SC_REPORT_ERROR(name(), "BEGIN_REQ before END_REQ of the previous one");
        if (canTake())
            accept(t);
        else
            req_waiting_ = &t;  // END_REQ is withheld: the initiator's back-pressure
    } else {                    // END_RESP
        if (&t != resp_open_)
            SC_REPORT_ERROR(name(), "END_RESP for a transaction not in BEGIN_RESP");
        if (t.has_mm()) t.release();
        resp_open_ = nullptr;
    }
    wake_.notify(SC_ZERO_TIME);
}

void HbmTarget::accept(tlm_generic_payload& t) {
    if (t.has_mm()) t.acquire();
    ++accepted_;
    ++in_shell_;
    const uint64_t addr = t.get_address();
    const uint32_t len = t.get_data_length();
    const bool write = t.is_write();
    if (t.get_byte_enable_ptr() != nullptr) {
        t.set_response_status(TLM_BYTE_ENABLE_ERROR_RESPONSE);
        responses_q_.push(&t);
    } else if (len == 0 || addr + len > ctrl_.mapper().capacity() || addr + len < addr) {
        t.set_response_status(TLM_ADDRESS_ERROR_RESPONSE);
        responses_q_.push(&t);
    } else if (!t.is_read() && !write) {
        t.set_response_status(TLM_COMMAND_ERROR_RESPONSE);
        responses_q_.push(&t);
    } else {
        // Data moves at acceptance, so the functional result follows acceptance order exactly;
        // the controller then models only when the response may be sent.
        if (functional_) {
            if (write)
                store_.write(addr, t.get_data_ptr(), len);
            else
                store_.read(addr, t.get_data_ptr(), len);
        }
        t.set_response_status(TLM_INCOMPLETE_RESPONSE);
        ctrl_.submit(addr, len, write, cycle(), reinterpret_cast<uintptr_t>(&t));
    }
    tlm_phase ph = END_REQ;
    sc_time zero = SC_ZERO_TIME;
    socket->nb_transport_bw(t, ph, zero);  // base protocol: the initiator returns TLM_ACCEPTED
}

void HbmTarget::sendResponses() {
    while (!resp_open_ && !responses_q_.empty()) {
        tlm_generic_payload* t = responses_q_.front();
        responses_q_.pop();
        if (t->get_response_status() == TLM_INCOMPLETE_RESPONSE)
            t->set_response_status(TLM_OK_RESPONSE);
        ++responses_;
        --in_shell_;
        tlm_phase ph = BEGIN_RESP;
        sc_time zero = SC_ZERO_TIME;
        const tlm_sync_enum s = socket->nb_transport_bw(*t, ph, zero);
        if (s == TLM_ACCEPTED || (s == TLM_UPDATED && ph == BEGIN_RESP)) {
            resp_open_ = t;  // wait for END_RESP on the forward path
        } else if (t->has_mm()) {
            t->release();  // TLM_COMPLETED or TLM_UPDATED(END_RESP): done
        }
    }
}

void HbmTarget::process() {
    ++activations_;
    const uint64_t now = cycle();
    ctrl_.tick(now);
    HbmCompletion c;
    while (ctrl_.popCompletion(c))
        responses_q_.push(reinterpret_cast<tlm_generic_payload*>(uintptr_t(c.user)));
    sendResponses();
    // Sending responses may have made room: take a held-back request now rather than at some
    // later, unrelated wake-up.
    if (req_waiting_ && canTake()) {
        tlm_generic_payload* t = req_waiting_;
        req_waiting_ = nullptr;
        accept(*t);
        sendResponses();  // an error response goes straight out
    }

    const uint64_t w = ctrl_.nextWake();
    if (w == HbmController::kNever) {
        next_trigger(wake_);  // idle: only a new request or END_RESP wakes us
        return;
    }
    const sc_time at = tck_ * double(w);
    next_trigger(at > sc_time_stamp() ? at - sc_time_stamp() : SC_ZERO_TIME, wake_);
}

unsigned int HbmTarget::transport_dbg(tlm_generic_payload& t) {
    const uint64_t addr = t.get_address();
    const uint32_t len = t.get_data_length();
    if (addr + len > ctrl_.mapper().capacity()) return 0;
    if (t.is_write())
        store_.write(addr, t.get_data_ptr(), len);
    else if (t.is_read())
        store_.read(addr, t.get_data_ptr(), len);
    return len;
}

}  // namespace wsc::dram
