#include "core/SramTarget.h"

namespace wsc::core {

using namespace sc_core;
using namespace tlm;

SramTarget::SramTarget(sc_module_name name, Sram& sram, sc_time period)
    : sc_module(name), socket("socket"), sram_(sram), period_(period) {
    socket.register_b_transport(this, &SramTarget::b_transport);
    socket.register_nb_transport_fw(this, &SramTarget::nb_transport_fw);
    socket.register_transport_dbg(this, &SramTarget::transport_dbg);
}

bool SramTarget::access(tlm_generic_payload& t) {
    if (t.get_byte_enable_ptr()) {
        t.set_response_status(TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return false;
    }
    const bool ok = t.is_write()
                        ? sram_.write(t.get_address(), t.get_data_ptr(), t.get_data_length())
                        : sram_.read(t.get_address(), t.get_data_ptr(), t.get_data_length());
    t.set_response_status(ok ? TLM_OK_RESPONSE : TLM_ADDRESS_ERROR_RESPONSE);
    ++accesses_;
    return ok;
}

void SramTarget::b_transport(tlm_generic_payload& t, sc_time& d) {
    access(t);
    d +=
        period_ * double(sram_.params().access_latency + sram_.transferCycles(t.get_data_length()));
}

tlm_sync_enum SramTarget::nb_transport_fw(tlm_generic_payload& t, tlm_phase& ph, sc_time& d) {
    if (ph != BEGIN_REQ) return TLM_COMPLETED;
    access(t);
    d +=
        period_ * double(sram_.params().access_latency + sram_.transferCycles(t.get_data_length()));
    ph = BEGIN_RESP;
    return TLM_COMPLETED;
}

unsigned int SramTarget::transport_dbg(tlm_generic_payload& t) {
    return access(t) ? t.get_data_length() : 0;
}

}  // namespace wsc::core
