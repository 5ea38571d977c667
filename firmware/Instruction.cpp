#include "firmware/Instruction.h"

namespace wsc::firmware {

bool operator==(const Instruction& a, const Instruction& b) {
    return a.op == b.op && a.dtype == b.dtype && a.flags == b.flags && a.a == b.a && a.b == b.b &&
           a.c == b.c && a.rbuf == b.rbuf && a.event == b.event && a.group == b.group &&
           a.m == b.m && a.k == b.k && a.n == b.n && a.peer == b.peer && a.route == b.route &&
           a.peer2 == b.peer2 && a.route2 == b.route2 && a.bytes == b.bytes && a.addr == b.addr &&
           a.imm == b.imm && a.raise == b.raise;
}

uint32_t dtypeBytes(DType t) {
    switch (t) {
        case DType::FP32:
            return 4;
        case DType::FP16:
        case DType::BF16:
            return 2;
        case DType::INT8:
            return 1;
    }
    return 4;
}

uint32_t dtypeBits(DType t) {
    return 8 * dtypeBytes(t);
}

const char* dtypeName(DType t) {
    switch (t) {
        case DType::FP32:
            return "fp32";
        case DType::FP16:
            return "fp16";
        case DType::BF16:
            return "bf16";
        case DType::INT8:
            return "int8";
    }
    return "?";
}

const char* opcodeName(Opcode op) {
    static const char* const names[] = {
        "gemm",    "gemv",   "vadd",     "vsub",    "vmul",   "vmax",     "vscale",    "vexp",
        "vrecip",  "vsilu",  "vgelu",    "vcopy",   "vrsqrt", "vbsub",    "vbmul",     "vredsum",
        "vredmax", "vsqsum", "send",     "recv",    "relay",  "dma.load", "dma.store", "dma.put",
        "dma.get", "wait",   "wait.all", "barrier", "signal", "loop",     "endloop",   "swap"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<size_t>(Opcode::Count),
                  "one name per opcode");
    auto i = static_cast<size_t>(op);
    return i < static_cast<size_t>(Opcode::Count) ? names[i] : "?";
}

bool isVectorOp(Opcode op) {
    return op >= Opcode::VAdd && op <= Opcode::VSqSum;
}

bool isReduction(Opcode op) {
    return op == Opcode::VRedSum || op == Opcode::VRedMax || op == Opcode::VSqSum;
}

bool isSpecialVectorOp(Opcode op) {
    return op == Opcode::VExp || op == Opcode::VRecip || op == Opcode::VSilu ||
           op == Opcode::VGelu || op == Opcode::VRsqrt;
}

}  // namespace wsc::firmware
