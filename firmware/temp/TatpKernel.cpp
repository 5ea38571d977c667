#include "firmware/temp/TatpKernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace wsc::firmware::temp {

namespace {

using Algo = StreamSchedule::Algo;
using Kind = StreamSchedule::Kind;
using Stage = TatpKernel::Stage;
using Stream = TatpKernel::Stream;

// Which stream a stage is and which matrices take part (TatpKernel.h).
Kind kindOf(Stream s, Stage st) {
    if (s == Stream::Weight) return st == Stage::Gradient ? Kind::Reduce : Kind::Broadcast;
    return st == Stage::Backward ? Kind::Reduce : Kind::Broadcast;
}

Instruction gemm(uint16_t a, uint16_t b, uint16_t c, uint32_t m, uint32_t k, uint32_t n, DType dt,
                 bool acc, bool transB) {
    Instruction i;
    i.op = Opcode::Gemm, i.a = a, i.b = b, i.c = c, i.m = m, i.k = k, i.n = n, i.dtype = dt;
    i.flags = uint8_t((acc ? Instruction::kAccumulate : 0) | (transB ? Instruction::kTransB : 0));
    return i;
}

// A send (of `buf`) or receive (into `buf`) on `stream`: over the mapper's table route for
// (stream, src, dst) when it chose one, else to / from the peer by dimension order.
Instruction transfer(Opcode op, const TatpKernel::Spec& s, uint32_t stream, uint32_t src,
                     uint32_t dst, uint16_t buf, uint64_t bytes) {
    Instruction i;
    i.op = op, i.bytes = bytes;
    (op == Opcode::Send ? i.a : i.c) = buf;
    auto it = s.routes.find({stream, src, dst});
    if (it != s.routes.end())
        i.route = it->second;
    else
        i.peer = op == Opcode::Send ? dst : src;
    return i;
}
Instruction send(const TatpKernel::Spec& s, uint32_t stream, uint32_t src, uint32_t dst,
                 uint16_t buf, uint64_t bytes) {
    return transfer(Opcode::Send, s, stream, src, dst, buf, bytes);
}
Instruction recv(const TatpKernel::Spec& s, uint32_t stream, uint32_t src, uint32_t dst,
                 uint16_t buf, uint64_t bytes) {
    return transfer(Opcode::Recv, s, stream, src, dst, buf, bytes);
}

}  // namespace

