#include "core/Controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/MessageTag.h"

namespace wsc::core {

using firmware::Instruction;
using firmware::kNoBuf;
using firmware::kNoCore;
using firmware::kNoRouteId;
using firmware::Opcode;

Controller::Controller(uint32_t id, const CoreParams& p, const PeArray& pe, const VectorUnit& vu,
                       Sram& sram, DmaEngine& dma, Mailbox& mb, CoreStats& st, CoreEnvironment& env)
    : id_(id), p_(p), pe_(pe), vu_(vu), sram_(sram), dma_(dma), mb_(mb), st_(st), env_(env) {}

void Controller::load(const firmware::Program& prog) {
    prog_ = &prog;
    loop_match_ = prog.matchLoops();
    streams_.assign(prog.streams(), Stream{});
    for (uint32_t i = 0; i < prog.streams(); ++i) {
        streams_[i].pc = prog.streamBegin(i);
        streams_[i].end = prog.streamEnd(i);
        streams_[i].index = static_cast<uint8_t>(i);
    }
    rename_.clear();
    next_done_ = noc::kNever;
    readers_.assign(prog.buffers().size(), 0);
    writers_.assign(prog.buffers().size(), 0);
    // Hazards are tracked per storage: a view and its parent (and its sibling views) order
    // against each other as one buffer, a conservative rule that never reorders a true overlap.
    hz_.resize(prog.buffers().size());
    for (size_t b = 0; b < hz_.size(); ++b) hz_[b] = prog.storageOf(static_cast<uint16_t>(b));
    // Core::load checked an explicit rx_buffer against the SRAM the buffers leave free.
    const uint64_t free = sram_.params().capacity_bytes - sram_.used();
    rx_capacity_ = p_.rx_buffer_bytes == kRxFreeSram ? free : std::min(p_.rx_buffer_bytes, free);
    done_ = prog.code().empty();
    if (done_) state_ = CoreState::Idle;  // never evaluated: finish() charges the run to idle
}

uint32_t& Controller::counter(uint32_t key) {
    for (Counter& c : counters_)
        if (c.key == key) return c.count;
    counters_.push_back({key, 0});
    return counters_.back().count;
}

void Controller::charge(uint64_t upto) {
    if (upto <= acct_from_) return;
    const uint64_t n = upto - acct_from_;
    switch (state_) {
        case CoreState::Busy:
            st_.busy += n;
            break;
        case CoreState::Idle:
            st_.idle += n;
            break;
        case CoreState::Stall:
            st_.stall[static_cast<size_t>(cause_)] += n;
            break;
    }
    if (trace_) trace_->onCharge(id_, state_, cause_, acct_from_, upto);
    acct_from_ = upto;
}

void Controller::finish(uint64_t end) {
    charge(end + 1);
}

uint32_t Controller::newOp(Op::Kind k, uint16_t r1, uint16_t r2, uint16_t w, uint64_t now,
                           uint64_t done) {
    uint32_t slot;
    if (!free_ops_.empty()) {
        slot = free_ops_.back();
        free_ops_.pop_back();
    } else {
        if (ops_.size() >= MessageTag::kMaxOp)
            throw std::runtime_error(
                fmt::format("core {}: more than {} operations in flight", id_, MessageTag::kMaxOp));
        ops_.emplace_back();
        slot = static_cast<uint32_t>(ops_.size() - 1);
    }
    Op& o = ops_[slot];
    o = Op{};
    o.kind = k;
    o.r1 = r1, o.r2 = r2, o.w = w;
    o.done = done;
    next_done_ = std::min(next_done_, done);
    o.begin = now;
    o.pc = cur_->pc;
    o.stream = cur_->index;
    ++cur_->live;
    hazard(o, +1);
    live_ops_.push_back(slot);
    if (done != noc::kNever) env_.wakeAt(id_, done);
    return slot;
}

void Controller::hazard(const Op& o, int d) {
    const uint16_t r1 = o.r1 == kNoBuf ? kNoBuf : hz_[o.r1];
    const uint16_t r2 = o.r2 == kNoBuf ? kNoBuf : hz_[o.r2];
    if (r1 != kNoBuf) readers_[r1] = static_cast<uint16_t>(readers_[r1] + d);
    if (r2 != kNoBuf && r2 != r1) readers_[r2] = static_cast<uint16_t>(readers_[r2] + d);
    if (o.w != kNoBuf) writers_[hz_[o.w]] = static_cast<uint16_t>(writers_[hz_[o.w]] + d);
}

void Controller::retire(uint64_t now) {
    // Nothing ends before next_done_: a core with many receives posted ahead (a composed
    // program) would otherwise scan them all on every evaluation.
    if (now < next_done_) return;
    uint64_t next = noc::kNever;
    size_t w = 0;
    for (size_t i = 0; i < live_ops_.size(); ++i) {
        const uint32_t s = live_ops_[i];
        Op& o = ops_[s];
        if (o.done > now) {
            live_ops_[w++] = s;
            next = std::min(next, o.done);
            continue;
        }
        hazard(o, -1);
        --streams_[o.stream].live;
        if (o.raise) ++counter(userEvent(o.event));
        if (o.kind == Op::DmaMem) dma_.finished();
        // Work whose end was not known at issue (an arrival, a memory answer) is traced here.
        if (trace_ && (o.kind == Op::Recv || o.kind == Op::DmaMem || o.kind == Op::DmaGet))
            traceWork(o.kind == Op::Recv ? TraceUnit::Recv : TraceUnit::Dma, o.pc, o.begin, o.done,
                      0, o.stream, o.seq);
        o.kind = Op::Free;
        free_ops_.push_back(s);
    }
    live_ops_.resize(w);
    next_done_ = next;
}

bool Controller::evaluate(uint64_t now) {
    charge(now);
    retire(now);
    for (const Deferred& d : deferred_) {
        sendMessage(d.to, noc::kNoRoute, d.bytes, MessageTag::getResp(d.op),
                    snapshot(d.buf, d.bytes), now);
    }
    deferred_.clear();
    issued_ = poll_ = false;
    if (done_) {
        state_ = CoreState::Idle;
        return false;
    }
    step(now);
    return issued_ || poll_;
}

// Loop bookkeeping costs no cycles (zero-overhead loops, as in DSP sequencers).
bool Controller::control(uint64_t now) {
    const auto& code = prog_->code();
    Stream& s = *cur_;
    for (uint64_t guard = 0; s.pc < s.end; ++guard) {
        if (guard > (uint64_t{1} << 24))
            throw std::runtime_error(
                fmt::format("core {}: loop at instruction {} has no body to issue "
                            "(cycle {})",
                            id_, s.pc, now));
        const Instruction& i = code[s.pc];
        if (i.op == Opcode::Loop) {
            if (i.n == 0) {
                s.pc = loop_match_[s.pc] + 1;
            } else {
                s.loops.push_back({s.pc, i.n});
                ++s.pc;
            }
        } else if (i.op == Opcode::EndLoop) {
            LoopFrame& f = s.loops.back();
            if (--f.left > 0) {
                s.pc = f.pc + 1;
            } else {
                s.loops.pop_back();
                ++s.pc;
            }
        } else if (i.op == Opcode::Swap) {
            // A pointer swap in the sequencer, like the loop counter: no issue slot, so a looped
            // double-buffered schedule issues exactly what its unrolled form did. Operations in
            // flight keep the storage they were issued with.
            if (rename_.empty()) {
                rename_.resize(prog_->buffers().size());
                for (size_t b = 0; b < rename_.size(); ++b) rename_[b] = static_cast<uint16_t>(b);
            }
            std::swap(rename_[i.a], rename_[i.b]);
            ++s.pc;
        } else {
            return true;
        }
    }
    return false;
}

void Controller::step(uint64_t now) {
    // Every unfinished stream gets its issue slot; the core's state is busy if any stream is,
    // else the stall of the first stream that is neither busy nor finished.
    bool any_busy = false, any_stall = false, all_done = true;
    StallCause first = StallCause::Data;
    for (Stream& s : streams_) {
        if (s.done) continue;
        cur_ = &s;
        state_ = CoreState::Busy;
        stepStream(now);
        if (s.done) continue;
        all_done = false;
        if (state_ == CoreState::Busy)
            any_busy = true;
        else if (state_ == CoreState::Stall && !any_stall)
            any_stall = true, first = cause_;
    }
    cur_ = nullptr;
    if (all_done) {
        done_ = true;
        st_.finish_cycle = now;
        state_ = CoreState::Idle;
    } else if (any_busy) {
        busy();
    } else {
        stall(any_stall ? first : StallCause::Data);
    }
}

void Controller::stepStream(uint64_t now) {
    Stream& s = *cur_;
    if (s.block != Block::None) return blocked(now);
    if (!control(now)) {
        // Stream over: finished once everything it has in flight has retired.
        if (s.live == 0) {
            s.done = true;
            return;
        }
        bool units = s.pe_until > now || s.vec_until > now;
        bool mem = false;
        for (uint32_t o : live_ops_) mem |= ops_[o].stream == s.index && ops_[o].kind == Op::DmaMem;
        if (units)
            busy();
        else
            stall(mem ? StallCause::Dma : StallCause::Data);
        return;
    }
    const Instruction& i = prog_->code()[s.pc];
    if (rename_.empty()) return issue(i, now);
    // Under a rename the instruction's own buffers (not a peer's: dst=/src= of dma.put/get name
    // the other core's declared buffer) refer to their current storage.
    Instruction r = i;
    auto map = [&](uint16_t& b) {
        if (b != kNoBuf) b = rename_[b];
    };
    map(r.a), map(r.b), map(r.c);
    issue(r, now);
}

noc::Payload Controller::snapshot(uint16_t buf, uint64_t bytes) const {
    if (!sram_.functional()) return nullptr;
    const float* d = sram_.data(buf);
    return std::make_shared<const std::vector<float>>(d, d + elemsOf(buf, bytes));
}

uint64_t Controller::elemsOf(uint16_t buf, uint64_t bytes) const {
    const uint32_t eb = firmware::dtypeBytes(prog_->buffer(buf).dtype);
    return std::min<uint64_t>((bytes + eb - 1) / eb, sram_.elems(buf));
}

void Controller::sendMessage(uint32_t to, uint32_t route, uint64_t bytes, uint64_t tag,
                             noc::Payload p, uint64_t now) {
    noc::Message m;
    m.src = id_;
    m.dst = to == kNoCore ? id_ : to;
    m.route = route == kNoRouteId ? noc::kNoRoute : route;
    m.bytes = bytes;
    m.tag = tag;
    m.payload = std::move(p);
    env_.send(m, now);
    ++st_.messages_out;
    if (MessageTag::kind(tag) == MessageTag::Data || MessageTag::kind(tag) == MessageTag::Put ||
        MessageTag::kind(tag) == MessageTag::GetResp)
        st_.bytes_out += bytes;
}

void Controller::issue(const Instruction& i, uint64_t now) {
    const bool functional = sram_.functional();
    switch (i.op) {
        case Opcode::Gemm:
        case Opcode::Gemv: {
            const uint32_t m = i.op == Opcode::Gemv ? 1 : i.m;
            const bool acc = i.flags & Instruction::kAccumulate;
            if (pe_busy_until_ > now) return stall(StallCause::Pe);
            if (!readable(i.a) || !readable(i.b) || !writable(i.c)) return stall(StallCause::Data);
            if (!sram_.portFree(now, {i.a, i.b, i.c})) return stall(StallCause::Sram);
            const PeTiming t = pe_.timing(m, i.k, i.n, i.dtype);
            const uint64_t end = now + t.cycles;
            pe_busy_until_ = end;
            cur_->pe_until = end;
            sram_.claimPort(now, end, {i.a, i.b, i.c});
            if (functional)
                PeArray::compute(sram_.data(i.a), sram_.data(i.b), sram_.data(i.c), m, i.k, i.n,
                                 acc, i.flags & Instruction::kTransB);
            newOp(Op::Pe, i.a, i.b, i.c, now, end);
            if (trace_) traceWork(TraceUnit::Pe, cur_->pc, now, end, t.macs);
            st_.macs += t.macs;
            st_.pe_busy += t.cycles;
            ++st_.gemm_ops;
            break;
        }
        case Opcode::Send: {
            if (!readable(i.a)) return stall(StallCause::Data);
            if (egressFull()) return poll_ = true, stall(StallCause::Credits);
            if (!sram_.portFree(now, {i.a})) return stall(StallCause::Sram);
            const uint64_t end = now + sram_.transferCycles(i.bytes);
            sram_.claimPort(now, end, {i.a});
            const uint8_t st = cur_->index;
            const uint64_t key = i.route != kNoRouteId ? Mailbox::routeKey(i.route, st)
                                                       : Mailbox::coreKey(i.peer, st);
            const uint32_t seq = mb_.nextSendSeq(key);
            sendMessage(i.peer, i.route, i.bytes, MessageTag::data(seq, st), snapshot(i.a, i.bytes),
                        now);
            newOp(Op::Send, i.a, kNoBuf, kNoBuf, now, end);
            if (trace_) traceWork(TraceUnit::Send, cur_->pc, now, end, 0, st, seq);
            break;
        }
        case Opcode::Recv: {
            if (!writable(i.c)) return stall(StallCause::Data);
            const uint64_t key = i.route != kNoRouteId ? Mailbox::routeKey(i.route, cur_->index)
                                                       : Mailbox::coreKey(i.peer, cur_->index);
            const uint32_t seq = mb_.nextRecvSeq(key);
            const uint32_t op = newOp(Op::Recv, kNoBuf, kNoBuf, i.c, now, noc::kNever);
            ops_[op].bytes = i.bytes;
            ops_[op].seq = seq;
            Mailbox::Arrival a;
            if (mb_.take(key, seq, a)) {
                land(a, op, now + 1);
            } else {
                mb_.post(key, seq, op);
                env_.ejectionReady(id_);  // its flits may be the ones the NI holds back
            }
            break;
        }
        case Opcode::Relay: {
            const uint64_t key = i.route != kNoRouteId ? Mailbox::routeKey(i.route, cur_->index)
                                                       : Mailbox::coreKey(i.peer, cur_->index);
            const uint32_t seq = mb_.nextRecvSeq(key);
            Stream& s = *cur_;
            s.block = Block::Relay;
            s.block_pc = s.pc;
            s.relay_arrived = mb_.take(key, seq, s.relay_data);
            if (s.relay_arrived) {
                s.relay_data.cycle = now;  // work may start next cycle
            } else {
                mb_.post(key, seq, kRelayOp + s.index);
                env_.ejectionReady(id_);
            }
            s.relay_work_end = noc::kNever;
            ++st_.relays;
            break;
        }
        case Opcode::DmaLoad:
        case Opcode::DmaStore: {
            const bool store = i.op == Opcode::DmaStore;
            const uint16_t buf = store ? i.a : i.c;
            if (store ? !readable(buf) : !writable(buf)) return stall(StallCause::Data);
            if (dma_.full()) return stall(StallCause::Dma);
            if (functional && prog_->buffer(buf).dtype != firmware::DType::FP32)
                throw std::runtime_error(fmt::format(
                    "core {}: functional DMA to the memory port supports fp32 buffers only ('{}')",
                    id_, prog_->buffer(buf).name));
            const uint32_t op = store ? newOp(Op::DmaMem, buf, kNoBuf, kNoBuf, now, noc::kNever)
                                      : newOp(Op::DmaMem, kNoBuf, kNoBuf, buf, now, noc::kNever);
            ops_[op].raise = i.raise;
            ops_[op].event = i.event;
            ops_[op].chunks = dma_.start(id_, op, buf, i.addr, i.bytes, store,
                                         functional ? sram_.data(buf) : nullptr, env_);
            st_.dma_bytes += i.bytes;
            break;
        }
        case Opcode::DmaPut: {
            if (!readable(i.a)) return stall(StallCause::Data);
            if (egressFull()) return poll_ = true, stall(StallCause::Credits);
            if (!sram_.portFree(now, {i.a})) return stall(StallCause::Sram);
            const uint64_t end = now + sram_.transferCycles(i.bytes);
            sram_.claimPort(now, end, {i.a});
            sendMessage(i.peer, kNoRouteId, i.bytes, MessageTag::put(i.rbuf, i.event, i.raise),
                        snapshot(i.a, i.bytes), now);
            newOp(Op::DmaPut, i.a, kNoBuf, kNoBuf, now, end);
            if (trace_) traceWork(TraceUnit::Dma, cur_->pc, now, end, 0);
            break;
        }
        case Opcode::DmaGet: {
            if (!writable(i.c)) return stall(StallCause::Data);
            if (egressFull()) return poll_ = true, stall(StallCause::Credits);
            if (i.bytes > MessageTag::kMaxGetBytes)
                throw std::runtime_error(
                    fmt::format("core {}: dma.get of {} bytes exceeds the {} byte limit", id_,
                                i.bytes, MessageTag::kMaxGetBytes));
            const uint32_t op = newOp(Op::DmaGet, kNoBuf, kNoBuf, i.c, now, noc::kNever);
            ops_[op].raise = i.raise;
            ops_[op].event = i.event;
            ops_[op].bytes = i.bytes;
            sendMessage(i.peer, kNoRouteId, 4, MessageTag::getReq(i.rbuf, op, i.bytes), nullptr,
                        now);
            break;
        }
        case Opcode::Wait: {
            uint32_t& c = counter(userEvent(i.event));
            if (c < i.n) {
                if (cur_->wait_since == noc::kNever) cur_->wait_since = now;
                return stall(StallCause::Sync);
            }
            c -= i.n;
            if (cur_->wait_since != noc::kNever) {
                if (trace_) traceWork(TraceUnit::Wait, cur_->pc, cur_->wait_since, now, 0);
                cur_->wait_since = noc::kNever;
            }
            break;
        }
        case Opcode::WaitAll:  // a fence on this stream's own operations
            if (cur_->live) return stall(StallCause::Data);
            break;
        case Opcode::Signal:  // this stream's earlier work has completed: raise the event
            if (cur_->pe_until > now) return stall(StallCause::Pe);
            if (cur_->vec_until > now) return stall(StallCause::Vector);
            if (cur_->live) return stall(StallCause::Data);
            ++counter(userEvent(i.event));  // issuing re-evaluates the core next cycle
            break;
        case Opcode::Barrier:
            // A barrier is a fence first: what this stream started before it has finished.
            if (cur_->pe_until > now) return stall(StallCause::Pe);
            if (cur_->vec_until > now) return stall(StallCause::Vector);
            if (cur_->live) return stall(StallCause::Data);
            cur_->block = Block::Barrier;
            cur_->block_pc = cur_->pc;
            cur_->barrier_sent = false;
            ++st_.instructions;
            return blocked(now);  // a one-core group passes at once
        default: {
            if (!firmware::isVectorOp(i.op))
                throw std::logic_error(
                    fmt::format("core {}: cannot issue {}", id_, firmware::opcodeName(i.op)));
            if (vec_busy_until_ > now) return stall(StallCause::Vector);
            if (!readable(i.a) || !readable(i.b) || !writable(i.c)) return stall(StallCause::Data);
            if (!sram_.portFree(now, {i.a, i.b, i.c})) return stall(StallCause::Sram);
            const uint64_t cyc = vu_.cycles(i.op, i.n, prog_->buffer(i.a).dtype);
            const uint64_t end = now + cyc;
            vec_busy_until_ = end;
            cur_->vec_until = end;
            sram_.claimPort(now, end, {i.a, i.b, i.c});
            if (functional)
                VectorUnit::execute(i.op, sram_.data(i.a),
                                    i.b == kNoBuf ? nullptr : sram_.data(i.b), sram_.data(i.c), i.n,
                                    i.imm);
            newOp(Op::Vector, i.a, i.b, i.c, now, end);
            if (trace_) traceWork(TraceUnit::Vector, cur_->pc, now, end, i.n);
            ++st_.vector_ops;
            st_.vector_elems += i.n;
            st_.vector_busy += cyc;
        }
    }
    ++st_.instructions;
    if (cur_->block == Block::None) ++cur_->pc;
    issued_ = true;
    busy();
}

// RELAY and BARRIER hold the controller: nothing else issues while they run, and the cycle
// that completes them issues nothing else either.
void Controller::blocked(uint64_t now) {
    Stream& s = *cur_;
    const Instruction& i = prog_->code()[s.block_pc];
    if (s.block == Block::Relay) {
        if (!s.relay_arrived) return stall(StallCause::Data);
        if (s.relay_work_end == noc::kNever) {
            // Software forwarding: header parse/rewrite (beta) and the copy through SRAM.
            const uint64_t start = std::max(now, s.relay_data.cycle + 1);
            s.relay_work_end = start + p_.relay_cycles + sram_.transferCycles(i.bytes);
            st_.relay_cycles += s.relay_work_end - now;
            if (trace_) traceWork(TraceUnit::Relay, s.block_pc, now, s.relay_work_end, 0);
            env_.wakeAt(id_, s.relay_work_end);
            return busy();
        }
        if (now < s.relay_work_end) return busy();
        if (egressFull()) return poll_ = true, stall(StallCause::Credits);
        if (s.relay_data.bytes != i.bytes)
            throw std::runtime_error(
                fmt::format("core {}: relay of {} bytes received a message of {} bytes", id_,
                            i.bytes, s.relay_data.bytes));
        const uint64_t key = i.route2 != kNoRouteId ? Mailbox::routeKey(i.route2, s.index)
                                                    : Mailbox::coreKey(i.peer2, s.index);
        sendMessage(i.peer2, i.route2, i.bytes, MessageTag::data(mb_.nextSendSeq(key), s.index),
                    std::move(s.relay_data.payload), now);
        releaseRx(s.relay_data.held);  // forwarded: its copy in the receive buffer is free
        s.relay_data = Mailbox::Arrival{};
    } else {
        const firmware::GroupDecl& g = *prog_->group(i.group);
        const uint32_t master = g.members.front();
        const uint32_t others = static_cast<uint32_t>(g.members.size() - 1);
        if (master == id_) {
            uint32_t& arrived = counter(arriveKey(i.group));
            if (arrived < others) return stall(StallCause::Sync);
            arrived -= others;
            for (uint32_t m : g.members)
                if (m != id_)
                    sendMessage(m, kNoRouteId, 4,
                                MessageTag::barrier(MessageTag::BarRelease, i.group), nullptr, now);
        } else {
            if (!s.barrier_sent) {
                sendMessage(master, kNoRouteId, 4,
                            MessageTag::barrier(MessageTag::BarArrive, i.group), nullptr, now);
                s.barrier_sent = true;
            }
            uint32_t& released = counter(releaseKey(i.group));
            if (released == 0) return stall(StallCause::Sync);
            --released;
        }
    }
    s.block = Block::None;
    s.pc = s.block_pc + 1;
    issued_ = true;  // the next instruction may issue next cycle
    busy();
}

void Controller::traceWork(TraceUnit unit, uint32_t pc, uint64_t begin, uint64_t end, uint64_t work,
                           uint8_t stream, uint32_t seq) const {
    const Instruction& i = prog_->code()[pc];
    TraceSpan s;
    s.core = id_;
    s.unit = unit;
    s.op = i.op;
    s.pc = pc;
    s.begin = begin;
    s.end = end;
    s.bytes = i.bytes;
    s.work = work;
    s.peer = i.peer, s.route = i.route;
    s.peer2 = i.peer2, s.route2 = i.route2;
    s.stream = stream;
    s.seq = seq;
    trace_->onSpan(s);
}

void Controller::land(const Mailbox::Arrival& a, uint32_t op, uint64_t cycle) {
    Op& o = ops_[op];
    if (a.bytes != o.bytes)
        throw std::runtime_error(
            fmt::format("core {}: a receive of {} bytes into '{}' matched a message of {} bytes",
                        id_, o.bytes, prog_->buffer(o.w).name, a.bytes));
    if (a.payload && sram_.functional()) {
        const size_t n = std::min<size_t>(a.payload->size(), sram_.elems(o.w));
        std::copy(a.payload->begin(), a.payload->begin() + n, sram_.data(o.w));
    }
    // Its bytes move from the receive buffer into the recv's buffer (the copy is not charged:
    // the recv is the arrival's consumer, as a DSD reading the input queue would be).
    releaseRx(a.held);
    o.done = cycle;
    next_done_ = std::min(next_done_, cycle);
    env_.wakeAt(id_, cycle);
}

noc::Admission Controller::admit(const noc::Message& m, uint32_t bytes) {
    // Only data messages wait for a receive; puts land in their named buffer, answers in the
    // buffer of the operation that asked, and control messages take no room.
    if (MessageTag::kind(m.tag) != MessageTag::Data) return noc::Admission::TakeRest;
    const uint8_t st = MessageTag::stream(m.tag);
    const uint64_t key =
        m.route == noc::kNoRoute ? Mailbox::coreKey(m.src, st) : Mailbox::routeKey(m.route, st);
    // Streams into its recv, which stays posted until the whole message has arrived.
    if (mb_.isPosted(key, MessageTag::seq(m.tag))) return noc::Admission::TakeRest;
    if (bytes > rx_capacity_ - sram_.held()) {
        ++st_.rx_refusals;
        return noc::Admission::Refuse;
    }
    sram_.hold(bytes);
    st_.rx_held_peak = sram_.heldPeak();
    mb_.holdPart(m.id, bytes);
    return noc::Admission::Take;
}

void Controller::releaseRx(uint64_t bytes) {
    if (!bytes) return;
    sram_.release(bytes);
    env_.ejectionReady(id_);
}

void Controller::onMessage(const noc::Message& m, uint64_t cycle) {
    ++st_.messages_in;
    const auto kind = MessageTag::kind(m.tag);
    if (kind == MessageTag::Data || kind == MessageTag::Put || kind == MessageTag::GetResp)
        st_.bytes_in += m.bytes;
    switch (kind) {
        case MessageTag::Data: {
            Mailbox::Arrival a;
            const uint8_t st = MessageTag::stream(m.tag);
            a.key = m.route == noc::kNoRoute ? Mailbox::coreKey(m.src, st)
                                             : Mailbox::routeKey(m.route, st);
            a.seq = MessageTag::seq(m.tag);
            a.bytes = m.bytes;
            a.cycle = cycle;
            a.held = mb_.takePart(m.id);
            a.payload = m.payload;
            const uint32_t op = mb_.arrive(a);
            if (op >= kRelayOp && op - kRelayOp < streams_.size()) {
                Stream& s = streams_[op - kRelayOp];
                s.relay_data = std::move(a);
                s.relay_arrived = true;
                env_.wakeAt(id_, cycle + 1);
            } else if (op != Mailbox::kNone) {
                land(a, op, cycle + 1);
            }
            return;
        }
        case MessageTag::Put: {
            const uint16_t b = MessageTag::buf(m.tag);
            if (b >= sram_.buffers())
                throw std::runtime_error(fmt::format(
                    "core {}: dma.put from core {} into unknown buffer {}", id_, m.src, b));
            if (m.payload && sram_.functional()) {
                const size_t n = std::min<size_t>(m.payload->size(), sram_.elems(b));
                std::copy(m.payload->begin(), m.payload->begin() + n, sram_.data(b));
            }
            if (MessageTag::raise(m.tag)) ++counter(userEvent(MessageTag::event(m.tag)));
            env_.wakeAt(id_, cycle + 1);
            return;
        }
        case MessageTag::GetReq:
            deferred_.push_back({m.src, MessageTag::buf(m.tag), MessageTag::op(m.tag),
                                 MessageTag::getBytes(m.tag)});
            env_.wakeAt(id_, cycle + 1);
            return;
        case MessageTag::GetResp: {
            const uint32_t op = MessageTag::op(m.tag);
            Mailbox::Arrival a;
            a.bytes = m.bytes;
            a.payload = m.payload;
            land(a, op, cycle + 1);
            return;
        }
        case MessageTag::BarArrive:
            ++counter(arriveKey(MessageTag::group(m.tag)));
            env_.wakeAt(id_, cycle + 1);
            return;
        case MessageTag::BarRelease:
            ++counter(releaseKey(MessageTag::group(m.tag)));
            env_.wakeAt(id_, cycle + 1);
            return;
        case MessageTag::MemReq:
        case MessageTag::MemResp:  // CoreArray hands these to the memory port (NocMemoryPort)
            throw std::logic_error(
                fmt::format("core {}: memory-port message delivered to the core", id_));
    }
}

void Controller::onMemory(MemoryRequest& r) {
    Op& o = ops_[r.op];
    if (!r.write && !r.data.empty() && sram_.functional())
        std::memcpy(reinterpret_cast<uint8_t*>(sram_.data(r.buf)) + r.buf_offset, r.data.data(),
                    r.bytes);
    if (--o.chunks == 0) o.done = r.ready, next_done_ = std::min(next_done_, r.ready);
}

std::string Controller::status() const {
    // The caller names the core (CoreArray::stuckReport: "core 5 (1,1): ...").
    std::string s;
    if (done_) return "finished";
    for (const Stream& st : streams_) {
        if (streams_.size() > 1) {
            if (st.done) continue;
            s += fmt::format("stream {} ", st.index);
        }
        const uint32_t pc = st.block != Block::None ? st.block_pc : st.pc;
        if (prog_ && pc < st.end)
            s += fmt::format("at instruction {} ({}) ", pc,
                             firmware::opcodeName(prog_->code()[pc].op));
        else
            s += "at the end of its program ";
        if (streams_.size() > 1) s += "; ";
    }
    if (state_ == CoreState::Stall)
        s += fmt::format("stalled on {}", stallName(cause_));
    else
        s += state_ == CoreState::Busy ? "busy" : "idle";
    s += fmt::format("; {} operations in flight, {} messages unmatched", live_ops_.size(),
                     mb_.unmatched());
    if (sram_.held() || rx_capacity_ < sram_.params().capacity_bytes - sram_.used())
        s += fmt::format("; receive buffer {} of {} B held", sram_.held(), rx_capacity_);
    for (const auto& p : mb_.postedList()) {
        std::string from = Mailbox::isRouteKey(p.key) ? fmt::format("route {}", uint32_t(p.key))
                                                      : fmt::format("core {}", uint32_t(p.key));
        if (Mailbox::streamOfKey(p.key))
            from += fmt::format(" (stream {})", Mailbox::streamOfKey(p.key));
        if (p.op >= kRelayOp && p.op - kRelayOp < streams_.size())
            s += fmt::format("; waiting to relay message #{} from {}", p.seq, from);
        else
            s += fmt::format("; waiting for recv of {} bytes into '{}' from {} (message #{})",
                             ops_[p.op].bytes, prog_->buffer(ops_[p.op].w).name, from, p.seq);
    }
    return s;
}

}  // namespace wsc::core
