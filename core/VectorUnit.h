#pragma once
// SIMD vector unit: `lanes` elements per cycle behind a pipeline of `latency` cycles (the op's
// own VectorParams::op_latency, else its class: `latency`, or `special_latency` for
// transcendental ops), fed through one SRAM port, so a long op is bound by lanes or by the port:
//   cycles = latency + max(ceil(n / lanes), ceil(bytes_moved / port_bytes)) - 1
//            (+ ceil(log2 lanes) for the reduction tree of a reduce op).
// execute() does the fp32 math in functional mode.
#include <cstdint>

#include "core/CoreParams.h"
#include "firmware/Instruction.h"

namespace wsc::core {

class VectorUnit {
  public:
    VectorUnit(const VectorParams& p, uint32_t port_bytes);
    uint64_t cycles(firmware::Opcode op, uint64_t n, firmware::DType t) const;
    static void execute(firmware::Opcode op, const float* a, const float* b, float* c, uint32_t n,
                        float imm);
    // Operands the op reads (1 or 2), for SRAM traffic.
    static uint32_t inputs(firmware::Opcode op);

  private:
    VectorParams p_;
    uint32_t port_bytes_;
    uint32_t tree_;  // ceil(log2(lanes))
};

}  // namespace wsc::core
