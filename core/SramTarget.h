#pragma once
// Optional TLM-2.0 target face of one core's SRAM, for blocks that address it memory-mapped (a
// host loader, a debugger, an RTL DMA under co-simulation). It is not instantiated per core by
// default: 65,536 cores must not each pay for an sc_module. Byte addresses are SRAM offsets as
// allocated (buffers in declaration order); only whole fp32 values of fp32 buffers are
// accessible. Latency: access_latency + ceil(bytes / port_bytes) cycles of `period`. For AT the
// target completes on the forward call (TLM_COMPLETED with the delay annotated), which the base
// protocol allows.
#include <tlm_utils/simple_target_socket.h>

#include <systemc>
#include <tlm>

#include "core/Sram.h"

namespace wsc::core {

class SramTarget : public sc_core::sc_module {
  public:
    tlm_utils::simple_target_socket<SramTarget> socket;

    SramTarget(sc_core::sc_module_name name, Sram& sram, sc_core::sc_time period);
    uint64_t accesses() const { return accesses_; }

  private:
    void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& d);
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& ph,
                                       sc_core::sc_time& d);
    unsigned int transport_dbg(tlm::tlm_generic_payload& t);
    bool access(tlm::tlm_generic_payload& t);

    Sram& sram_;
    sc_core::sc_time period_;
    uint64_t accesses_ = 0;
};

}  // namespace wsc::core
