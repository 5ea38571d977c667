#include "firmware/llm/DieEmitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::llm {

namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}

// Instruction fields are 32-bit: every shape handed to an instruction must fit.
uint32_t u32(uint64_t v, const char* what) {
    if (v == 0 || v > 0xFFFFFFFFull)
        throw std::invalid_argument(
            fmt::format("die lowering: {} = {} does not fit an "
                        "instruction (1 .. 2^32-1)",
                        what, v));
    return static_cast<uint32_t>(v);
}

bool binary(Opcode op) {
    return op == Opcode::VAdd || op == Opcode::VSub || op == Opcode::VMul || op == Opcode::VMax;
}

}  // namespace

DieEmitter::DieEmitter(Program& p, uint32_t node, const DieSpec& die, DType dtype, bool tatp)
    : p_(p), node_(node), die_(die), dtype_(dtype) {
    const uint64_t e = dtypeBytes(dtype);
    const uint64_t compute = static_cast<uint64_t>(double(die.sram_bytes) * die.compute_share);
    // Fixed staging: A and B tiles 3/8 of the compute share each, C tiles 2/8; two buffers per
    // role for double buffering. Whole elements, at least one DMA burst each.
    auto per = [&](double share) {
        const uint64_t b = static_cast<uint64_t>(double(compute) * share / 2.0);
        return std::max<uint64_t>(b / e * e, e);
    };
    cap_a_ = per(3.0 / 8), cap_b_ = per(3.0 / 8), cap_c_ = per(2.0 / 8);
    for (int i = 0; i < 2; ++i) {
        A_[i] = buf(fmt::format("A{}", i), cap_a_ / e);
        B_[i] = buf(fmt::format("B{}", i), cap_b_ / e);
        C_[i] = buf(fmt::format("C{}", i), cap_c_ / e);
    }
    S_ = buf("S", 64);
    // The pipeline's one communication share serves its two streams (one per direction), two
    // segments each, a quarter of the share per segment.
    const uint64_t pb = std::max<uint64_t>(commBudget() / (tatp ? 8 : 4) / e, 1);
    for (int d = 0; d < 2; ++d)
        for (int i = 0; i < 2; ++i) {
            P2P_[d][i] = buf(fmt::format("pp.{}{}", d ? "bwd" : "fwd", i), pb);
            if (tatp) RX_[d][i] = buf(fmt::format("tatp.rx.{}{}", d ? "bwd" : "fwd", i), pb);
        }
    CTS_ = buf("pp.cts", 1);
}

uint16_t DieEmitter::buf(const std::string& name, uint64_t elems) {
    const uint16_t have = p_.findBuffer(name);
    if (have != kNoBuf) return have;
    return p_.addBuffer(name, u32(elems, "staging buffer elements"), dtype_);
}

uint64_t DieEmitter::commBudget() const {
    return static_cast<uint64_t>(double(die_.sram_bytes) * die_.comm_share);
}

uint32_t DieEmitter::streamSize(uint32_t s) const {
    return s < p_.streams() ? p_.streamSize(s) : 0;
}

uint64_t DieEmitter::sramBytes() const {
    uint64_t b = 0;
    for (const auto& d : p_.buffers()) b += d.allocBytes();
    return b;
}

void DieEmitter::emit(Instruction i) {
    p_.add(i);
}

void DieEmitter::load(uint16_t b, uint64_t addr, uint64_t bytes) {
    Instruction i;
    i.op = Opcode::DmaLoad;
    i.c = b, i.addr = addr, i.bytes = bytes;
    hbm_by_tag_[tag_] += bytes;
    emit(i);
}

void DieEmitter::store(uint16_t b, uint64_t addr, uint64_t bytes) {
    Instruction i;
    i.op = Opcode::DmaStore;
    i.a = b, i.addr = addr, i.bytes = bytes;
    hbm_by_tag_[tag_] += bytes;
    emit(i);
}

