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

#include "noc/Flit.h"

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

    uint64_t flitsInjected() const { return flits_in_; }
    uint64_t flitsEjected() const { return flits_out_; }
    uint64_t packetsEjected() const { return packets_out_; }

  private:
    void consume(const Flit& f, uint64_t now, Network& net);

    uint32_t node_, router_;
    uint8_t port_, vcs_, depth_, vc_lo_, vc_hi_, vc_rr_ = 0;
    std::deque<uint32_t> queue_;
    uint32_t cur_ = kNone;
    bool interleave_ = false;
    uint64_t last_key_ = ~uint64_t{0};  // destination (or route) of the last packet taken
    uint16_t next_seq_ = 0;
    uint8_t cur_vc_ = 0;
    uint64_t busy_until_ = 0;
    std::vector<uint8_t> credits_;
    // Packets being received and the next flit index each expects. Usually one per VC, but a
    // multicast tree's ejection branch may share a VC with another packet, so keyed by packet.
    std::vector<std::pair<uint32_t, uint16_t>> rx_;
    // Flits the gate refused, in arrival order (FIFO per VC; empty unless a gate pushes back).
    std::vector<Flit> held_;
    uint64_t flits_in_ = 0, flits_out_ = 0, packets_out_ = 0;
};

}  // namespace wsc::noc
