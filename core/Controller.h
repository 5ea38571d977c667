#pragma once
// In-order controller of one core. Each cycle it is evaluated it issues at most one instruction;
// issued work runs on its unit (PE array, vector unit, egress, DMA, ingress) in the background,
// so compute, sending, receiving and memory traffic overlap. A buffer scoreboard (readers and
// writers in flight per buffer) makes an instruction wait for the data it reads and for earlier
// readers of what it overwrites; structural limits (PE array, vector unit, SRAM ports, DMA
// queue, egress credits) stall it too. Nothing waits on a fixed timer: every completion wakes
// the core, and the cycles between two evaluations are charged to the state the core was in.
// RELAY and BARRIER hold the controller itself (a relay costs the relaying core its cycles).
//
// A program may have several streams (firmware/Program.h): each is an in-order queue with its
// own program counter, loops, relay/barrier state and fences (wait.all, signal), and each may
// issue one instruction per cycle; units, SRAM ports, egress credits and the buffer scoreboard
// are shared. The core is charged busy when any stream issued or is working, else with the
// stall of its lowest-numbered unfinished stream. One stream behaves exactly as before.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/CoreEnvironment.h"
#include "core/CoreParams.h"
#include "core/CoreStats.h"
#include "core/CoreTraceSink.h"
#include "core/DmaEngine.h"
#include "core/Mailbox.h"
#include "core/PeArray.h"
#include "core/Sram.h"
#include "core/VectorUnit.h"
#include "firmware/Program.h"
#include "noc/EjectionGate.h"
#include "noc/Prefetch.h"

namespace wsc::core {

class Controller {
  public:
    Controller(uint32_t id, const CoreParams& p, const PeArray& pe, const VectorUnit& vu,
               Sram& sram, DmaEngine& dma, Mailbox& mb, CoreStats& st, CoreEnvironment& env);

    void load(const firmware::Program& prog);
    // The storage buffer `b` names now (after the program's swaps so far).
    uint16_t storage(uint16_t b) const { return rename_.empty() ? b : rename_[b]; }
    // Evaluates cycle `now`; returns true if the core must be evaluated again at now + 1.
    bool evaluate(uint64_t now);
    void onMessage(const noc::Message& m, uint64_t cycle);
    // May a flit of `m` carrying `bytes` payload bytes land now? Yes if its receive is posted
    // (it streams into the recv's buffer: TakeRest, the receive stays posted until the message
    // completes) or the receive buffer has room (Take: the bytes are held in SRAM until a recv
    // takes the message); Refuse leaves it in the network (back-pressure).
    noc::Admission admit(const noc::Message& m, uint32_t bytes);
    uint64_t rxCapacity() const { return rx_capacity_; }
    void onMemory(MemoryRequest& r);
    bool done() const { return done_; }
    // The last evaluation issued or completed something (not merely polled for egress credits).
    bool progressed() const { return issued_; }
    // Exact charges and unit spans go to `sink` (null: none, the default).
    void setTraceSink(CoreTraceSink* sink) { trace_ = sink; }
    CoreTraceSink* traceSink() const { return trace_; }
    // Charges the cycles up to and including `end`.
    void finish(uint64_t end);
    std::string status() const;
    // Cache hints for CoreArray's evaluation loop: on a wafer every line an evaluation touches
    // misses, so the loop asks for a core's object four cores ahead (prefetchObject), once
    // that has landed for the vectors it will read and its program's index (prefetchState),
    // then for the instruction slot each stream is at and the first live ops, and last for
    // that instruction's shape (prefetchCode, stage 0 and 1: the instruction fetch was the
    // costliest miss of a MeshGEMM step, two dependent misses).
    WSC_PREFETCH void prefetchObject() const { noc::prefetchLines(this, sizeof(Controller)); }
    WSC_PREFETCH void prefetchCode(int stage) const {
        if (done_ || !prog_) return;  // (a core is active only once loaded)
        // The first live ops, whose ends retire() reads: their indices come from live_ops_,
        // whose line prefetchState asked for an iteration earlier (read there, the load waited
        // on that very miss: 4% of a P = 128 MeshGEMM).
        if (stage == 0)
            for (size_t k = 0; k < live_ops_.size() && k < 4; ++k)
                noc::prefetchLine(&ops_[live_ops_[k]]);
        for (const Stream& s : streams_) {
            if (s.done || s.pc >= s.end) continue;
            if (stage == 0)
                prog_->prefetchSlot(s.pc);
            else
                prog_->prefetchShape(s.pc);
        }
    }
    WSC_PREFETCH void prefetchState() const {
        if (done_ || !prog_) return;
        prog_->prefetchIndex();
        for (const Stream& s : streams_) noc::prefetchLine(&s);  // (prefetchCode reads each)
        noc::prefetchLine(live_ops_.data());
        noc::prefetchLine(readers_.data());
        noc::prefetchLine(writers_.data());
        noc::prefetchLine(hz_.data());
        // Under a rename every issued instruction maps its buffers through it (a miss per
        // instruction at MeshGEMM P = 128, which double-buffers by renaming).
        if (!rename_.empty())
            noc::prefetchRange(rename_.data(),
                               std::min<size_t>(rename_.size() * sizeof(rename_[0]), 256));
    }