void DieEmitter::gemm(uint16_t a, uint16_t b, uint16_t c, uint64_t m, uint64_t k, uint64_t n,
                      bool acc) {
    Instruction i;
    i.op = Opcode::Gemm;
    i.a = a, i.b = b, i.c = c;
    i.m = u32(m, "gemm m"), i.k = u32(k, "gemm k"), i.n = u32(n, "gemm n");
    i.dtype = dtype_;
    if (acc) i.flags = Instruction::kAccumulate;
    emit(i);
}

void DieEmitter::vop(Opcode op, uint16_t a, uint16_t b, uint16_t c, uint64_t n) {
    Instruction i;
    i.op = op;
    i.a = a, i.b = b, i.c = c;
    i.n = u32(n, "vector elements");
    emit(i);
}

void DieEmitter::matrix(const MatrixWork& w) {
    use(kCompute);
    const uint32_t e = elemBytes();
    const GemmTiling t =
        GemmTiler::chooseCapped(w.m, w.k, w.n, e, cap_a_, cap_b_, cap_c_, 64, 4096);
    const uint64_t a_size = w.m * w.k * e, b_size = w.k * w.n * e, c_size = w.m * w.n * e;
    for (uint64_t bi = 0; bi < w.batch; ++bi) {
        const uint64_t a0 = w.a_addr + bi * a_size, b0 = w.b_addr + bi * b_size,
                       c0 = w.c_addr + bi * c_size;
        bool a_loaded = false;
        for (uint64_t ni = 0; ni < t.nt; ++ni) {
            const uint64_t tn = std::min(t.tn, w.n - ni * t.tn);
            uint16_t bres = kNoBuf;
            if (t.b_resident) {
                bres = B_[b_turn_++ & 1];
                load(bres, b0 + ni * t.tn * w.k * e, w.k * tn * e);
            }
            for (uint64_t mi = 0; mi < t.mt; ++mi) {
                const uint64_t tm = std::min(t.tm, w.m - mi * t.tm);
                const uint16_t c = C_[c_turn_++ & 1];
                const uint64_t c_addr = c0 + (mi * t.tm * w.n + ni * t.tn * tm) * e;
                if (w.accumulate) load(c, c_addr, tm * tn * e);
                for (uint64_t ki = 0; ki < t.kt; ++ki) {
                    const uint64_t tk = std::min(t.tk, w.k - ki * t.tk);
                    // A stays in A0 when it is a single tile: loaded at the first n-tile only.
                    uint16_t a = A_[0];
                    if (t.mt == 1 && t.kt == 1) {
                        if (!a_loaded) load(a, a0, tm * tk * e), a_loaded = true;
                    } else {
                        a = A_[a_turn_++ & 1];
                        load(a, a0 + (mi * t.tm * w.k + ki * t.tk * tm) * e, tm * tk * e);
                    }
                    uint16_t b = bres;
                    if (!t.b_resident) {
                        b = B_[b_turn_++ & 1];
                        load(b, b0 + (ki * t.tk * w.n + ni * t.tn * tk) * e, tk * tn * e);
                    }
                    gemm(a, b, c, tm, tk, tn, w.accumulate || ki > 0);
                }
                store(c, c_addr, tm * tn * e);
            }
        }
    }
}

