#pragma once
// Matches arriving messages with posted receives. Messages from one source (or on one route)
// form a stream numbered by the sender; the receiver consumes the stream in order, so a receive
// matches the right message even when the NoC delivers two of them out of order. Arrivals
// before their receive wait here, in the SRAM's receive buffer (their `held` bytes, which the
// Controller counts against core.rx_buffer); the bytes of a message still arriving are kept per
// message until it completes.
#include <cstdint>
#include <vector>

#include "noc/Packet.h"

namespace wsc::core {

class Mailbox {
  public:
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    // Stream keys: a core id, or a route id tagged with bit 32; bits 40-47 hold the instruction
    // stream (firmware/Program.h) of the sender and the receiver: messages are matched per
    // (source, stream), so two streams of one core talking to the same peer never take each
    // other's messages.
    static uint64_t coreKey(uint32_t core, uint8_t stream = 0) {
        return core | (uint64_t{stream} << 40);
    }
    static uint64_t routeKey(uint32_t route, uint8_t stream = 0) {
        return (uint64_t{1} << 32) | route | (uint64_t{stream} << 40);
    }
    static bool isRouteKey(uint64_t key) { return (key >> 32) & 1; }
    static uint8_t streamOfKey(uint64_t key) { return static_cast<uint8_t>(key >> 40); }

    struct Arrival {
        uint64_t key = 0;
        uint32_t seq = 0;
        uint64_t bytes = 0;
        uint64_t cycle = 0;
        uint64_t held = 0;  // bytes of it in the receive buffer (0: it streamed into its recv)
        noc::Payload payload;
    };

    uint32_t nextSendSeq(uint64_t key) { return bump(send_seq_, key); }
    uint32_t nextRecvSeq(uint64_t key) { return bump(recv_seq_, key); }
    // Takes the arrival (key, seq) if it is already here.
    bool take(uint64_t key, uint32_t seq, Arrival& out);
    // Registers a receive for (key, seq) completing operation `op`.
    void post(uint64_t key, uint32_t seq, uint32_t op) { posted_.push_back({key, seq, op}); }
    // A message arrived: returns the posted operation it completes (and leaves `a` to the
    // caller), or stores it and returns kNone.
    uint32_t arrive(Arrival& a);
    struct Posted {
        uint64_t key;
        uint32_t seq;
        uint32_t op;
    };
    // A receive (or relay) for (key, seq) is posted: its flits land in the recv's buffer.
    // Asked for every part of an arriving message: the last positive answer is kept (a posted
    // receive stays posted until arrive() takes it, which forgets it).
    bool isPosted(uint64_t key, uint32_t seq) const {
        if (key == hit_key_ && seq == hit_seq_) return true;
        for (const Posted& p : posted_)
            if (p.key == key && p.seq == seq) return hit_key_ = key, hit_seq_ = seq, true;
        return false;
    }
    // Bytes of message `msg` taken into the receive buffer before it completed.
    void holdPart(uint64_t msg, uint64_t bytes);
    uint64_t takePart(uint64_t msg);
    size_t unmatched() const { return arrivals_.size(); }
    const std::vector<Arrival>& arrivals() const { return arrivals_; }
    size_t posted() const { return posted_.size(); }
    const std::vector<Posted>& postedList() const { return posted_; }

  private:
    struct Counter {
        uint64_t key;
        uint32_t next;
    };
    static uint32_t bump(std::vector<Counter>& v, uint64_t key);
    // Few peers per core: linear search beats hashing and costs no allocation per lookup.
    std::vector<Counter> send_seq_, recv_seq_;
    std::vector<Posted> posted_;
    mutable uint64_t hit_key_ = ~uint64_t{0};
    mutable uint32_t hit_seq_ = 0;
    std::vector<Arrival> arrivals_;
    std::vector<std::pair<uint64_t, uint64_t>> parts_;  // (message id, bytes held so far)
};

}  // namespace wsc::core
