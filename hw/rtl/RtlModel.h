#pragma once
// A clocked RTL router model as the wrapper sees it: raw pointers to the top-level ports of the
// Verilated wsc_router_top (same shapes for every parameter set) plus the two half-cycles of a
// clock. The wrapper writes and reads the ports directly, so a cycle costs two virtual calls.
#include <cstdint>
#include <string>

namespace wsc::rtl {

struct RtlPins {
    // Static configuration (held for the whole run).
    uint16_t* my_x;
    uint16_t* my_y;
    uint8_t* port_en;
    uint8_t* cfg_ser;  // [8]
    // Per-cycle inputs.
    uint8_t* rst_n;
    uint8_t* in_valid;
    uint64_t* in_flit;  // [8]
    uint8_t* cr_in_valid;
    uint8_t* cr_in_vc;  // [8]
    // Per-cycle outputs, valid after settle().
    const uint8_t* out_valid;
    const uint64_t* out_flit;  // [8]
    const uint8_t* cr_out_valid;
    const uint8_t* cr_out_vc;  // [8]
    const uint8_t* sw_out;     // [8]
    const uint8_t* err_overflow;
    const uint8_t* err_credit;
    const uint8_t* err_protocol;
};

class RtlModel {
  public:
    virtual ~RtlModel() = default;
    virtual RtlPins& pins() = 0;
    // Clock low with the inputs of the cycle: the combinational outputs settle.
    virtual void settle() = 0;
    // Rising edge: registers take the cycle's results.
    virtual void rise() = 0;
    // FST waveform of the model's internals; false when this variant was built without tracing.
    virtual bool openTrace(const std::string& path) = 0;
    // Dumps the current values at `time_ps` (no-op without an open trace).
    virtual void dump(uint64_t time_ps) = 0;
};

}  // namespace wsc::rtl