TatpKernel::Plan TatpKernel::build(const placement::DieArray& a,
                                   const std::vector<GroupLayout::Group>& groups, const Spec& s) {
    if (groups.empty()) throw std::invalid_argument("tatp: no groups");
    const uint32_t N = uint32_t(groups.front().size());
    for (const auto& g : groups)
        if (g.size() != N) throw std::invalid_argument("tatp: groups of different sizes");
    if (s.m == 0 || s.h == 0 || s.k == 0 || s.m % N || s.k % N)
        throw std::invalid_argument(fmt::format(
            "tatp: m = {} and k = {} must be positive multiples of the group size {} (h = {})", s.m,
            s.k, N, s.h));
    const uint32_t mb = s.m / N, kb = s.k / N, H = s.h;
    const bool ws = s.stream == Stream::Weight;
    const uint32_t item_elems = ws ? H * kb : mb * H;
    const DType dt = s.dtype;
    auto has = [&](Stage st) {
        return std::find(s.stages.begin(), s.stages.end(), st) != s.stages.end();
    };

    Plan plan;
    plan.fw = Firmware(a.dies());
    plan.item_bytes = uint64_t(item_elems) * dtypeBytes(dt);
    plan.useful_macs = uint64_t(s.m) * H * s.k * s.stages.size() * groups.size();

    std::vector<StreamSchedule> sched;
    for (Stage st : s.stages)
        sched.push_back(StreamSchedule::make(s.algo, kindOf(s.stream, st), N));

    for (uint32_t g = 0; g < groups.size(); ++g) {
        const auto& chain = groups[g];
        for (uint32_t p = 0; p < N; ++p) {
            const uint32_t die = chain[p];
            if (die >= a.dies()) throw std::invalid_argument("tatp: a die is off the array");
            plan.cores.push_back(die);
            Program& prog = plan.fw.program(die);
            auto buf = [&](const std::string& n, uint32_t elems) {
                return prog.addBuffer(n, elems, dt);
            };
            auto in = [&](const std::string& matrix, const std::string& b, uint32_t r0, uint32_t c0,
                          uint32_t rows, uint32_t cols) {
                plan.inputs.push_back({g, matrix, {die, b, r0, c0, rows, cols}});
            };
            auto out = [&](const std::string& matrix, const std::string& b, uint32_t r0,
                           uint32_t c0, uint32_t rows, uint32_t cols) {
                plan.outputs.push_back({g, matrix, {die, b, r0, c0, rows, cols}});
            };
            // Stationary data and outputs (names as in docs/TEMP.md).
            uint16_t I = kNoBuf, IT = kNoBuf, W = kNoBuf, dI = kNoBuf, dW = kNoBuf;
            std::vector<uint16_t> O(N, kNoBuf), dO(N, kNoBuf);
            const bool fwd = has(Stage::Forward), bwd = has(Stage::Backward),
                       grad = has(Stage::Gradient);
            if (fwd) I = buf("I", mb * H), in("I", "I", p * mb, 0, mb, H);
            if (grad) IT = buf("IT", H * mb), in("IT", "IT", 0, p * mb, H, mb);
            W = buf("W", H * kb), in("W", "W", 0, p * kb, H, kb);
            for (uint32_t j = 0; j < N; ++j) {
                const std::string nm = fmt::format("dO.{}", j);
                if (bwd || grad) {
                    dO[j] = buf(nm, mb * kb);
                    if (ws)
                        in("dO", nm, p * mb, j * kb, mb, kb);
                    else
                        in("dO", nm, j * mb, p * kb, mb, kb);
                }
                if (fwd) {
                    const std::string on = fmt::format("O.{}", j);
                    O[j] = buf(on, mb * kb);
                    if (ws)
                        out("O", on, p * mb, j * kb, mb, kb);
                    else
                        out("O", on, j * mb, p * kb, mb, kb);
                }
            }
            if (bwd) dI = buf("dI", mb * H), out("dI", "dI", p * mb, 0, mb, H);
            if (grad) dW = buf("dW", H * kb), out("dW", "dW", 0, p * kb, H, kb);

            // Stream buffers: as many as the most demanding stage needs at this position.
            std::vector<StreamSchedule::Slots> slot_of;
            uint32_t slots = 0;
            for (const auto& sc : sched) {
                slot_of.push_back(sc.slots(p));
                slots = std::max(slots, slot_of.back().count);
            }
            std::vector<uint16_t> S;
            for (uint32_t i = 0; i < slots; ++i)
                S.push_back(buf(fmt::format("S{}", i), item_elems));
            plan.slots = std::max(plan.slots, slots);

            for (size_t si = 0; si < sched.size(); ++si) {
                const StreamSchedule& sc = sched[si];
                const Stage st = s.stages[si];
                const auto& slot = slot_of[si];
                const bool bc = sc.kind() == Kind::Broadcast;
                // The own item of a broadcast and the result of a reduce.
                const uint16_t own = bc ? (ws ? W : st == Stage::Forward ? I : IT) : ws ? dW : dI;
                auto itemBuf = [&](uint32_t j) -> uint16_t {
                    if (j == p) return own;
                    if (bc) {
                        for (const auto& t : sc.transfers())
                            if (t.dst == p && t.item == j) return S.at(slot.at(j, false, t.src));
                        throw std::logic_error("tatp: an item is never received");
                    }
                    return S.at(slot.at(j, true, p));
                };
                // Reduce: partials received straight into the accumulator before the own
                // contribution make that contribution accumulate.
                std::vector<uint8_t> acc_first(N, 0);
                if (!bc)
                    for (const auto& t : sc.transfers())
                        if (t.dst == p && sc.receivesIntoAccumulator(p, t)) acc_first[t.item] = 1;
                auto addCopy = [&](const StreamSchedule::Transfer& t) {
                    Instruction v;
                    v.op = Opcode::VAdd, v.a = itemBuf(t.item),
                    v.b = S.at(slot.at(t.item, false, t.src)), v.c = itemBuf(t.item);
                    v.n = item_elems, v.dtype = dt;
                    prog.add(v);
                };
                for (uint32_t r = 0; r <= N; ++r) {
                    // Reduce: copies added at the start of this round (own part already in).
                    if (!bc)
                        for (const auto& t : sc.transfers())
                            if (t.dst == p && !sc.receivesIntoAccumulator(p, t) &&
                                sc.addRound(p, t) == r && sc.computeRound(p, t.item) < r)
                                addCopy(t);
                    if (r == N) break;
                    const auto tree = bc ? s.multicast.find({die, r}) : s.multicast.end();
                    bool sent = false;
                    for (const auto& t : sc.transfers())
                        if (t.round == r && t.src == p) {
                            if (tree == s.multicast.end()) {
                                prog.add(send(s, 0, die, chain[t.dst], itemBuf(t.item),
                                              plan.item_bytes));
                                continue;
                            }
                            // One send on the tree carries the round's single item to all.
                            for (const auto& o : sc.transfers())
                                if (o.round == r && o.src == p && o.item != t.item)
                                    throw std::logic_error(
                                        "tatp: a multicast tree for a round that sends two items");
                            if (sent) continue;
                            Instruction i;
                            i.op = Opcode::Send, i.bytes = plan.item_bytes;
                            i.a = itemBuf(t.item), i.route = tree->second;
                            prog.add(i);
                            sent = true;
                        }
                    for (const auto& t : sc.transfers())
                        if (t.round == r && t.dst == p) {
                            Instruction i = recv(s, 0, chain[t.src], die, kNoBuf, plan.item_bytes);
                            if (bc) {
                                auto from = s.multicast.find({chain[t.src], r});
                                if (from != s.multicast.end())
                                    i.peer = kNoCore, i.route = from->second;
                            }
                            i.c = bc || sc.receivesIntoAccumulator(p, t)
                                      ? itemBuf(t.item)
                                      : S.at(slot.at(t.item, false, t.src));
                            prog.add(i);
                        }
                    const uint32_t j = sc.computeItem(p, r);
                    const uint16_t it = itemBuf(j);
                    if (ws && st == Stage::Forward)
                        prog.add(gemm(I, it, O[j], mb, H, kb, dt, false, false));
                    else if (ws && st == Stage::Backward)
                        prog.add(gemm(dO[j], it, dI, mb, kb, H, dt, r > 0, true));
                    else if (ws)  // gradient: partial of dW_j
                        prog.add(gemm(IT, dO[j], it, H, mb, kb, dt, acc_first[j], false));
                    else if (st == Stage::Forward)
                        prog.add(gemm(it, W, O[j], mb, H, kb, dt, false, false));
                    else if (st == Stage::Backward)  // partial of dI_j
                        prog.add(gemm(dO[j], W, it, mb, kb, H, dt, acc_first[j], true));
                    else
                        prog.add(gemm(it, dO[j], dW, H, mb, kb, dt, r > 0, false));
                    // Reduce: copies added right after the own contribution.
                    if (!bc)
                        for (const auto& t : sc.transfers())
                            if (t.dst == p && t.item == j && !sc.receivesIntoAccumulator(p, t) &&
                                sc.addRound(p, t) == r && sc.computeRound(p, j) == r)
                                addCopy(t);
                }
            }
        }
    }
    // FSDP ring all-gathers on stream 1, beside the stream above: round r, position p sends
    // shard (p + r) mod n to its ring predecessor and receives shard (p + r + 1) mod n.
    for (const auto& ring : s.fsdp) {
        const uint32_t n = uint32_t(ring.size());
        const uint64_t bytes = uint64_t(s.fsdp_elems) * dtypeBytes(dt);
        for (uint32_t p = 0; p < n; ++p) {
            const uint32_t die = ring[p];
            if (die >= a.dies()) throw std::invalid_argument("tatp: an FSDP die is off the array");
            Program& prog = plan.fw.program(die);
            std::vector<uint16_t> G;
            for (uint32_t j = 0; j < n; ++j)
                G.push_back(prog.addBuffer(fmt::format("G.{}", j), s.fsdp_elems, dt));
            prog.setStream(1);
            const uint32_t pred = ring[(p + n - 1) % n], succ = ring[(p + 1) % n];
            for (uint32_t r = 0; r + 1 < n; ++r) {
                prog.add(send(s, 1, die, pred, G[(p + r) % n], bytes));
                prog.add(recv(s, 1, succ, die, G[(p + r + 1) % n], bytes));
            }
            prog.setStream(0);
            plan.cores.push_back(die);
        }
    }
    std::sort(plan.cores.begin(), plan.cores.end());
    plan.cores.erase(std::unique(plan.cores.begin(), plan.cores.end()), plan.cores.end());
    plan.notes = fmt::format(
        "{} over groups of {}, {} streaming ({} B per sub-tensor), {} "
        "stream buffers per die",
        StreamSchedule::name(s.algo), N, name(s.stream), plan.item_bytes, plan.slots);
    return plan;
}

}  // namespace wsc::firmware::temp
