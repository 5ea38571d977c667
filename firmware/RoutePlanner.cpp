#include "firmware/RoutePlanner.h"

#include <algorithm>
#include <stdexcept>

#include "noc/ZeroLoadModel.h"

namespace wsc::firmware {

uint32_t RoutePlanner::hops(uint32_t a, uint32_t b) const {
    const uint32_t ax = a % mesh_x_, ay = a / mesh_x_, bx = b % mesh_x_, by = b / mesh_x_;
    return (ax > bx ? ax - bx : bx - ax) + (ay > by ? ay - by : by - ay);
}

CriticalPath RoutePlanner::pathOf(const Path& p, uint64_t bytes) const {
    CriticalPath c;
    c.bytes = bytes, c.hops = p.hops;
    c.stages = 1 + static_cast<uint32_t>(p.relays.size());
    uint32_t at = p.src;
    for (uint32_t r : p.relays) c.legs.push_back({at, r}), at = r;
    c.legs.push_back({at, p.dst});
    return c;
}

uint64_t RoutePlanner::zeroLoadCycles(const noc::Network& net, const CriticalPath& c) {
    const uint64_t fb = net.params().flit_bytes;
    const uint32_t flits = static_cast<uint32_t>(std::max<uint64_t>(1, (c.bytes + fb - 1) / fb));
    const noc::ZeroLoadModel z(net);
    uint64_t t = 0;
    for (const auto& [a, b] : c.legs) t += z.packetLatency(a, b, flits);
    return t;
}

void RoutePlanner::keepWorst(CriticalPath& worst, const CriticalPath& p) const {
    if (p.stages > worst.stages ||
        (p.stages == worst.stages && (zeroLoadCycles(p) > zeroLoadCycles(worst) ||
                                      (worst.legs.empty() && p.hops > worst.hops))))
        worst = p;
}

RoutePlanner::Path RoutePlanner::unicast(uint32_t src, uint32_t dst) {
    Path p;
    p.src = src, p.dst = dst, p.hops = hops(src, dst);
    try {
        p.route = net_.addMulticastRoute(src, {dst});
        ++direct_;
        return p;
    } catch (const std::runtime_error&) {
        // The route limit (or a failed link) refused it: nothing was installed, relay instead.
    }
    ++relayed_;
    // Every core strictly between src and dst on the XY path (X first, then Y) forwards.
    uint32_t x = src % mesh_x_, y = src / mesh_x_;
    const uint32_t tx = dst % mesh_x_, ty = dst / mesh_x_;
    for (;;) {
        if (x != tx)
            x += x < tx ? 1 : -1;
        else if (y != ty)
            y += y < ty ? 1 : -1;
        const uint32_t c = y * mesh_x_ + x;
        if (c == dst) break;
        p.relays.push_back(c);
    }
    return p;
}

uint32_t RoutePlanner::multicast(uint32_t src, const std::vector<uint32_t>& dsts) {
    try {
        const uint32_t r = net_.addMulticastRoute(src, dsts);
        ++direct_;
        return r;
    } catch (const std::runtime_error&) {
        ++rejected_mc_;
        return kNoRouteId;
    }
}

void RoutePlanner::emitSend(Program& prog, const Path& p, uint16_t buf, uint64_t bytes) const {
    Instruction s;
    s.op = Opcode::Send, s.a = buf, s.bytes = bytes;
    if (p.direct())
        s.route = p.route;  // a route send names no peer (the route decides)
    else
        s.peer = p.relays.empty() ? p.dst : p.relays.front();
    prog.add(s);
}

void RoutePlanner::emitRelays(Firmware& fw, const Path& p, uint64_t bytes) const {
    for (size_t i = 0; i < p.relays.size(); ++i) emitRelay(fw, p, i, bytes);
}

void RoutePlanner::emitRelay(Firmware& fw, const Path& p, size_t k, uint64_t bytes) const {
    Instruction r;
    r.op = Opcode::Relay, r.bytes = bytes;
    r.peer = k == 0 ? p.src : p.relays[k - 1];
    r.peer2 = k + 1 < p.relays.size() ? p.relays[k + 1] : p.dst;
    fw.program(p.relays[k]).add(r);
}

void RoutePlanner::emitRecv(Program& prog, const Path& p, uint16_t buf, uint64_t bytes) const {
    Instruction r;
    r.op = Opcode::Recv, r.c = buf, r.bytes = bytes;
    if (p.direct())
        r.route = p.route;
    else
        r.peer = p.relays.empty() ? p.src : p.relays.back();
    prog.add(r);
}

uint32_t RoutePlanner::maxEntries() const {
    uint32_t m = 0;
    for (uint32_t r = 0; r < net_.topology().routers(); ++r) m = std::max(m, net_.routeEntries(r));
    return m;
}

}  // namespace wsc::firmware