void DieEmitter::attention(const AttentionWork& w) {
    use(kCompute);
    const uint64_t e = elemBytes();
    const uint64_t d = w.head_dim;
    const double cf = std::clamp(w.causal_fraction, 0.0, 1.0);
    // Heads per instruction h, key/value block bkv and query block bq, all fitting the staging
    // buffers: K and V blocks in B0/B1, Q (and dO) in A, scores in C0, the context (or dK, dV
    // accumulators) in C1.
    const uint64_t ca = cap_a_ / e, cb = cap_b_ / e, cc = cap_c_ / e;
    // K and V of the whole sequence stay resident when they fit beside a score block of at
    // least `rows0` query rows (then Q, K, V and O each cross HBM once); else the largest key
    // block that does, reloaded per query block. Then as many heads per instruction as fit.
    const uint64_t rows0 = std::min<uint64_t>(w.q, 64);
    const uint64_t bkv = std::max<uint64_t>(1, std::min({w.kv, cb / d, cc / rows0, cc / d}));
    // (cc / (bkv d): the backward accumulates dK and dV of the h heads in C1)
    const uint64_t h = std::max<uint64_t>(1, std::min({w.groups, cb / (bkv * d), cc / (bkv * d),
                                                       cc / (rows0 * bkv), ca / (rows0 * d)}));
    uint64_t bq = std::min<uint64_t>(
        w.q, std::max<uint64_t>(1, std::min({ca / (h * d), cc / (h * bkv), cc / (h * d)})));
    if (w.backward) bq = std::max<uint64_t>(1, bq / 2);  // dO beside Q, dS beside S
    const uint64_t kv_blocks = ceilDiv(w.kv, bkv);
    const uint64_t q_blocks = ceilDiv(w.q, bq);
    // Causal: the blocks above the diagonal are skipped; per query block the computed key share
    // is cf of the sequence (the average over the blocks).
    const uint64_t groups = ceilDiv(w.groups, h);
    const uint64_t kvbytes = h * bkv * d * e;
    const uint64_t n_kv_eff = std::max<uint64_t>(1, uint64_t(double(kv_blocks) * cf + 0.5));
    const bool kv_resident = kv_blocks == 1;
    const std::vector<Opcode> softmax{Opcode::VRedMax, Opcode::VBSub, Opcode::VExp, Opcode::VRedSum,
                                      Opcode::VBMul};
    const std::vector<Opcode> softmax_bwd{Opcode::VMul, Opcode::VRedSum, Opcode::VBSub,
                                          Opcode::VMul};
    for (uint64_t g = 0; g < groups; ++g) {
        const uint64_t hh = std::min(h, w.groups - g * h);
        const uint64_t head_off = g * h * w.kv * d * e;
        if (kv_resident) {
            load(B_[0], w.k_addr + head_off, hh * bkv * d * e);
            load(B_[1], w.v_addr + head_off, hh * bkv * d * e);
        }
        for (uint64_t qi = 0; qi < q_blocks; ++qi) {
            const uint64_t rows = std::min(bq, w.q - qi * bq) * hh;
            const uint64_t q_off = (g * h * w.q + qi * bq * hh) * d * e;
            const uint16_t qa = A_[a_turn_++ & 1];
            load(qa, w.q_addr + q_off, rows * d * e);
            if (w.backward) load(A_[a_turn_++ & 1], w.o_addr + q_off, rows * d * e);  // dO
            for (uint64_t kb = 0; kb < n_kv_eff; ++kb) {
                const uint64_t cols = std::min(bkv, w.kv - std::min(w.kv, kb * bkv));
                if (!kv_resident) {
                    load(B_[0], w.k_addr + head_off + kb * kvbytes, hh * cols * d * e);
                    load(B_[1], w.v_addr + head_off + kb * kvbytes, hh * cols * d * e);
                }
                gemm(qa, B_[0], C_[0], rows, d, cols, false);  // S = Q K^T
                for (Opcode op : softmax)
                    vop(op, C_[0], op == Opcode::VBSub || op == Opcode::VBMul ? S_ : kNoBuf,
                        op == Opcode::VRedMax || op == Opcode::VRedSum ? S_ : C_[0], rows * cols);
                if (!w.backward) {
                    gemm(C_[0], B_[1], C_[1], rows, cols, d, kb > 0);  // O += P V
                    continue;
                }
                // Backward: dV += P^T dO, dP = dO V^T, dS = P (dP - rowsum), dQ += dS K,
                // dK += dS^T Q.
                gemm(C_[0], A_[a_turn_ & 1], C_[1], cols, rows, d, true);
                gemm(A_[a_turn_ & 1], B_[1], C_[0], rows, d, cols, false);
                for (Opcode op : softmax_bwd)
                    vop(op, C_[0],
                        op == Opcode::VBSub ? S_
                        : binary(op)        ? C_[0]
                                            : kNoBuf,
                        op == Opcode::VRedSum ? S_ : C_[0], rows * cols);
                gemm(C_[0], B_[0], A_[a_turn_ & 1], rows, cols, d, kb > 0);
                gemm(C_[0], qa, C_[1], cols, rows, d, true);
            }
            // Forward: the context block; backward: dQ.
            store(w.backward ? A_[a_turn_ & 1] : C_[1], w.o_addr + q_off, rows * d * e);
        }
        if (w.backward) {  // dK and dV of this group of heads
            store(C_[1], w.k_addr + head_off, hh * std::min(bkv, w.kv) * d * e);
            store(C_[1], w.v_addr + head_off, hh * std::min(bkv, w.kv) * d * e);
        }
    }
}

