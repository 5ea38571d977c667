#pragma once
// One piece of work a core's unit ran, with its exact cycles [begin, end): what a CoreTraceSink
// is told. `begin` is the cycle the instruction issued; `end` the cycle its operation completed
// (the unit is free / the data is visible), so end - begin is the cycles the model charged it.
#include <cstdint>

#include "firmware/Instruction.h"

namespace wsc::core {

// PE array (GEMM/GEMV), vector unit, egress (SEND streams the message out of SRAM), ingress (RECV
// from issue until the data has landed), DMA (memory port load/store, remote put/get) and the
// controller forwarding a RELAY; a stream held by `wait` for an event (from its first attempt
// until it issues; a wait that passes at once is not traced).
enum class TraceUnit : uint8_t { Pe, Vector, Send, Recv, Dma, Relay, Wait, Count };

inline const char* traceUnitName(TraceUnit u) {
    static const char* const names[] = {"compute", "vector", "send", "receive",
                                        "dma",     "relay",  "wait"};
    return names[static_cast<size_t>(u)];
}

struct TraceSpan {
    uint32_t core = 0;
    TraceUnit unit = TraceUnit::Pe;
    firmware::Opcode op = firmware::Opcode::Gemm;
    uint32_t pc = 0;  // index of the instruction in the core's program
    uint64_t begin = 0, end = 0;
    uint64_t bytes = 0;  // payload moved (send, recv, relay, dma)
    uint64_t work = 0;   // MACs (PE array) or elements (vector unit)
    // The other side: destination of a send / put, source of a recv / get, source of a relay.
    uint32_t peer = firmware::kNoCore, route = firmware::kNoRouteId;
    uint32_t peer2 = firmware::kNoCore, route2 = firmware::kNoRouteId;  // RELAY destination
    // A SEND's or RECV's message: its stream (the instruction stream of the sender, which the
    // receiver's matching stream shares) and its number in the (peer or route, stream) sequence
    // (core/Mailbox). With the two cores (or the route) it names the message, so a trace can
    // join a send to its receive. kNoSeq for other work.
    static constexpr uint32_t kNoSeq = 0xFFFFFFFFu;
    uint8_t stream = 0;
    uint32_t seq = kNoSeq;
};

}  // namespace wsc::core
