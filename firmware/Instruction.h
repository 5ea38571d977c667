#pragma once
// One firmware instruction: a flat record whose fields are used according to its opcode (see
// docs/ISA.md for which fields each opcode takes). Flat rather than a variant so a program is a
// plain contiguous vector the controller walks without indirection or allocation.
#include <cstdint>
#include <limits>
#include <string>

namespace wsc::firmware {

enum class Opcode : uint8_t {
    // PE array
    Gemm,  // C[m x n] (+)= A[m x k] * B[k x n]
    Gemv,  // C[n] (+)= A[k] * B[k x n]  (a GEMM with m = 1)
    // vector unit, element-wise over n elements
    VAdd,
    VSub,
    VMul,
    VMax,    // c = a op b
    VScale,  // c = a * imm
    VExp,
    VRecip,
    VSilu,
    VGelu,
    VCopy,   // c = f(a)
    VRsqrt,  // c = 1 / sqrt(a + imm)
    VBSub,
    VBMul,  // c = a op b[0]  (broadcast scalar)
    VRedSum,
    VRedMax,
    VSqSum,  // c[0] = reduce(a)
    // communication
    Send,   // a -> core `peer` or route `route`
    Recv,   // c <- core `peer` or route `route`
    Relay,  // receive from peer/route and forward to peer2/route2, no compute
    DmaLoad,
    DmaStore,  // memory port <-> SRAM (c <- mem[addr], mem[addr] <- a)
    DmaPut,
    DmaGet,  // one-sided remote SRAM: put a -> peer.rbuf, get peer.rbuf -> c
    // synchronisation and control
    Wait,     // wait until event `event` has fired `n` times (consumes them)
    WaitAll,  // fence: every outstanding operation of this core has completed
    Barrier,  // all cores of group `group`
    Signal,   // fence on this stream's own work, then raise event `event` on this core
    Loop,     // repeat the body up to the matching EndLoop n times
    EndLoop,
    Swap,  // buffers a and b exchange their storage for later instructions (double buffering)
    Count
};

enum class DType : uint8_t { FP32, FP16, BF16, INT8 };

constexpr uint16_t kNoBuf = std::numeric_limits<uint16_t>::max();
constexpr uint32_t kNoCore = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kNoRouteId = std::numeric_limits<uint32_t>::max();

struct Instruction {
    static constexpr uint8_t kAccumulate = 1;  // GEMM/GEMV: C += A*B instead of C = A*B
    static constexpr uint8_t kTransB = 2;      // GEMM: B is stored [n x k], C (+)= A * B^T

    Opcode op = Opcode::WaitAll;
    DType dtype = DType::FP32;  // GEMM/GEMV operand type (timing: bytes and PE passes)
    uint8_t flags = 0;
    uint16_t a = kNoBuf, b = kNoBuf, c = kNoBuf;  // local buffers
    uint16_t rbuf = kNoBuf;                       // remote buffer (DMA put/get)
    uint16_t event = 0;                           // WAIT, and event raised by DMA put/load/store
    uint16_t group = 0;                           // BARRIER
    uint32_t m = 0, k = 0, n = 0;                 // shapes; n = elements / loop count / WAIT count
    uint32_t peer = kNoCore, route = kNoRouteId;  // other core or route id
    uint32_t peer2 = kNoCore, route2 = kNoRouteId;  // RELAY destination
    uint64_t bytes = 0;
    uint64_t addr = 0;   // memory-port address (DMA load/store)
    float imm = 0.0f;    // scalar operand (VScale, VRsqrt epsilon)
    bool raise = false;  // DMA: raise `event` at the receiving side when done
};

// Every field equal (the text form's round trip is checked with it).
bool operator==(const Instruction& a, const Instruction& b);
inline bool operator!=(const Instruction& a, const Instruction& b) {
    return !(a == b);
}

uint32_t dtypeBytes(DType t);
uint32_t dtypeBits(DType t);
const char* dtypeName(DType t);
const char* opcodeName(Opcode op);
bool isVectorOp(Opcode op);
bool isReduction(Opcode op);
// Transcendental ops use the vector unit's longer "special" latency.
bool isSpecialVectorOp(Opcode op);

}  // namespace wsc::firmware
