#pragma once
// A memory port (one HBM stack or simple memory) attached at a NoC node, usually an edge
// router's core node. It implements core::MemoryPort, so cores and their DMA engines do not
// change: a DMA chunk pushed by a core becomes a request message over the NoC to the attach node
// (a `header_bytes` header; a store also carries its data, as payload in functional mode); there
// the port issues the TLM transaction through `target` (the port's MemoryBridge, bound to
// SimpleMemory or dram::HbmTarget); when the target answers, the port sends a response message
// back (a load's data with the header, a store's ack as the header alone) and the chunk is handed
// to the core the cycle after the response is delivered.
//
// The port buffers at most `window` bursts between issuing them to the target and seeing their
// response delivered (end-to-end credits for its response buffer); requests beyond that wait at
// the port in arrival order. Without this, a fast target would finish a whole stream at once and
// park it in the attach node's NI queue, which no hardware buffer holds.
//
// Several ports may share one target (a stack attached through several edge routers): each
// tags its transactions with its `via` index, and the owner (hw::MemoryStack) hands every answer
// to the port whose index it carries.
//
// Its messages carry MessageTag::MemReq / MemResp with the agent index CoreArray gave it, so
// CoreArray delivers them here and never to the core at the attach node. The port shares that
// node's NI (injection port) with its core: a core there that also sends sees the port's
// responses in its egress queue, as it would share the router port in hardware.
#include <cstdint>
#include <deque>
#include <vector>

#include "core/CoreArray.h"
#include "core/MemoryPort.h"
#include "core/MemoryRequest.h"
#include "core/NocAgent.h"
#include "noc/Network.h"

namespace wsc::core {

class NocMemoryPort : public MemoryPort, public NocAgent {
  public:
    struct Stats {
        uint64_t requests = 0, reads = 0, writes = 0;
        uint64_t bytes_read = 0, bytes_written = 0;              // data bytes moved for cores
        uint64_t request_msg_bytes = 0, response_msg_bytes = 0;  // on the NoC, headers included
        uint64_t hop_sum = 0;           // XY/mesh distance core <-> port, per request
        uint64_t req_noc_cycles = 0;    // core push -> request delivered at the port
        uint64_t port_wait_cycles = 0;  // delivered at the port -> issued to the target
        uint64_t mem_cycles = 0;        // issued to the target -> its answer visible
        uint32_t max_waiting = 0;       // most requests waiting at the port for a credit
        uint64_t resp_noc_cycles = 0;   // answer visible -> response delivered at the core
        uint64_t round_trip_cycles = 0, max_round_trip = 0;  // push -> visible to the core
        uint64_t first_push = UINT64_MAX, last_done = 0;     // cycles
    };

    // `target` receives the port-side transactions (its answers must come back through
    // targetDone). Registers itself with `cores` as a NocAgent and as a memory port.
    // `via` is this port's index among the ports sharing `target` (MemoryRequest::via of the
    // transactions it issues; hw::MemoryStack routes the answers back by it).
    NocMemoryPort(noc::Network& net, CoreArray& cores, uint32_t node, MemoryPort& target,
                  uint32_t header_bytes = 16, uint32_t window = 32, uint16_t via = 0);

    // MemoryPort: a core's DMA chunk (called inside the core's evaluation, at cycles.now()).
    void push(MemoryRequest&& r) override;
    // The target answered a port-side transaction; r.ready is the cycle it is visible at the port.
    void targetDone(MemoryRequest&& r);

    // NocAgent
    void onMessage(const noc::Message& m, uint32_t node, uint64_t cycle) override;
    void beforeStep(uint64_t cycle) override;
    uint64_t nextWake(uint64_t cycle) const override;

    uint32_t node() const { return node_; }
    uint32_t headerBytes() const { return header_; }
    uint32_t window() const { return window_; }
    uint16_t via() const { return via_; }
    uint32_t inFlight() const { return static_cast<uint32_t>(entries_.size() - free_.size()); }
    const Stats& stats() const { return st_; }

  private:
    struct Entry {
        MemoryRequest req;
        uint32_t op = 0;  // the core's DMA operation (req.op carries the entry id at the target)
        uint64_t pushed = 0, at_port = 0, issued = 0, answered = 0;
        bool used = false;
    };
    static noc::Payload toPayload(const std::vector<uint8_t>& bytes);
    static void fromPayload(const noc::Payload& p, uint32_t bytes, std::vector<uint8_t>& out);
    uint32_t hops(uint32_t a, uint32_t b) const;
    void issue(uint64_t cycle);  // hands waiting requests to the target while credits last

    noc::Network& net_;
    CoreArray& cores_;
    uint32_t node_;
    MemoryPort& target_;
    uint32_t header_;
    uint32_t window_;
    uint16_t via_;
    uint32_t in_service_ = 0;       // issued to the target, response not yet delivered
    std::deque<uint32_t> waiting_;  // delivered at the port, not yet issued
    uint16_t agent_;
    std::vector<Entry> entries_;
    std::vector<uint32_t> free_;
    std::deque<uint32_t> answered_;  // ids whose target answer is in, by ready cycle
    Stats st_;
};

}  // namespace wsc::core
