#include "firmware/llm/TatpLowering.h"

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::llm {

using temp::StreamSchedule;

StreamSchedule TatpLowering::schedule(Stage s, uint32_t n) {
    return StreamSchedule::make(
        StreamSchedule::Algo::Tatp,
        s == Stage::Gradient ? StreamSchedule::Kind::Reduce : StreamSchedule::Kind::Broadcast, n);
}

uint32_t TatpLowering::slots(uint32_t n) {
    uint32_t most = 0;
    for (Stage s : {Stage::Forward, Stage::Backward, Stage::Gradient}) {
        const StreamSchedule sc = schedule(s, n);
        for (uint32_t p = 0; p < n; ++p) most = std::max(most, sc.slots(p).count);
    }
    return most;
}

std::vector<TatpLowering::Comm> TatpLowering::emit(
    Stage stage, const std::vector<DieEmitter*>& chain, const std::vector<DieMem>& mem,
    const Shape& sh, bool accumulate, std::vector<std::pair<uint32_t, uint32_t>>& waits) {
    const uint32_t N = static_cast<uint32_t>(chain.size());
    if (N < 2 || mem.size() != N) throw std::logic_error("tatp lowering: bad group");
    const StreamSchedule sc = schedule(stage, N);
    const bool bc = sc.kind() == StreamSchedule::Kind::Broadcast;
    const uint64_t item = itemBytes(sh);
    const uint64_t T = sh.tokens, K = sh.in, C = sh.cols, e = sh.elem_bytes;
    std::vector<Comm> comms;
    for (uint32_t p = 0; p < N; ++p) {
        DieEmitter& em = *chain[p];
        const DieMem& m = mem[p];
        const StreamSchedule::Slots sl = sc.slots(p);
        if (m.slots.size() < sl.count) throw std::logic_error("tatp lowering: too few slots");
        // Where item j is at position p: its own block, a received copy, or (reduce) the
        // running partial sum of block j.
        auto itemAddr = [&](uint32_t j) -> uint64_t {
            if (j == p) return bc ? m.weights : m.grads;
            if (bc) {
                for (const auto& t : sc.transfers())
                    if (t.dst == p && t.item == j) return m.slots[sl.at(j, false, t.src)];
                throw std::logic_error("tatp lowering: an item is never received");
            }
            return m.slots[sl.at(j, true, p)];
        };
        auto copyAddr = [&](const StreamSchedule::Transfer& t) {
            return m.slots[sl.at(t.item, false, t.src)];
        };
        std::vector<uint8_t> acc_first(N, 0);  // reduce: a partial arrived before p's own part
        if (!bc)
            for (const auto& t : sc.transfers())
                if (t.dst == p && sc.receivesIntoAccumulator(p, t)) acc_first[t.item] = 1;
        auto addCopy = [&](const StreamSchedule::Transfer& t) {
            VectorWork v;
            v.elems = K * C;
            v.in_addr = {itemAddr(t.item), copyAddr(t)};
            v.out_addr = itemAddr(t.item);
            v.ops = {Opcode::VAdd};
            em.vector(v);
        };
        auto addsAt = [&](uint32_t r, bool after_own, uint32_t own_item) {
            if (bc) return;
            for (const auto& t : sc.transfers())
                if (t.dst == p && !sc.receivesIntoAccumulator(p, t) && sc.addRound(p, t) == r &&
                    (after_own ? t.item == own_item && sc.computeRound(p, t.item) == r
                               : sc.computeRound(p, t.item) < r))
                    addCopy(t);
        };

        // Compute stream. The streams start round 0 once compute finished what came before
        // this stage (the slots it reuses), and round r once compute finished round r - 1.
        for (uint32_t s : {kPipeComm, kPipeBack}) em.ready(s);
        for (uint32_t r = 0; r < N; ++r) {
            // Round r - 1's transfers are in (a stream that had none still signals).
            if (r > 0)
                for (uint32_t s : {kPipeComm, kPipeBack})
                    waits.push_back({em.node(), em.awaitDone(s)});
            addsAt(r, false, 0);
            const uint32_t j = sc.computeItem(p, r);
            MatrixWork w;
            if (stage == Stage::Forward) {
                w.m = T, w.k = K, w.n = C;
                w.a_addr = m.input, w.b_addr = itemAddr(j), w.c_addr = m.output + j * T * C * e;
            } else if (stage == Stage::Backward) {
                w.m = T, w.k = C, w.n = K;
                w.a_addr = m.input + j * T * C * e, w.b_addr = itemAddr(j), w.c_addr = m.output;
                w.accumulate = r > 0;
            } else {
                w.m = K, w.k = T, w.n = C;
                w.a_addr = m.input, w.b_addr = m.dout + j * T * C * e, w.c_addr = itemAddr(j);
                w.accumulate = acc_first[j] || (j == p && accumulate);
            }
            em.matrix(w);
            addsAt(r, true, j);
            if (r + 1 < N)
                for (uint32_t s : {kPipeComm, kPipeBack}) em.ready(s);
        }
        for (uint32_t s : {kPipeComm, kPipeBack}) waits.push_back({em.node(), em.awaitDone(s)});
        addsAt(N, false, 0);

        // The two streams: round r's transfers of their direction.
        for (const bool fwd : {true, false}) {
            const uint32_t s = fwd ? kPipeComm : kPipeBack;
            Comm c;
            c.die = em.node(), c.stream = s, c.begin = em.streamSize(s);
            for (uint32_t r = 0; r < N; ++r) {
                em.awaitReady(s);
                const StreamSchedule::Transfer* out = nullptr;
                const StreamSchedule::Transfer* in = nullptr;
                for (const auto& t : sc.transfers()) {
                    if (t.round != r) continue;
                    if (t.src == p && (fwd ? t.dst == p + 1 : t.dst + 1 == p)) out = &t;
                    if (t.dst == p && (fwd ? t.src + 1 == p : t.src == p + 1)) in = &t;
                }
                if (out || in) {
                    const uint64_t recv_addr = !in ? 0
                                               : bc || sc.receivesIntoAccumulator(p, *in)
                                                   ? itemAddr(in->item)
                                                   : copyAddr(*in);
                    em.exchange(fwd, out ? chain[out->dst]->node() : 0,
                                out ? itemAddr(out->item) : 0, out ? item : 0,
                                in ? chain[in->src]->node() : 0, recv_addr, in ? item : 0);
                    c.bytes += out ? item : 0;
                }
                em.done(s);
            }
            c.end = em.streamSize(s);
            comms.push_back(c);
        }
    }
    return comms;
}

}  // namespace wsc::firmware::llm