void DieEmitter::vector(const VectorWork& w) {
    use(kCompute);
    if (w.elems == 0) return;
    const uint64_t e = elemBytes();
    const uint64_t chunk = std::min({cap_a_, cap_b_, cap_c_}) / e;
    for (uint64_t off = 0; off < w.elems; off += chunk) {
        const uint64_t n = std::min(chunk, w.elems - off);
        const uint16_t a = A_[a_turn_++ & 1], b = B_[b_turn_++ & 1], c = C_[c_turn_++ & 1];
        if (!w.in_addr.empty()) load(a, w.in_addr[0] + off * e, n * e);
        if (w.in_addr.size() > 1) load(b, w.in_addr[1] + off * e, n * e);
        for (Opcode op : w.ops) {
            if (op == Opcode::VRsqrt || op == Opcode::VRecip) {
                vop(op, S_, kNoBuf, S_, 1);  // on the row statistics
            } else if (isReduction(op)) {
                vop(op, a, kNoBuf, S_, n);
            } else if (op == Opcode::VBSub || op == Opcode::VBMul) {
                vop(op, a, S_, c, n);
            } else if (binary(op)) {
                vop(op, a, w.in_addr.size() > 1 ? b : c, c, n);
            } else {
                vop(op, a, kNoBuf, c, n);
            }
        }
        store(c, w.out_addr + off * e, n * e);
    }
}

void DieEmitter::optimizer(uint64_t params, uint64_t master_addr, uint64_t grad_addr,
                           uint64_t weight_addr) {
    use(kCompute);
    tag("optimizer");
    if (params == 0) return;
    // fp32 master, m, v (4 B each) and the fp16 gradient in; master, m, v and the fp16 weight
    // out: 14 B read and 14 B written per parameter. Buffers hold fp16 elements, so a chunk of
    // n parameters uses 2n elements for each fp32 tensor.
    const uint64_t e = elemBytes();
    const uint64_t n = std::min({cap_a_, cap_b_, cap_c_}) / (2 * e) / 2;  // fp32 fits twice over
    const std::vector<Opcode> adam{Opcode::VScale, Opcode::VAdd,  Opcode::VMul,   Opcode::VScale,
                                   Opcode::VAdd,   Opcode::VCopy, Opcode::VRecip, Opcode::VMul,
                                   Opcode::VSub,   Opcode::VCopy};
    for (uint64_t off = 0; off < params; off += n) {
        const uint64_t k = std::min(n, params - off);
        const uint16_t a = A_[a_turn_++ & 1], b = B_[b_turn_++ & 1], c = C_[c_turn_++ & 1];
        const uint64_t f32 = master_addr + off * 12;  // master, m, v interleaved per chunk
        load(a, f32, 4 * k);
        load(b, f32 + 4 * k, 4 * k);
        load(c, f32 + 8 * k, 4 * k);
        load(a == A_[0] ? A_[1] : A_[0], grad_addr + off * e, k * e);
        for (Opcode op : adam) {
            if (op == Opcode::VRecip)
                vop(Opcode::VRsqrt, c, kNoBuf, c, 2 * k);
            else if (binary(op))
                vop(op, a, b, c, 2 * k);
            else
                vop(op, a, kNoBuf, b, 2 * k);
        }
        store(a, f32, 4 * k);
        store(b, f32 + 4 * k, 4 * k);
        store(c, f32 + 8 * k, 4 * k);
        store(c, weight_addr + off * e, k * e);
    }
}

