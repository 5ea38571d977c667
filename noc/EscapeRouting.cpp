#include "noc/EscapeRouting.h"

#include <fmt/format.h>

#include <deque>
#include <limits>
#include <stdexcept>

#include "noc/DimensionOrderRouting.h"

namespace wsc::noc {

namespace {
constexpr uint32_t kInf = std::numeric_limits<uint32_t>::max();
}

EscapeRouting::EscapeRouting(const Topology& topo, const FaultMap& faults,
                             const UpDownRouting& updown, uint32_t vcs)
    : topo_(topo), updown_(updown), vcs_(static_cast<uint8_t>(vcs)), R_(topo.routers()) {
    if (vcs < 2)
        throw std::invalid_argument(
            "escape routing needs at least 2 VCs (VC 0 is the escape channel)");
    DimensionOrderRouting dor(topo, true, vcs);
    next_.assign(size_t(R_) * R_, UpDownRouting::kUnreachable);
    std::vector<uint32_t> dist(R_);
    std::deque<uint32_t> q;
    for (uint32_t d = 0; d < R_; ++d) {
        if (faults.routerDead(d)) continue;
        // Backward BFS from d over surviving links (links fail in both directions).
        std::fill(dist.begin(), dist.end(), kInf);
        dist[d] = 0;
        q.assign({d});
        while (!q.empty()) {
            const uint32_t v = q.front();
            q.pop_front();
            for (uint8_t p = 0; p < Topology::kFirstLocal; ++p) {
                if (faults.linkDead(v, p)) continue;
                const uint32_t n = topo.neighbor(v, p);
                if (dist[n] != kInf) continue;
                dist[n] = dist[v] + 1;
                q.push_back(n);
            }
        }
        for (uint32_t r = 0; r < R_; ++r) {
            if (r == d || dist[r] == kInf) continue;
            // XY's port first, so an intact region routes exactly as XY does.
            const uint8_t xy = dor.nextPort(r, d, Topology::kFirstLocal);
            const uint8_t prefs[5] = {xy, Topology::kEast, Topology::kWest, Topology::kNorth,
                                      Topology::kSouth};
            for (uint8_t p : prefs) {
                if (Topology::isLocal(p) || faults.linkDead(r, p)) continue;
                const uint32_t n = topo.neighbor(r, p);
                if (dist[n] + 1 == dist[r]) {
                    next_[size_t(r) * R_ + d] = p;
                    break;
                }
            }
        }
    }
}

uint32_t EscapeRouting::distance(uint32_t r, uint32_t d) const {
    uint32_t n = 0;
    while (r != d) {
        const uint8_t p = shortestPort(r, d);
        if (p == UpDownRouting::kUnreachable) return kInf;
        r = topo_.neighbor(r, p);
        ++n;
    }
    return n;
}

RouteDecision EscapeRouting::route(uint32_t r, uint8_t in_port, uint8_t in_vc,
                                   const PacketInfo& pkt) const {
    RouteDecision d;
    const uint32_t dr = topo_.routerOfNode(pkt.dst);
    if (r == dr) {  // ejection: any VC
        d.out_mask = static_cast<uint8_t>(1u << topo_.portOfNode(pkt.dst));
        d.vc_lo = 0, d.vc_hi = vcs_;
        return d;
    }
    const bool escaped = in_vc == 0 && !Topology::isLocal(in_port);
    // On the escape VC the up*/down* phase follows from the input port; entering it here starts
    // a fresh up*/down* route (phase "may still go up"), which is legal from any router.
    const uint8_t esc = updown_.nextPort(r, escaped ? in_port : Topology::kFirstLocal, pkt.dst);
    if (esc == UpDownRouting::kUnreachable)
        throw std::runtime_error(
            fmt::format("routing: no route from {} to node {} around the failed links",
                        topo_.name(r), pkt.dst));
    if (escaped) {
        d.out_mask = static_cast<uint8_t>(1u << esc);
        d.vc_lo = 0, d.vc_hi = 1;
        return d;
    }
    d.out_mask = static_cast<uint8_t>(1u << shortestPort(r, dr));
    d.vc_lo = 1, d.vc_hi = vcs_;
    d.alt_port = esc;
    d.alt_vc_lo = 0, d.alt_vc_hi = 1;
    return d;
}

}  // namespace wsc::noc