  private:
    enum class Block : uint8_t { None, Relay, Barrier };
    struct Op {
        enum Kind : uint8_t { Free, Pe, Vector, Send, Recv, DmaMem, DmaPut, DmaGet };
        Kind kind = Free;
        uint16_t r1 = firmware::kNoBuf, r2 = firmware::kNoBuf, w = firmware::kNoBuf;
        uint16_t event = 0;
        bool raise = false;
        uint32_t chunks = 0;
        uint64_t bytes = 0;
        uint64_t done = noc::kNever;
        uint64_t begin = 0;  // issue cycle and instruction, for traces
        uint32_t pc = 0;
        uint8_t stream = 0;
        uint32_t seq = TraceSpan::kNoSeq;  // a receive's message number, for traces
    };
    struct Counter {
        uint32_t key;
        uint32_t count;
    };
    struct Deferred {  // a DMA get served for another core
        uint32_t to;
        uint16_t buf;
        uint32_t op;
        uint64_t bytes;
    };
    // Mailbox op ids kRelayOp + s mark a RELAY posted by stream s (not an Op slot).
    static constexpr uint32_t kRelayOp = 0xFFFFFF00u;
    struct LoopFrame {
        uint32_t pc, left;
    };
    struct Stream {
        // What prefetchCode and retire read of every stream, at its start (one line each).
        uint32_t pc = 0, end = 0;
        bool done = false;  // ran off its end and everything it issued has retired
        uint32_t live = 0;  // its operations in flight (retire counts them down)
        std::vector<LoopFrame> loops;
        // RELAY / BARRIER in progress
        Block block = Block::None;
        uint32_t block_pc = 0;
        bool relay_arrived = false;
        uint64_t relay_work_end = noc::kNever;
        Mailbox::Arrival relay_data;
        bool barrier_sent = false;
        uint64_t pe_until = 0, vec_until = 0;  // its last PE / vector work ends
        uint64_t wait_since = noc::kNever;     // first cycle its current `wait` stalled
        uint8_t index = 0;
    };

    void charge(uint64_t upto);
    void retire(uint64_t now);
    void step(uint64_t now);
    void stepStream(uint64_t now);
    bool control(uint64_t now);  // loops; false if the stream is over
    void issue(const firmware::Instruction& i, uint64_t now);
    void stall(StallCause c) { state_ = CoreState::Stall, cause_ = c; }
    void busy() { state_ = CoreState::Busy; }
    void blocked(uint64_t now);
    uint32_t newOp(Op::Kind k, uint16_t r1, uint16_t r2, uint16_t w, uint64_t now, uint64_t done);
    // Tells the sink about instruction `pc`'s work on `unit` over [begin, end).
    void traceWork(TraceUnit unit, uint32_t pc, uint64_t begin, uint64_t end, uint64_t work,
                   uint8_t stream = 0, uint32_t seq = TraceSpan::kNoSeq) const;
    void land(const Mailbox::Arrival& a, uint32_t op, uint64_t cycle);
    void releaseRx(uint64_t bytes);
    bool readable(uint16_t b) const { return b == firmware::kNoBuf || writers_[hz_[b]] == 0; }
    bool writable(uint16_t b) const { return writers_[hz_[b]] == 0 && readers_[hz_[b]] == 0; }
    void hazard(const Op& o, int d);  // counts o's reads and write on their storage (+1 / -1)
    uint32_t& counter(uint32_t key);
    static uint32_t userEvent(uint16_t e) { return e; }
    static uint32_t arriveKey(uint16_t g) { return (1u << 16) | g; }
    static uint32_t releaseKey(uint16_t g) { return (2u << 16) | g; }
    noc::Payload snapshot(uint16_t buf, uint64_t bytes) const;
    uint64_t elemsOf(uint16_t buf, uint64_t bytes) const;
    void sendMessage(uint32_t to, uint32_t route, uint64_t bytes, uint64_t tag, noc::Payload p,
                     uint64_t now);
    bool egressFull() const { return env_.egressQueued(id_) >= p_.tx_queue; }

    uint32_t id_;
    const CoreParams& p_;
    const PeArray& pe_;
    const VectorUnit& vu_;
    Sram& sram_;
    DmaEngine& dma_;
    Mailbox& mb_;
    CoreStats& st_;
    CoreEnvironment& env_;
    const firmware::Program* prog_ = nullptr;
    std::vector<uint32_t> loop_match_;
    // SWAP renames: the storage (buffer index) each declared name refers to now. Shared by the
    // core's streams like the buffers themselves; empty until the first swap, so a program
    // without one pays a single test per issue.
    std::vector<uint16_t> rename_;
    std::vector<Stream> streams_;
    Stream* cur_ = nullptr;  // the stream being stepped
    std::vector<uint16_t> readers_, writers_;
    std::vector<uint16_t> hz_;  // buffer -> the buffer whose storage it is (views: the parent)
    std::vector<Op> ops_;
    std::vector<uint32_t> free_ops_, live_ops_;
    uint64_t next_done_ = noc::kNever;  // the earliest `done` of a live operation
    std::vector<Counter> counters_;
    std::vector<Deferred> deferred_;
    uint64_t pe_busy_until_ = 0, vec_busy_until_ = 0;
    uint64_t rx_capacity_ = 0;  // receive buffer bytes (core.rx_buffer, within the free SRAM)
    // accounting
    CoreState state_ = CoreState::Busy;
    StallCause cause_ = StallCause::Data;
    uint64_t acct_from_ = 0;
    bool issued_ = false, poll_ = false, done_ = false;
    CoreTraceSink* trace_ = nullptr;
};

}  // namespace wsc::core
