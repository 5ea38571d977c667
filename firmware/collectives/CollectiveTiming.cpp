#include "firmware/collectives/CollectiveTiming.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "firmware/collectives/Collectives.h"
#include "firmware/collectives/Partition.h"
#include "noc/Topology.h"
#include "noc/ZeroLoadModel.h"

namespace wsc::firmware::coll {

namespace {

// One logical hop of the ring: its route's router-to-router links and numbers.
struct Hop {
    std::vector<uint32_t> links;
    uint64_t t0 = 0;     // zero-load cycles of the piece (F flits)
    uint64_t t0_1 = 0;   // ... of one flit
    uint32_t s = 1;      // cycles per flit on the route's slowest link
    uint32_t share = 1;  // c
};

Hop hopOf(const noc::Network& net, const noc::ZeroLoadModel& zl, uint32_t src, uint32_t dst,
          uint64_t flits) {
    Hop h;
    h.t0 = zl.packetLatency(src, dst, static_cast<uint32_t>(flits));
    h.t0_1 = zl.packetLatency(src, dst, 1);
    if (h.t0 == noc::kNever)
        throw std::invalid_argument(
            fmt::format("collective timing: node {} cannot reach node {}", src, dst));
    const noc::Topology& t = net.topology();
    uint32_t r = t.routerOfNode(src);
    uint8_t in = t.portOfNode(src);
    while (true) {
        const uint8_t out = net.unicastNextPort(r, in, dst);
        if (noc::Topology::isLocal(out)) break;
        const uint32_t l = net.router(r).outLink(out);
        h.links.push_back(l);
        h.s = std::max(h.s, net.link(l).serialization());
        r = t.neighbor(r, out);
        in = noc::Topology::opposite(out);
    }
    return h;
}

}  // namespace

CollectiveTiming::CollectiveTiming(const noc::Network& net, const CoreCosts& costs)
    : net_(net), c_(costs) {
    if (c_.vector_lanes == 0 || c_.sram_port_bytes == 0 || c_.sram_ports == 0)
        throw std::invalid_argument(
            "collective timing: vector lanes, SRAM ports and port bytes must be > 0");
}

uint64_t CollectiveTiming::addCycles(uint64_t n, DType t) const {
    const uint64_t bytes = 3 * n * dtypeBytes(t);
    const uint64_t stream = std::max((n + c_.vector_lanes - 1) / c_.vector_lanes,
                                     (bytes + c_.sram_port_bytes - 1) / c_.sram_port_bytes);
    return std::max<uint64_t>(1, c_.vector_latency + stream - 1);
}

CollectiveTime CollectiveTiming::estimate(const CollectiveSpec& s) const {
    Collectives::validate(s, net_.nodes());
    if (s.kind == Collective::AllToAll && s.algo == Algorithm::Direct) return estimateAllToAll(s);
    if (s.algo != Algorithm::Ring)
        throw std::invalid_argument(fmt::format(
            "collective timing: no closed form for {} (ring all-reduce, reduce-scatter, "
            "all-gather and direct all-to-all only)",
            describe(s)));
    CollectiveTime out;
    const uint32_t n = s.size(), k = s.pieces, L = s.bidirectional ? 2 : 1;
    out.pieces = k, out.lanes = L;
    if (n < 2) {
        out.model = "one rank: nothing to do";
        return out;
    }
    const bool ar = s.kind == Collective::AllReduce;
    out.steps = ar ? 2 * (n - 1) : n - 1;
    // Steps [0, R) reduce what they receive.
    const uint32_t R = s.kind == Collective::AllGather ? 0 : n - 1;

    // The largest piece: block 0 (the remainder rule's first part), its first half, first piece.
    const uint64_t block = Partition::size(s.elems, n, 0);
    const uint64_t elems = Partition::size(Partition::size(block, L, 0), k, 0);
    const uint32_t flit = net_.params().flit_bytes;
    out.piece_bytes = elems * dtypeBytes(s.dtype);
    out.piece_flits = std::max<uint64_t>(1, (out.piece_bytes + flit - 1) / flit);
    const uint64_t F = out.piece_flits;
    out.add_cycles = elems ? addCycles(elems, s.dtype) : 0;
    const noc::ZeroLoadModel zl(net_);

    // Hops: lane 0 position q -> q + 1, lane 1 the reverse. c: the most hops through one link.
    std::vector<std::vector<Hop>> hops(L);
    std::map<uint32_t, uint32_t> users;
    for (uint32_t lane = 0; lane < L; ++lane)
        for (uint32_t q = 0; q < n; ++q) {
            const uint32_t a = s.ranks[q], b = s.ranks[(q + 1) % n];
            hops[lane].push_back(lane == 0 ? hopOf(net_, zl, a, b, F) : hopOf(net_, zl, b, a, F));
            for (uint32_t l : hops[lane].back().links) ++users[l];
        }
    uint32_t s_inj = 1;
    for (uint32_t r : s.ranks)
        s_inj = std::max(s_inj, net_.link(net_.ni(r).inj_link).serialization());
    uint64_t link_b = 0;
    uint64_t alpha = 0;
    uint32_t slow_s = 1;
    for (auto& lane : hops)
        for (Hop& h : lane) {
            for (uint32_t l : h.links) h.share = std::max(h.share, users[l]);
            out.sharing = std::max(out.sharing, h.share);
            out.max_hops = std::max<uint32_t>(out.max_hops, uint32_t(h.links.size()));
            link_b = std::max(link_b, h.share * F * h.s);
            alpha = std::max(alpha, h.t0_1 + 1);
            slow_s = std::max(slow_s, h.s);
        }
    out.alpha = alpha;
    out.bandwidth = double(flit) / slow_s;
    const uint64_t V = out.add_cycles;
    const uint64_t Ps = (out.piece_bytes + c_.sram_port_bytes - 1) / c_.sram_port_bytes;
    auto pieceCycles = [&](bool reduce) {
        const uint64_t v = reduce ? V : 0;
        const uint64_t ports = (L * (Ps + v) + c_.sram_ports - 1) / c_.sram_ports;
        return std::max({link_b, L * F * s_inj, L * v, ports, uint64_t(3) * L});
    };
    const uint64_t b_red = pieceCycles(true), b_fwd = pieceCycles(false);
    out.piece_cycles = b_red;
    auto lat = [&](const Hop& h, bool reduce) { return h.t0 + 1 + (reduce ? V : 0); };
    for (const auto& lane : hops)
        for (const Hop& h : lane) out.step_latency = std::max(out.step_latency, lat(h, R > 0));

    // Longest path in max-plus (CollectiveTiming.h). f[lane][p]: when position p sends its
    // first piece of step t on that lane. Between steps a path follows a piece over the hop into
    // p (l) or stays at p behind p's k pieces (k b). Bidirectional: in p's program lane 1's
    // piece follows lane 0's (receive, add, send), and the next step's lane 0 follows the last
    // piece of lane 1 before it.
    const uint32_t T = out.steps;
    std::vector<std::vector<uint64_t>> f(L, std::vector<uint64_t>(n, 0)), g = f;
    for (uint32_t t = 0; t + 1 < T; ++t) {
        const bool red = t < R;
        // gap: lane 1 follows lane 0 in a slot by two issue cycles and lane 0's VADD.
        const uint64_t b = red ? b_red : b_fwd, gap = 2 + (red ? V : 0);
        for (uint32_t p = 0; p < n; ++p) {
            const uint32_t prev = (p + n - 1) % n;
            g[0][p] = std::max(f[0][p] + k * b, f[0][prev] + lat(hops[0][prev], red));
            if (L == 2) g[0][p] = std::max(g[0][p], f[1][p] + (k - 1) * b + gap);
        }
        if (L == 2)
            for (uint32_t p = 0; p < n; ++p) {
                const uint32_t next = (p + 1) % n;
                g[1][p] =
                    std::max({f[1][p] + k * b, g[0][p] + gap, f[1][next] + lat(hops[1][p], red)});
            }
        f.swap(g);
    }
    uint64_t worst = 0;
    const bool red = T - 1 < R;
    const uint64_t b_last = red ? b_red : b_fwd;
    for (uint32_t p = 0; p < n; ++p) {
        worst = std::max(worst, f[0][p] + (k - 1) * b_last + lat(hops[0][p], red) + 1);
        if (L == 2)
            worst = std::max(worst,
                             f[1][p] + (k - 1) * b_last + lat(hops[1][(p + n - 1) % n], red) + 1);
    }
    out.cycles = worst;
    out.model = fmt::format(
        "{}: T = {} steps x k = {} piece(s) of {} B ({} flit(s)) on {} lane(s); alpha = {} "
        "cycles, B = {:.0f} B/cycle, l <= {} cycles (hops up to {} links), b = {} cycles "
        "(links shared by up to {}), VADD {} cycles: {} cycles",
        describe(s), T, k, out.piece_bytes, F, L, alpha, out.bandwidth, out.step_latency,
        out.max_hops, b_red, out.sharing, V, out.cycles);
    return out;
}

CollectiveTime CollectiveTiming::estimateAllToAll(const CollectiveSpec& s) const {
    CollectiveTime out;
    const uint32_t n = s.size(), k = s.pieces;
    out.pieces = k, out.steps = n > 0 ? n - 1 : 0;
    if (n < 2) {
        out.model = "one rank: nothing to do";
        return out;
    }
    const uint32_t flit = net_.params().flit_bytes, P = net_.params().router.hopCycles();
    const uint32_t V = net_.params().router.vcs, mpf = net_.maxPacketFlits();
    const noc::ZeroLoadModel zl(net_);
    // Per link: W (flits x s), u (earliest zero-load grant of its first flit), and per source
    // rank the downstream time of that rank's last message over it (the link serves its
    // sources in turn, flit by flit, so a saturated link's sources all finish at its end).
    struct LinkUse {
        uint64_t flits = 0, u = noc::kNever;
        uint32_t users = 0, s = 1;
        std::map<uint32_t, uint64_t> last_down;
    };
    std::map<uint32_t, LinkUse> use;
    uint64_t worst_port = 0, worst_msg = 0;
    uint32_t max_pk = 0;
    for (uint32_t q = 0; q < n; ++q) {
        const uint32_t src = s.ranks[q];
        const noc::Link& inj = net_.link(net_.ni(src).inj_link);
        // The NI's FIFO in program order (Collectives::emit): piece x to every peer, round by
        // round; pos is the flits ahead, injected one per s_inj cycles.
        uint64_t pos = 0, serial = 0, last_down = 0;
        for (uint32_t x = 0; x < k; ++x)
            for (uint32_t r = 1; r < n; ++r) {
                const uint32_t d = s.staggered ? (q + r) % n : (r - 1 < q ? r - 1 : r);
                // The pair's block (all-to-all-v: counts[q * n + d]), piece x of it.
                const uint64_t elems = Partition::size(s.pair(q, d), k, x);
                if (!elems) continue;
                const uint64_t bytes = elems * dtypeBytes(s.dtype);
                const uint64_t F = std::max<uint64_t>(1, (bytes + flit - 1) / flit);
                const uint32_t dst = s.ranks[d];
                const Hop h = hopOf(net_, zl, src, dst, F);
                const uint64_t ej = net_.link(net_.ni(dst).ej_link).flight();
                // Zero-load: the head is granted onto link i at t + inj + P + sum_{j<i}
                // (flight_j + P); after the last flit's grant on link i it lands at the
                // destination's NI flight_i + sum_{j>i} (P + flight_j) + P + ej later.
                uint64_t down = P + ej;
                for (uint32_t l : h.links) down += net_.link(l).flight() + P;
                down -= P;
                uint64_t up = pos * inj.serialization() + inj.flight() + P;
                for (uint32_t l : h.links) {
                    const noc::Link& link = net_.link(l);
                    LinkUse& lu = use[l];
                    lu.s = link.serialization();
                    lu.flits += F;
                    ++lu.users;
                    lu.u = std::min(lu.u, up);
                    lu.last_down[q] = down;
                    up += link.flight() + P;
                    down -= link.flight() + P;
                }
                serial += F * (h.links.empty() ? inj.serialization()
                                               : net_.link(h.links.front()).serialization());
                last_down = h.t0 - (F - 1) * h.s - inj.flight() - P;
                max_pk = std::max<uint32_t>(max_pk, uint32_t((F + mpf - 1) / mpf));
                out.max_hops = std::max<uint32_t>(out.max_hops, uint32_t(h.links.size()));
                out.alpha = std::max(out.alpha, h.t0_1 + 1);
                if (F > out.piece_flits) out.piece_flits = F, out.piece_bytes = bytes;
                worst_msg = std::max(worst_msg, pos * inj.serialization() + h.t0 + 2);
                pos += F;
            }
        // A message of at least V packets takes every VC of the router's local input port, so
        // the next one queues behind it: the die's messages leave one at a time, each at its
        // first link's rate (docs/COLLECTIVES.md, "one network interface per die"). With
        // smaller messages c = V / packets of them are in service at once.
        const uint64_t c = std::max<uint64_t>(1, V / std::max<uint32_t>(1, max_pk));
        worst_port = std::max(worst_port, inj.flight() + P + serial / c + last_down + 2);
    }
    uint64_t worst_link = 0;
    uint32_t slow_s = 1;
    for (const auto& [l, lu] : use) {
        uint64_t down = 0;
        for (const auto& [q, d] : lu.last_down) down = std::max(down, d);
        const uint64_t t = lu.u + (lu.flits - 1) * lu.s + down + 2;
        slow_s = std::max(slow_s, lu.s);
        out.sharing = std::max(out.sharing, lu.users);
        if (t > worst_link) {
            worst_link = t;
            out.link_work = lu.flits * lu.s;
            out.link_start = lu.u, out.link_drain = down;
        }
    }
    out.bandwidth = double(flit) / slow_s;
    out.link_bound = worst_link, out.port_bound = worst_port, out.latency_bound = worst_msg;
    out.cycles = std::max({worst_link, worst_port, worst_msg});
    out.model = fmt::format(
        "{}: {} rounds x k = {} piece(s) of up to {} B ({} flit(s)), routes up to {} links; "
        "busiest link W = {} cycles ({} messages over one link, u = {}, d = {}), link bound {} "
        "cycles, port "
        "bound {} (messages of up to {} packets, {} VCs), latest message alone {}: {} cycles",
        describe(s), n - 1, k, out.piece_bytes, out.piece_flits, out.max_hops, out.link_work,
        out.sharing, out.link_start, out.link_drain, worst_link, worst_port, max_pk, V, worst_msg,
        out.cycles);
    return out;
}

double CollectiveTiming::textbook(const CollectiveSpec& s) const {
    if (s.algo != Algorithm::Ring)
        throw std::invalid_argument(
            fmt::format("collective timing: no textbook ring form for {}", describe(s)));
    const CollectiveTime t = estimate(s);
    const uint32_t n = s.size(), L = t.lanes;
    if (n < 2) return 0;
    const uint64_t step_elems = Partition::size(Partition::size(s.elems, n, 0), L, 0);
    const double step_bytes = double(step_elems) * dtypeBytes(s.dtype);
    const uint32_t R = s.kind == Collective::AllGather ? 0 : n - 1;
    return t.steps * (double(t.alpha) + step_bytes / t.bandwidth) +
           R * double(L * addCycles(step_elems, s.dtype));
}

}  // namespace wsc::firmware::coll