void DieEmitter::signalEvent(uint32_t s, uint16_t event) {
    use(s);
    Instruction i;
    i.op = Opcode::Signal;
    i.event = event;
    emit(i);
}

void DieEmitter::waitEvent(uint32_t s, uint16_t event) {
    use(s);
    Instruction i;
    i.op = Opcode::Wait;
    i.event = event, i.n = 1;
    emit(i);
}

void DieEmitter::ready(uint32_t s) {
    signalEvent(kCompute, readyEvent(s));
}

void DieEmitter::awaitReady(uint32_t s) {
    waitEvent(s, readyEvent(s));
}

void DieEmitter::done(uint32_t s) {
    signalEvent(s, doneEvent(s));
}

uint32_t DieEmitter::awaitDone(uint32_t s) {
    waitEvent(kCompute, doneEvent(s));
    return p_.streamSize(kCompute) - 1;  // stream 0 starts at pc 0
}

void DieEmitter::sendSegments(uint32_t s, uint16_t cts, const uint16_t seg_buf[2], uint32_t& turn,
                              uint32_t to, uint64_t addr, uint64_t bytes) {
    const uint64_t seg = p_.buffer(seg_buf[0]).bytes();
    for (uint64_t off = 0; off < bytes; off += seg) {
        const uint64_t n = std::min(seg, bytes - off);
        const uint16_t b = seg_buf[turn++ & 1];
        load(b, addr + off, n);  // from memory while the receiver's clear-to-send is on its way
        waitEvent(s, cts);
        Instruction snd;
        snd.op = Opcode::Send;
        snd.a = b, snd.peer = to, snd.bytes = n;
        emit(snd);
    }
}

void DieEmitter::recvSegments(uint16_t cts, const uint16_t seg_buf[2], uint32_t& turn,
                              uint32_t from, uint64_t addr, uint64_t bytes) {
    const uint64_t seg = p_.buffer(seg_buf[0]).bytes();
    const uint64_t segs = (bytes + seg - 1) / seg;
    const uint32_t first = turn;
    turn += static_cast<uint32_t>(segs);
    // Segment k: post its receive, then clear the sender to send it (a one-flit put raising
    // `cts` there; every die declares the same buffers, so the CTS buffer exists on the sender).
    // Two segments are posted ahead of the stores, so the transfer streams at the link rate
    // while no segment ever arrives before its receive.
    auto post = [&](uint64_t k) {
        postReceive(cts, seg_buf[(first + k) & 1], from, std::min(seg, bytes - k * seg));
    };
    for (uint64_t k = 0; k < std::min<uint64_t>(segs, 2); ++k) post(k);
    for (uint64_t k = 0; k < segs; ++k) {
        store(seg_buf[(first + k) & 1], addr + k * seg, std::min(seg, bytes - k * seg));
        if (k + 2 < segs) post(k + 2);
    }
}

void DieEmitter::sendTensor(bool forward, uint32_t to, uint64_t addr, uint64_t bytes) {
    const uint32_t s = forward ? kPipeComm : kPipeBack;
    use(s);
    const std::string was = tag_;
    tag("pipeline transfer");
    const int d = forward ? 0 : 1;
    sendSegments(s, ctsEvent(forward), P2P_[d], p2p_turn_[d], to, addr, bytes);
    tag(was);
}

void DieEmitter::postReceive(uint16_t cts, uint16_t buf, uint32_t from, uint64_t bytes) {
    Instruction r;
    r.op = Opcode::Recv;
    r.c = buf, r.peer = from, r.bytes = bytes;
    emit(r);
    Instruction put;  // a one-flit put raising `cts` on the sender
    put.op = Opcode::DmaPut;
    put.a = CTS_, put.rbuf = CTS_, put.peer = from;
    put.bytes = p_.buffer(CTS_).bytes();
    put.event = cts, put.raise = true;
    emit(put);
}

