#pragma once
// Network interface of one node: a FIFO source queue of packets (unbounded, so offered load is
// never throttled and source queueing shows in packet latency), flit injection under credit flow
// control onto the injection link, and an ejection side that takes every flit on arrival,
// returns its credit and checks that flits arrive in order within their packet. With an
// EjectionGate the node may refuse a flit: it then stays in the NI's ejection buffer (the
// router's credits for it stay spent), later flits of its VC queue behind it, and drain() retries
// them when the gate's owner says room was made.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "noc/EjectionGate.h"
#include "noc/Flit.h"
#include "noc/Prefetch.h"

namespace wsc::noc {

class Network;

class NetworkInterface {
  public:
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    NetworkInterface(uint32_t node, uint32_t router, uint8_t port, uint32_t vcs, uint32_t depth,
                     uint8_t vc_lo, uint8_t vc_hi);

    // NocParams::interleave_injection.
    void setInterleave(bool on) { interleave_ = on; }
    uint32_t node() const { return node_; }
    uint32_t router() const { return router_; }
    uint8_t port() const { return port_; }
    uint32_t inj_link = 0, ej_link = 0;

    void enqueue(uint32_t packet_slot) { queue_.push_back(packet_slot); }
    bool active() const { return cur_ != kNone || !queue_.empty(); }
    size_t queued() const { return queue_.size() + (cur_ != kNone); }
    // Injects at most one flit; returns whether to try again next cycle (false when the queue is
    // empty or the packet waits for a credit: the credit's arrival wakes the NI, Network::step).
    bool inject(uint64_t now, Network& net);
    void acceptFlit(const Flit& f, uint64_t now, Network& net);
    void acceptCredit(uint8_t vc);
    // Offers the refused flits to the gate again, in arrival order per VC; returns how many
    // were taken.
    uint32_t drain(uint64_t now, Network& net);
    // Flits refused by the gate and still waiting here (their credits not returned).
    uint32_t held() const { return static_cast<uint32_t>(held_.size()); }
    const std::vector<Flit>& heldFlits() const { return held_; }

    // Counts a packet of multi-packet message `msg` (of `packets`) delivered here; returns how
    // many of its packets this node has now (the entry goes once all have arrived).
    uint32_t messagePacket(uint64_t msg, uint32_t packets) {
        for (size_t i = 0; i < msgs_.size(); ++i) {
            if (msgs_[i].first != msg) continue;
            const uint32_t got = ++msgs_[i].second;
            if (got == packets) msgs_[i] = msgs_.back(), msgs_.pop_back();
            return got;
        }
        if (packets > 1) msgs_.push_back({msg, 1});
        return 1;
    }

    // Cache hints for the network's event loop (Network::step).
    WSC_PREFETCH void prefetchObject() const { prefetchLines(this, sizeof(NetworkInterface)); }
    WSC_PREFETCH void prefetchRx() const {
        if (!rx_.empty()) prefetchLine(rx_.data());
    }
    // ... and for its injection loop, each after the one before has landed (after
    // prefetchObject, which brought the credits): the queue's front, then the packet inject()
    // reads.
    WSC_PREFETCH void prefetchTx() const {
        if (cur_ == kNone && !queue_.empty()) prefetchLine(&queue_.front());
    }
    WSC_PREFETCH void prefetchTxPacket(const PacketInfo* packets) const {
        if (cur_ != kNone)
            prefetchLine(packets + cur_);
        else if (!queue_.empty())
            prefetchLine(packets + queue_.front());
    }

    uint64_t flitsInjected() const { return flits_in_; }
    uint64_t flitsEjected() const { return flits_out_; }
    uint64_t packetsEjected() const { return packets_out_; }

  private:
    // Takes f off the network: `rx` is its packet's entry in rx_ (rx_.size(): none yet), `rest`
    // the gate's promise to take the packet's later flits (Admission::TakeRest).
    void consume(const Flit& f, size_t rx, bool rest, uint64_t now, Network& net);
    size_t findRx(uint32_t packet) const {
        size_t k = 0;
        while (k < rx_.size() && rx_[k].packet != packet) ++k;
        return k;
    }
    // Whether f may leave the network now; k is findRx(f.packet).
    Admission admit(const Flit& f, size_t k, uint64_t now, Network& net) const;

    uint32_t node_, router_;
    uint8_t port_, vcs_, depth_, vc_lo_, vc_hi_, vc_rr_ = 0;
    std::deque<uint32_t> queue_;
    uint32_t cur_ = kNone;
    bool interleave_ = false;
    uint64_t last_key_ = ~uint64_t{0};  // destination (or route) of the last packet taken
    uint16_t next_seq_ = 0;
    uint8_t cur_vc_ = 0;
    uint64_t busy_until_ = 0;
    // In the object (a VC count is at most 16, as a router's): a credit's arrival then reads
    // lines its event's hint fetched, not a separate allocation as well.
    static constexpr uint32_t kMaxVcs = 16;
    uint8_t credits_[kMaxVcs] = {};
    // Packets being received and the next flit index each expects. Usually one per VC, but a
    // multicast tree's ejection branch may share a VC with another packet, so keyed by packet.
    struct Rx {
        uint32_t packet;
        uint16_t next;  // flit index expected next
        bool rest;      // the gate takes its remaining flits without being asked
    };
    std::vector<Rx> rx_;
    std::vector<std::pair<uint64_t, uint32_t>> msgs_;  // messagePacket's counts
    // Flits the gate refused, in arrival order (FIFO per VC; empty unless a gate pushes back).
    std::vector<Flit> held_;
    uint64_t flits_in_ = 0, flits_out_ = 0, packets_out_ = 0;
};

}  // namespace wsc::noc
