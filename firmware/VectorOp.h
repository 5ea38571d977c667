#pragma once
// A vector-unit instruction (docs/ISA.md): c = op(a, b) over n elements, imm for the ops that take
// a scalar. The composed schedules (decode, prefill, attention) emit many; one spelling.
#include <cstdint>

#include "firmware/Instruction.h"

namespace wsc::firmware {

inline Instruction vectorOp(Opcode op, uint16_t a, uint16_t b, uint16_t c, uint32_t n,
                            float imm = 0.0f) {
    Instruction i;
    i.op = op, i.a = a, i.b = b, i.c = c, i.n = n, i.imm = imm;
    return i;
}

}  // namespace wsc::firmware
