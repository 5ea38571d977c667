#pragma once
// What a core-to-core NoC message is, packed into noc::Message::tag (the NoC never reads it):
// bits 60-63 kind; the rest per kind (sequence number, remote buffer, event, DMA operation...).
// MemReq/MemResp are not core messages: they travel between a core and a memory port attached at
// a NoC node (NocMemoryPort); CoreArray hands them to the port, never to the core at that node.
#include <cstdint>

namespace wsc::core {

class MessageTag {
  public:
    enum Kind : uint8_t {
        Data = 0,
        Put = 1,
        GetReq = 2,
        GetResp = 3,
        BarArrive = 4,
        BarRelease = 5,
        MemReq = 6,
        MemResp = 7
    };
    static constexpr uint64_t kMaxGetBytes = (uint64_t{1} << 24) - 1;
    static constexpr uint32_t kMaxOp = (1u << 20) - 1;

    static Kind kind(uint64_t t) { return static_cast<Kind>(t >> 60); }
    // Data: the sender's sequence number in its (destination, stream) and its stream.
    static uint64_t data(uint32_t seq, uint8_t stream = 0) {
        return seq | (uint64_t{stream} << 32);
    }
    static uint32_t seq(uint64_t t) { return static_cast<uint32_t>(t); }
    static uint8_t stream(uint64_t t) { return static_cast<uint8_t>(t >> 32); }
    static uint64_t put(uint16_t rbuf, uint16_t event, bool raise) {
        return (uint64_t{Put} << 60) | (uint64_t{raise} << 32) | (uint64_t{event} << 16) | rbuf;
    }
    static uint16_t buf(uint64_t t) { return static_cast<uint16_t>(t); }
    static uint16_t event(uint64_t t) { return static_cast<uint16_t>(t >> 16); }
    static bool raise(uint64_t t) { return (t >> 32) & 1; }
    static uint64_t getReq(uint16_t rbuf, uint32_t op, uint64_t bytes) {
        return (uint64_t{GetReq} << 60) | (bytes << 36) | (uint64_t{op} << 16) | rbuf;
    }
    static uint32_t op(uint64_t t) { return static_cast<uint32_t>(t >> 16) & kMaxOp; }
    static uint64_t getBytes(uint64_t t) { return (t >> 36) & kMaxGetBytes; }
    static uint64_t getResp(uint32_t op) {
        return (uint64_t{GetResp} << 60) | (uint64_t{op} << 16);
    }
    static uint64_t barrier(Kind k, uint16_t group) { return (uint64_t{k} << 60) | group; }
    static uint16_t group(uint64_t t) { return static_cast<uint16_t>(t); }
    // Memory-port messages: which attached agent (port) and which of its requests.
    static bool isMemory(uint64_t t) { return kind(t) == MemReq || kind(t) == MemResp; }
    static uint64_t memory(Kind k, uint16_t agent, uint32_t request) {
        return (uint64_t{k} << 60) | (uint64_t{agent} << 32) | request;
    }
    static uint16_t agent(uint64_t t) { return static_cast<uint16_t>(t >> 32); }
    static uint32_t request(uint64_t t) { return static_cast<uint32_t>(t); }
};

}  // namespace wsc::core