void DieEmitter::recvTensor(bool forward, uint32_t from, uint64_t addr, uint64_t bytes) {
    use(forward ? kPipeComm : kPipeBack);
    const std::string was = tag_;
    tag("pipeline transfer");
    const int d = forward ? 0 : 1;
    recvSegments(ctsEvent(forward), P2P_[d], p2p_turn_[d], from, addr, bytes);
    tag(was);
}

DieEmitter::Channel DieEmitter::channel(uint32_t stream, const std::string& name) {
    Channel c;
    c.stream = stream;
    const uint64_t e = elemBytes();
    const uint64_t elems = std::max<uint64_t>(commBudget() / 16 / e, 1);
    for (int i = 0; i < 2; ++i) c.seg[i] = buf(fmt::format("{}{}", name, i), elems);
    return c;
}

void DieEmitter::sendOn(Channel& c, uint32_t to, uint64_t addr, uint64_t bytes,
                        const std::string& hbm_tag, int32_t cts) {
    use(c.stream);
    const std::string was = tag_;
    tag(hbm_tag);
    sendSegments(c.stream, cts < 0 ? channelCtsEvent(c.stream) : static_cast<uint16_t>(cts), c.seg,
                 c.turn, to, addr, bytes);
    tag(was);
}

void DieEmitter::recvOn(Channel& c, uint32_t from, uint64_t addr, uint64_t bytes,
                        const std::string& hbm_tag, int32_t cts) {
    use(c.stream);
    const std::string was = tag_;
    tag(hbm_tag);
    recvSegments(cts < 0 ? channelCtsEvent(c.stream) : static_cast<uint16_t>(cts), c.seg, c.turn,
                 from, addr, bytes);
    tag(was);
}

void DieEmitter::exchange(bool forward, uint32_t to, uint64_t send_addr, uint64_t send_bytes,
                          uint32_t from, uint64_t recv_addr, uint64_t recv_bytes) {
    const int d = forward ? 0 : 1;
    if (RX_[d][0] == kNoBuf) throw std::logic_error("die lowering: exchange without tatp staging");
    const uint32_t s = forward ? kPipeComm : kPipeBack;
    use(s);
    const std::string was = tag_;
    tag("tatp stream");
    const uint64_t seg = p_.buffer(P2P_[d][0]).bytes();
    const uint64_t tx = (send_bytes + seg - 1) / seg, rx = (recv_bytes + seg - 1) / seg;
    const uint32_t rturn = rx_turn_[d];
    rx_turn_[d] += static_cast<uint32_t>(rx);
    auto post = [&](uint64_t k) {
        postReceive(ctsEvent(forward), RX_[d][(rturn + k) & 1], from,
                    std::min(seg, recv_bytes - k * seg));
    };
    // Receives first (the neighbour's sends wait for their clear-to-send), then the segments of
    // both ways interleaved, so the two links of the round stream at once.
    for (uint64_t k = 0; k < std::min<uint64_t>(rx, 2); ++k) post(k);
    for (uint64_t k = 0; k < std::max(tx, rx); ++k) {
        if (k < tx) {
            const uint64_t n = std::min(seg, send_bytes - k * seg);
            const uint16_t b = P2P_[d][p2p_turn_[d]++ & 1];
            load(b, send_addr + k * seg, n);
            waitEvent(s, ctsEvent(forward));
            Instruction snd;
            snd.op = Opcode::Send;
            snd.a = b, snd.peer = to, snd.bytes = n;
            emit(snd);
        }
        if (k < rx) {
            store(RX_[d][(rturn + k) & 1], recv_addr + k * seg,
                  std::min(seg, recv_bytes - k * seg));
            if (k + 2 < rx) post(k + 2);
        }
    }
    tag(was);
}

}  // namespace wsc::firmware::llm
