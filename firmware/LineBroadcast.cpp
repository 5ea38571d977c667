#include "firmware/LineBroadcast.h"

#include <algorithm>

namespace wsc::firmware {

LineBroadcast::LineBroadcast(RoutePlanner& rp, std::vector<uint32_t> line, uint32_t src)
    : line_(std::move(line)), src_(src) {
    std::vector<uint32_t> dsts;
    for (uint32_t i = 0; i < line_.size(); ++i)
        if (i != src_) dsts.push_back(line_[i]);
    if (!dsts.empty()) route_ = rp.multicast(line_[src_], dsts);
}

void LineBroadcast::emit(Program& prog, uint32_t at, uint16_t own, uint16_t into,
                         uint64_t bytes) const {
    const uint32_t n = static_cast<uint32_t>(line_.size());
    if (n == 1) return;
    Instruction s;
    s.op = Opcode::Send, s.bytes = bytes;
    Instruction r;
    r.op = Opcode::Recv, r.bytes = bytes, r.c = into;
    if (direct()) {
        if (at == src_)
            s.a = own, s.route = route_, prog.add(s);
        else
            r.route = route_, prog.add(r);
        return;
    }
    // Pipelined: neighbours use the default path to the adjacent core (no table entry).
    if (at == src_) {
        s.a = own;
        if (at > 0) s.peer = line_[at - 1], prog.add(s);
        if (at + 1 < n) s.peer = line_[at + 1], prog.add(s);
        return;
    }
    const bool left = at < src_;  // the block arrives from the source's side
    r.peer = line_[left ? at + 1 : at - 1];
    prog.add(r);
    if (left ? at > 0 : at + 1 < n) {
        s.a = into, s.peer = line_[left ? at - 1 : at + 1];
        prog.add(s);
    }
}

CriticalPath LineBroadcast::path(uint64_t bytes) const {
    const uint32_t n = static_cast<uint32_t>(line_.size());
    CriticalPath p;
    p.bytes = bytes;
    p.hops = n > 1 ? std::max(src_, n - 1 - src_) : 0;  // cores of a line are one hop apart
    p.stages = n == 1 ? 0 : direct() ? 1 : p.hops;
    if (n == 1) return p;
    // Towards the far end: in one leg on the route, else core by core.
    const bool left = src_ >= n - 1 - src_;
    const uint32_t end = left ? 0 : n - 1;
    if (direct()) {
        p.legs.push_back({line_[src_], line_[end]});
    } else {
        for (uint32_t at = src_; at != end; at = left ? at - 1 : at + 1)
            p.legs.push_back({line_[at], line_[left ? at - 1 : at + 1]});
    }
    return p;
}

}  // namespace wsc::firmware
