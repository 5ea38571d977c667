#include "noc/Router.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

#include "noc/Network.h"

namespace wsc::noc {

size_t Router::storageWords(uint32_t ports, const RouterParams& p) {
    const size_t nvc = size_t(ports) * p.vcs;
    static_assert(sizeof(InVc) % 8 == 0 && sizeof(Slot) % 8 == 0, "8-byte aligned parts");
    return (slotOffset(ports, p.vcs) + nvc * p.vc_buffer_flits * sizeof(Slot)) / 8;
}

Router::Router(uint32_t id, uint32_t ports, const RouterParams& p, uint64_t* storage)
    : id_(id),
      ports_(static_cast<uint8_t>(ports)),
      vcs_(static_cast<uint8_t>(p.vcs)),
      depth_(static_cast<uint8_t>(p.vc_buffer_flits)),
      pipeline_(static_cast<uint8_t>(p.pipeline)),
      staged_(p.staged),
      rc_(static_cast<uint8_t>(p.stages.rc)),
      va_(static_cast<uint8_t>(p.stages.va)),
      sa_(static_cast<uint8_t>(p.stages.sa)),
      st_(static_cast<uint8_t>(p.stages.st)) {
    if (ports > kMaxPorts) throw std::invalid_argument("router: too many ports");
    if (p.vcs == 0 || p.vcs > kMaxVcs || p.vc_buffer_flits == 0 || p.vc_buffer_flits > 255 ||
        p.pipeline > 4 ||
        (p.staged && (p.stages.rc > 4 || p.stages.va > 4 || p.stages.sa > 4 || p.stages.st > 4)))
        throw std::invalid_argument(
            "router: vcs 1..16, buffer 1..255 flits, pipeline 0..4, stages 0..4 cycles each");
    const size_t nvc = size_t(ports_) * vcs_;
    unicast_va_ = p.unicast_va && !staged_ && nvc <= 32;
    if (!storage) {
        storage_.reset(new uint64_t[storageWords(ports, p)]);
        storage = storage_.get();
    }
    auto* base = reinterpret_cast<unsigned char*>(storage);
    in_ = new (base) InVc[nvc];
    for (size_t i = 0; i < nvc; ++i) {
        in_[i].port = static_cast<uint8_t>(i / vcs_);
        in_[i].vc = static_cast<uint8_t>(i % vcs_);
    }
    out_ = new (base + outVcOffset(ports_, vcs_)) OutVc[nvc];
    buf_ = new (base + slotOffset(ports_, vcs_)) Slot[nvc * depth_];
    static_assert(sizeof(Port) == 16 && sizeof(InVc) == 32 && offsetof(Router, in_) == 56 &&
                      offsetof(Router, busy_until_) == 128 && offsetof(Router, sent_) == 192 &&
                      offsetof(Router, out_port_) == 256,
                  "a visit's lines: header, allocation, busy outputs, flit counts, then the ports");
}

void Router::connectOut(uint8_t port, uint32_t link, uint32_t serialization, const Peer& to) {
    if (serialization > UINT16_MAX)
        throw std::invalid_argument(
            fmt::format("router {} port {}: a link busy {} cycles per flit (at most 65535)", id_,
                        port, serialization));
    out_port_[port].link = link;
    out_port_[port].peer = to;
    out_port_[port].peer.ser = static_cast<uint16_t>(serialization);
    if (serialization > 1)
        serial_ports_ |= static_cast<uint8_t>(1u << port);
    else
        serial_ports_ &= static_cast<uint8_t>(~(1u << port));
}

const Router::LastSend& Router::checkedLastSend(uint8_t port) const {
    if (!observed_)
        throw std::logic_error(fmt::format(
            "router {}: last sends are recorded only for observed routers (observeRouter)", id_));
    return last_send_[port];
}

void Router::setOutCredits(uint8_t port, uint8_t credits) {
    for (uint32_t v = 0; v < vcs_; ++v) out_[port * vcs_ + v].credits = credits;
}

uint32_t Router::occupancy(uint8_t port) const {
    uint32_t n = 0;
    for (uint32_t v = 0; v < vcs_; ++v) n += in_[port * vcs_ + v].count;
    return n;
}

void Router::acceptFlit(uint8_t port, const Flit& f, uint64_t now, const Network* net) {
    uint32_t ivc = port * vcs_ + f.vc;
    InVc& iv = in_[ivc];
    // Credit flow control guarantees room; a full buffer here is a model bug, never data loss.
    if (iv.count >= depth_)
        throw std::logic_error(
            fmt::format("credit protocol violated: buffer overflow at router {} "
                        "port {} vc {} (depth {})",
                        id_, port, f.vc, depth_));
    uint32_t k = iv.head + iv.count;
    size_t s = slot(ivc, k >= depth_ ? k - depth_ : k);
    // Staged: a head may request VA after route computation, a body the switch after the
    // head's RC and VA stages; the delay line: everything after `pipeline` cycles.
    const uint64_t entered = now - defer_;
    uint64_t ready = entered + (staged_ ? (f.head() ? rc_ : rc_ + va_) : pipeline_);
    if (staged_ && defer_ && iv.count == 0 && f.head()) {
        // A deferred head into a VC whose last tail left at or after `entered` was behind that
        // tail then: its RC starts the cycle after the tail left (as send() rules for a head
        // already buffered). The stamp is that cycle + 1 (read before the slot is reused).
        const size_t b = slot(ivc, iv.head ? iv.head - 1u : depth_ - 1u);
        if (buf_[b].ready > entered) ready = std::max<uint64_t>(ready, buf_[b].ready + rc_);
    }
    buf_[s].f = f;
    buf_[s].ready = ready;
    if (iv.count == 0) iv.front_ready = ready;
    if (iv.count == 0 && iv.state == kIdle) {
        if (!f.head())
            throw std::logic_error(
                fmt::format("router {} port {} vc {}: body flit of packet slot "
                            "{} arrived with no packet open",
                            id_, port, f.vc, f.packet));
        iv.state = kRouting;
        iv.out_mask = 0;
        if (net) routeFront(ivc, f, *net);
        routing_vcs_[port] |= 1u << f.vc;
        routing_ports_ |= 1u << port;
    } else if (iv.state == kActive) {
        active_vcs_[port] |= 1u << f.vc;
        active_ports_ |= 1u << port;
    }
    ++iv.count;
    ++buffered_;
    uint32_t occ = iv.count;
    // A deferred flit entered at `entered`: the flits that left this VC since (at most one a
    // cycle, the last ones to leave, so in the slots just before the front, stamped with the
    // cycle they left + 1) were still in the buffer with it then. Skipped when they could not
    // raise the maximum.
    if (defer_ && occ + defer_ > max_occupancy_) {
        for (uint32_t j = 1; j <= defer_ && occ < depth_; ++j) {
            const uint32_t b = iv.head >= j ? iv.head - j : iv.head + depth_ - j;
            if (buf_[slot(ivc, b)].ready <= entered) break;
            ++occ;
        }
    }
    if (occ > max_occupancy_) max_occupancy_ = static_cast<uint16_t>(occ);
}

void Router::throwCreditOverflow(uint8_t port, uint8_t vc) const {
    throw std::logic_error(fmt::format("router {} port {} vc {}: credit overflow", id_, port, vc));
}

void Router::wonVcs(uint32_t i) {
    InVc& iv = in_[i];
    iv.state = kActive;
    iv.pending = iv.out_mask;
    const uint32_t p = iv.port, v = iv.vc;
    routing_vcs_[p] &= ~(1u << v);
    if (!routing_vcs_[p]) routing_ports_ &= ~(1u << p);
    active_vcs_[p] |= 1u << v;
    active_ports_ |= 1u << p;
}

bool Router::allocateVcs(uint64_t now, Network& net) {
    bool granted = false;
    // Requesters, in ascending input-VC order (the round-robin order).
    uint8_t req[kMaxPorts * 16];
    uint32_t nreq = 0;
    // The unicast heads (not on a tree, one branch), per output port, in the same order.
    uint8_t uni[kMaxPorts][kMaxPorts * 16];
    uint8_t nuni[kMaxPorts] = {};
    uint8_t requested = 0;  // output ports with at least one unicast request
    bool has_multicast = false;
    for (uint8_t pm = routing_ports_; pm; pm &= pm - 1) {
        const uint32_t p = __builtin_ctz(pm);
        for (uint32_t vm = routing_vcs_[p]; vm; vm &= vm - 1) {
            const uint32_t v = __builtin_ctz(vm);
            uint32_t i = p * vcs_ + v;
            InVc& iv = in_[i];
            if (iv.front_ready > now) continue;
            if (iv.out_mask == 0) routeFront(i, buf_[slot(i, iv.head)].f, net);
            req[nreq++] = static_cast<uint8_t>(i);
            if (iv.tree || (iv.need_vc & (iv.need_vc - 1)) != 0) {
                has_multicast = true;
            } else if (iv.need_vc) {
                const uint32_t o = __builtin_ctz(iv.need_vc);
                uni[o][nuni[o]++] = static_cast<uint8_t>(i);
                requested |= iv.need_vc;
            }
        }
    }
    auto activate = [&](uint32_t i) {
        // Staged: the head requests the switch `va` cycles after winning its VCs (0: this
        // cycle, the speculative router).
        if (staged_) in_[i].front_ready = now + va_;
        wonVcs(i);
    };
    auto freeIn = [&](uint32_t o, uint32_t lo, uint32_t hi) {
        if (staged_ && hi > lo + 1) {
            // Staged heads that islipVa does not take (multicast, or every head of a cycle
            // with an escape alternative): the free VC at or after the port's rotating
            // pointer, so consecutive packets spread over the VCs.
            const uint32_t n = hi - lo,
                           start = ovc_rr_[o] >= lo && ovc_rr_[o] < hi ? ovc_rr_[o] : lo;
            for (uint32_t k = 0; k < n; ++k) {
                const uint32_t ov = lo + (start - lo + k) % n;
                if (out_[o * vcs_ + ov].owner == kFree) return ov;
            }
            return hi;
        }
        return lowestFreeVc(o, lo, hi);
    };
    auto freeVc = [&](uint32_t o, const InVc& iv) { return freeIn(o, iv.vc_lo, iv.vc_hi); };
    // Multicast heads first, all or nothing: a head that held the VCs of some branches while
    // waiting for the others could wait in a circle with another multicast at this router.
    if (has_multicast) {
        for (uint32_t n = 0, k = mc_rr_ % nreq; n < nreq; ++n, k = (k + 1 == nreq) ? 0 : k + 1) {
            const uint32_t i = req[k];
            InVc& iv = in_[i];
            if (!iv.tree && !(iv.need_vc & (iv.need_vc - 1))) continue;
            const uint8_t mesh = iv.need_vc & 0x0F;  // branches to neighbours need owned VCs
            bool all = true;
            for (uint8_t m = mesh; m && all; m &= m - 1)
                all = freeVc(__builtin_ctz(m), iv) < iv.vc_hi;
            if (!all) continue;
            iv.shared = 0;
            for (uint8_t m = iv.need_vc; m; m &= m - 1) {
                const uint32_t o = __builtin_ctz(m);
                if (o >= Topology::kFirstLocal) {
                    // Ejection: the VC with the most credits, shared with whoever owns it.
                    uint32_t best = iv.vc_lo;
                    for (uint32_t v = iv.vc_lo; v < iv.vc_hi; ++v)
                        if (out_[o * vcs_ + v].credits > out_[o * vcs_ + best].credits) best = v;
                    iv.out_vc[o] = static_cast<uint8_t>(best);
                    iv.shared |= static_cast<uint8_t>(1u << o);
                    continue;
                }
                const uint32_t ov = freeVc(o, iv);
                out_[o * vcs_ + ov].owner = static_cast<uint8_t>(i);
                ovc_rr_[o] = static_cast<uint8_t>(ov + 1);
                iv.out_vc[o] = static_cast<uint8_t>(ov);
            }
            iv.need_vc = 0;
            activate(i);
            granted = true;
            mc_rr_ = static_cast<uint8_t>(k + 1);
        }
    }
    // Staged: plain unicast heads go through iSLIP; whatever it considered is settled for the
    // cycle (a requester whose grant was taken elsewhere waits, as in a separable allocator).
    uint64_t done[2] = {0, 0};
    // With escape routing (faults) a head may have an alternative port, which iSLIP does not
    // model; such a cycle keeps the per-port rules for every head, so neither kind is served
    // ahead of the other.
    if (staged_) {  // the scan stays off the delay line's path
        bool alternatives = false;
        for (uint32_t k = 0; k < nreq && !alternatives; ++k)
            alternatives = in_[req[k]].alt_port != 0xFF;
        if (!alternatives) {
            uint8_t won[kMaxPorts * 16];
            const uint32_t wins = islipVa(req, nreq, done, won);
            for (uint32_t k = 0; k < wins; ++k) activate(won[k]);
            granted |= wins > 0;
        }
    }
    for (uint8_t om = requested; om; om &= om - 1) {
        const uint32_t o = __builtin_ctz(om), nreq_o = nuni[o];
        const uint8_t* req_o = uni[o];
        uint32_t k = 0;
        while (k < nreq_o && req_o[k] < va_rr_[o]) ++k;  // first requester at or after the pointer
        for (uint32_t n = 0; n < nreq_o; ++n, ++k) {
            if (k == nreq_o) k = 0;
            const uint32_t i = req_o[k];
            InVc& iv = in_[i];
            if (staged_ && (done[i >> 6] >> (i & 63) & 1)) continue;  // settled by iSLIP
            uint32_t out = o, ov = freeVc(o, iv);
            // With an escape alternative the primary VC must also be empty downstream (all its
            // credits back): a head queued behind another packet in an adaptive VC could wait
            // in a cycle of adaptive VCs with no way left to the escape channel (Duato).
            if (iv.alt_port != 0xFF)
                while (ov < iv.vc_hi &&
                       (out_[o * vcs_ + ov].owner != kFree || out_[o * vcs_ + ov].credits < depth_))
                    ++ov;
            if (ov == iv.vc_hi && iv.alt_port != 0xFF) {  // primary full: the escape channel
                out = iv.alt_port;
                ov = freeIn(out, iv.alt_vc_lo, iv.alt_vc_hi);
                if (ov == iv.alt_vc_hi) continue;
                iv.out_mask = static_cast<uint8_t>(1u << out);
            } else if (ov == iv.vc_hi) {
                continue;  // none free in this packet's class; others may fit
            }
            out_[out * vcs_ + ov].owner = static_cast<uint8_t>(i);
            iv.out_vc[out] = static_cast<uint8_t>(ov);
            ovc_rr_[out] = static_cast<uint8_t>(ov + 1);
            iv.need_vc = 0;
            va_rr_[o] = static_cast<uint8_t>(i + 1 == uint32_t(ports_) * vcs_ ? 0 : i + 1);
            activate(i);
            granted = true;
        }
    }
    return granted;
}

int Router::allocateUnicastVcs(uint64_t now, Network& net) {
    // allocateVcs's delay-line rules with lists replaced by masks: per output port, its ready
    // requesters as input-VC bits, served in round-robin order from va_rr_ (the bits at or
    // above the pointer, then those below), each the lowest free VC of its class. The ready
    // heads are found first, as a mask built without a branch per head: on a loaded mesh about
    // half the heads a visit meets are still in their pipeline cycles, a branch the CPU cannot
    // predict (a fifth of this function's time in perf; 0.92x the time of an 8x8 run against
    // the masks without it).
    uint32_t ready = 0;
    for (uint8_t pm = routing_ports_; pm; pm &= pm - 1) {
        const uint32_t p = __builtin_ctz(pm);
        for (uint32_t vm = routing_vcs_[p]; vm; vm &= vm - 1) {
            const uint32_t i = p * vcs_ + __builtin_ctz(vm);
            ready |= uint32_t(in_[i].front_ready <= now) << i;
        }
    }
    uint32_t want[kMaxPorts] = {};
    uint8_t requested = 0;
    for (; ready; ready &= ready - 1) {
        const uint32_t i = __builtin_ctz(ready);
        InVc& iv = in_[i];
        if (iv.out_mask == 0) routeFront(i, buf_[slot(i, iv.head)].f, net);
        const uint8_t nv = iv.need_vc;
        if (iv.tree | ((nv & (nv - 1)) != 0) | (iv.alt_port != 0xFF)) return kGeneral;
        if (!nv) continue;  // (allocateVcs has nothing to give it either)
        want[__builtin_ctz(nv)] |= 1u << i;
        requested |= nv;
    }
    const uint32_t n = uint32_t(ports_) * vcs_;
    int granted = kNoGrant;
    for (uint8_t om = requested; om; om &= om - 1) {
        const uint32_t o = __builtin_ctz(om);
        const uint32_t at_or_after = ~0u << va_rr_[o];  // va_rr_ < n <= 32
        const uint32_t m = want[o];
        uint32_t first = m & at_or_after, then = m & ~at_or_after;
        for (;;) {
            if (!first) {
                if (!then) break;
                first = then;
                then = 0;
            }
            const uint32_t i = __builtin_ctz(first);
            first &= first - 1;
            InVc& iv = in_[i];
            const uint32_t ov = lowestFreeVc(o, iv.vc_lo, iv.vc_hi);
            if (ov == iv.vc_hi) continue;  // none free in this packet's class; others may fit
            out_[o * vcs_ + ov].owner = static_cast<uint8_t>(i);
            iv.out_vc[o] = static_cast<uint8_t>(ov);
            ovc_rr_[o] = static_cast<uint8_t>(ov + 1);
            iv.need_vc = 0;
            va_rr_[o] = static_cast<uint8_t>(i + 1 == n ? 0 : i + 1);
            wonVcs(i);
            granted = kGranted;
        }
    }
    return granted;
}

void Router::routeFront(uint32_t i, const Flit& f, const Network& net) {
    InVc& iv = in_[i];
    RouteDecision d = net.route(id_, iv.port, f.vc, f);
    iv.tree = !f.dimensionOrder() && net.packet(f.packet).route != kNoRoute &&
              net.packet(f.packet).route >= net.nodes();  // a route id, not a node
    iv.out_mask = iv.need_vc = d.out_mask;
    iv.vc_lo = d.vc_lo;
    iv.vc_hi = d.vc_hi;
    iv.alt_port = d.alt_port;
    iv.alt_vc_lo = d.alt_vc_lo;
    iv.alt_vc_hi = d.alt_vc_hi;
}

uint32_t Router::islipVa(const uint8_t* req, uint32_t nreq, uint64_t* done, uint8_t* won) {
    // One iteration of iSLIP over input VCs x output VCs, BookSim2's default VC allocator (its
    // iq router builds it with one iteration). Each requester asks for every unowned VC of its
    // class at its output port, full or not. Each requested output VC grants the first
    // requester at or after its grant pointer (cyclic over all input VCs); each requester
    // accepts the first grant at or after its accept pointer (cyclic over all output VCs).
    // Pointers move past the partner only on an accept, and a grant not accepted leaves its
    // VC idle this cycle. So a lone head gets the lowest free VC of its port unless its own
    // input VC's last packet took that one, and when two heads ask for a port with two free
    // VCs and equal pointers, both VCs grant the same head and the other waits a cycle. Which
    // VC a head gets is what sets the 4-stage router's knee with few VCs
    // (docs/results/noc_booksim.md).
    const uint32_t n = uint32_t(ports_) * vcs_;
    uint8_t grant[kMaxPorts * 16];  // per output VC: the input VC it grants, or kFree
    std::memset(grant, kFree, n);
    // Unicast heads still asking (the caller runs this only when no head has an alternative).
    auto plain = [](const InVc& iv) {
        return iv.need_vc && !iv.tree && !(iv.need_vc & (iv.need_vc - 1));
    };
    for (uint32_t k = 0; k < nreq; ++k) {  // grant
        const uint32_t i = req[k];
        const InVc& iv = in_[i];
        if (!plain(iv)) continue;
        done[i >> 6] |= uint64_t{1} << (i & 63);
        const uint32_t o = __builtin_ctz(iv.need_vc);
        for (uint32_t v = iv.vc_lo; v < iv.vc_hi; ++v) {
            const uint32_t j = o * vcs_ + v;
            if (out_[j].owner != kFree) continue;
            const uint32_t g = out_[j].va_grant;
            if (grant[j] == kFree || (i + n - g) % n < (grant[j] + n - g) % n)
                grant[j] = static_cast<uint8_t>(i);
        }
    }
    uint32_t wins = 0;
    for (uint32_t k = 0; k < nreq; ++k) {  // accept
        const uint32_t i = req[k];
        InVc& iv = in_[i];
        if (!(done[i >> 6] >> (i & 63) & 1)) continue;  // not a requester of the grant pass
        const uint32_t o = __builtin_ctz(iv.need_vc), a = iv.va_accept;
        uint32_t best = kFree;
        for (uint32_t v = iv.vc_lo; v < iv.vc_hi; ++v) {
            const uint32_t j = o * vcs_ + v;
            if (grant[j] == i && (best == kFree || (j + n - a) % n < (best + n - a) % n)) best = j;
        }
        if (best == kFree) continue;
        out_[best].owner = static_cast<uint8_t>(i);
        out_[best].va_grant = static_cast<uint8_t>(i + 1 == n ? 0 : i + 1);
        iv.va_accept = static_cast<uint8_t>(best + 1 == n ? 0 : best + 1);
        iv.out_vc[o] = static_cast<uint8_t>(best - o * vcs_);
        iv.need_vc = 0;
        won[wins++] = static_cast<uint8_t>(i);
    }
    return wins;
}

uint64_t Router::evaluate(uint64_t now, Network& net, StepLane* lane) {
    if (!buffered_) return kNever;
    bool va_granted = false;
    if (routing_ports_) {
        const int u = unicast_va_ ? allocateUnicastVcs(now, net) : kGeneral;
        va_granted = u == kGeneral ? allocateVcs(now, net) : u == kGranted;
    }

    // Switch allocation, input stage.
    uint8_t req_vc[kMaxPorts];
    // Only a port whose link is busy more than one cycle per flit can still be busy now (a
    // one-cycle link sent on at most in the last cycle).
    uint8_t out_free = static_cast<uint8_t>((1u << ports_) - 1);
    for (uint8_t sm = serial_ports_; sm; sm &= sm - 1)
        if (busy_until_[__builtin_ctz(sm)] > now) out_free &= ~(1u << __builtin_ctz(sm));
    // Round-robin order as bit order: the mask rotated so the pointer's bit comes first, then
    // its set bits lowest first (the order a scan from the pointer would meet them in).
    auto rotate = [](uint32_t m, uint32_t rr, uint32_t n) {
        return ((m >> rr) | (m << (n - rr))) & ((1u << n) - 1);
    };
    uint8_t in_req[kMaxPorts] = {};  // per output port: input ports requesting it
    uint8_t wanted = 0;
    for (uint8_t pm = active_ports_; pm; pm &= pm - 1) {
        const uint32_t p = __builtin_ctz(pm), rr = sa_in_rr_[p];
        for (uint32_t vm = rotate(active_vcs_[p], rr, vcs_); vm; vm &= vm - 1) {
            uint32_t v = __builtin_ctz(vm) + rr;
            if (v >= vcs_) v -= vcs_;
            const uint32_t i = p * vcs_ + v;
            const InVc& iv = in_[i];
            if (iv.state != kActive || iv.front_ready > now) continue;
            uint8_t m = 0;
            for (uint8_t cand = iv.pending & out_free; cand; cand &= cand - 1) {
                const uint32_t o = __builtin_ctz(cand);
                if (out_[o * vcs_ + iv.out_vc[o]].credits > 0) m |= 1u << o;
            }
            if (m) {
                req_vc[p] = static_cast<uint8_t>(v);
                wanted |= m;
                for (; m; m &= m - 1) in_req[__builtin_ctz(m)] |= static_cast<uint8_t>(1u << p);
                break;
            }
        }
    }
    if (!wanted) return va_granted ? now + 1 : nextWake(now);
    // Output stage.
    uint8_t grant[kMaxPorts] = {};  // per input port: output ports won
    uint8_t granted = 0;            // input ports that won any
    for (uint8_t om = wanted; om; om &= om - 1) {
        const uint32_t o = __builtin_ctz(om), rr = sa_out_rr_[o];
        uint32_t p = __builtin_ctz(rotate(in_req[o], rr, ports_)) + rr;
        if (p >= ports_) p -= ports_;
        grant[p] |= static_cast<uint8_t>(1u << o);
        granted |= static_cast<uint8_t>(1u << p);
        sa_out_rr_[o] = static_cast<uint8_t>(p + 1 == ports_ ? 0 : p + 1);
    }
    for (; granted; granted &= granted - 1) {  // input ports in ascending order
        const uint32_t p = __builtin_ctz(granted);
        sa_in_rr_[p] = static_cast<uint8_t>(req_vc[p] + 1 == vcs_ ? 0 : req_vc[p] + 1);
        send(static_cast<uint8_t>(p), req_vc[p], grant[p], now, net, lane);
    }
    return now + 1;
}

uint64_t Router::nextWake(uint64_t now) const {
    // Nothing was granted: what can change without an arrival is a front flit's stage delay
    // ending or a busy output (a serialising link) coming free.
    uint64_t next = kNever;
    for (uint8_t pm = routing_ports_ | active_ports_; pm; pm &= pm - 1) {
        const uint32_t p = __builtin_ctz(pm);
        for (uint32_t vm = uint32_t(routing_vcs_[p]) | active_vcs_[p]; vm; vm &= vm - 1) {
            const uint32_t i = p * vcs_ + __builtin_ctz(vm);
            const uint64_t r = in_[i].front_ready;
            if (r > now && r < next) next = r;
        }
    }
    for (uint8_t sm = serial_ports_; sm; sm &= sm - 1) {
        const uint64_t b = busy_until_[__builtin_ctz(sm)];
        if (b > now && b < next) next = b;
    }
    return next;
}

void Router::send(uint8_t p, uint8_t v, uint8_t g, uint64_t now, Network& net, StepLane* lane) {
    uint32_t i = p * vcs_ + v;
    InVc& iv = in_[i];
    const Flit f = buf_[slot(i, iv.head)].f;
    uint32_t copies = 0;
    for (uint8_t m = g; m; m &= m - 1) {
        uint32_t o = __builtin_ctz(m);
        const uint8_t ovc = iv.out_vc[o];
        --out_[o * vcs_ + ovc].credits;
        const Port& op = out_port_[o];
        busy_until_[o] = now + op.peer.ser;
        if (op.peer.plain) ++sent_[o];  // (Network::forward leaves a plain link's count here)
        if (observed_) {
            last_send_[o] = {now, f};
            last_send_[o].flit.vc = ovc;
        }
        if (f.tail() && !(iv.shared & (1u << o))) out_[o * vcs_ + ovc].owner = kFree;
        // The flit and its new VC apart: a copy with the VC written into it, read back whole by
        // forward(), stalled on the store buffer.
        net.forward(op.link, op.peer, f, ovc, now, staged_ ? sa_ + st_ : 0, lane);
        ++copies;
    }
    traversals_ += copies;
    iv.pending &= ~g;
    bool popped = iv.pending == 0;
    if (popped) {
        buf_[slot(i, iv.head)].ready = now + 1;  // the cycle it left, for acceptFlit
        iv.head = static_cast<uint8_t>(iv.head + 1 == depth_ ? 0 : iv.head + 1);
        --iv.count;
        if (iv.count) iv.front_ready = buf_[slot(i, iv.head)].ready;
        --buffered_;
        net.returnCredit(in_port_[p].peer, v, now, staged_ ? sa_ : 0, lane);
        if (f.tail()) {
            iv.out_mask = 0;
            iv.shared = 0;
            iv.state = iv.count ? kRouting : kIdle;
            active_vcs_[p] &= ~(1u << v);
            if (!active_vcs_[p]) active_ports_ &= ~(1u << p);
            if (iv.count) {
                const Flit& next = buf_[slot(i, iv.head)].f;
                if (!next.head())
                    throw std::logic_error(
                        fmt::format("router {} port {} vc {}: body flit follows a "
                                    "tail in one VC",
                                    id_, p, v));
                routeFront(i, next, net);  // its slot is in hand now
                routing_vcs_[p] |= 1u << v;
                routing_ports_ |= 1u << p;
                // Staged: the next packet's head reaches the front of its VC now, and its route
                // computation starts then (the RC unit works on the VC's front flit).
                if (staged_) {
                    uint64_t& r = iv.front_ready;
                    r = std::max<uint64_t>(r, now + 1 + rc_);
                }
            }
        } else {
            iv.pending = iv.out_mask;
            if (!iv.count) {
                active_vcs_[p] &= ~(1u << v);
                if (!active_vcs_[p]) active_ports_ &= ~(1u << p);
            }
        }
    }
    net.flitsMoved(now, copies, popped, lane);
}

void Router::stuckFlits(std::vector<Stuck>& out) const {
    for (uint32_t i = 0; i < uint32_t(ports_) * vcs_; ++i) {
        const InVc& iv = in_[i];
        if (!iv.count) continue;
        size_t s = slot(i, iv.head);
        Stuck st{static_cast<uint8_t>(i / vcs_),
                 static_cast<uint8_t>(i % vcs_),
                 buf_[s].f,
                 iv.state,
                 iv.out_mask,
                 iv.pending,
                 iv.front_ready};
        st.need_vc = iv.need_vc, st.vc_lo = iv.vc_lo, st.vc_hi = iv.vc_hi;
        for (uint32_t o = 0; o < kMaxPorts; ++o) st.out_vc[o] = iv.out_vc[o];
        out.push_back(st);
    }
}

}  // namespace wsc::noc
