#pragma once
// Input-queued virtual-channel router with credit-based wormhole flow control.
//
// Timing, delay-line model (YAML router.model: delay_line, pipeline: N; docs/NOC.md): a flit that
// arrives in an input buffer at cycle a becomes eligible for allocation at a + pipeline. Route
// computation and VC allocation (heads only) and switch allocation then happen in that cycle; a
// granted flit leaves the buffer, its credit goes upstream, and it arrives downstream after the
// link's flight time. Body flits skip RC/VA but pay the same pipeline, so every flit takes
// `pipeline` cycles per router. Pipeline 0 is the single-cycle hop (a WSE-2 router): a flit is
// allocated and sent in the cycle it arrives, as a router with lookahead route computation and a
// bypass path does at zero load; a hop then costs only the link. Arrivals are delivered before any
// router evaluates in a cycle and every link takes at least one cycle, so this stays independent of
// visiting order.
//
// Timing, stage-accurate model (YAML router.pipeline as a preset's shorthand, router.preset or
// router.stages: RouterParams::Stages): a head
// arriving at a requests VA from a + rc, and SA from v + va after winning VA at v (va 0: the
// same cycle, speculatively); a body requests SA from a + rc + va; a flit winning SA at s leaves
// its buffer, returning its credit, at s + sa and enters the link at s + sa + st. So VA and SA
// contend in their own stages and the credit turnaround includes sa; at zero load a hop costs
// rc + va + sa + st router cycles plus the link.
//
// Allocators are separable and round-robin:
//  - VA: each output port hands its free VCs (lowest index first, within the packet's VC class)
//    to the input VCs requesting it, in round-robin order of input VC. Staged routers run a
//    separable iSLIP allocator instead, as BookSim2's input-queued router does: every output VC
//    grants one requester, every requester accepts one grant, a grant not accepted is lost
//    for the cycle (islipVa). A multicast head is served
//    first and all or nothing: it gets a VC on every branch in one cycle or none, so no head
//    holds some branches while waiting for others (a circular wait between multicasts). Its
//    ejection (local) branches do not own a VC at all: the NI drains every cycle and reassembles
//    by packet, and an owned ejection VC held by a tree blocked on another branch would couple
//    east- and west-bound trees into a cycle through the shared NI (seen with allgather GEMM).
//    A unicast head whose routing names an alternative (an escape VC, noc/EscapeRouting) takes
//    a VC there when none of its primary port's is free.
//  - SA: input stage picks one ready VC per input port (round-robin); output stage picks one
//    requesting input port per output port (round-robin). A multicast flit may win several
//    output ports in the same cycle; it leaves the buffer when every branch has been sent.
//
// A router touches only its own state while evaluating; everything it does to a neighbour is
// an event at least one cycle in the future. That makes evaluate-then-update per router
// equivalent to a global two-phase cycle, independent of visiting order.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "noc/Flit.h"
#include "noc/NocParams.h"
#include "noc/Packet.h"
#include "noc/Prefetch.h"

namespace wsc::noc {

class Network;
struct StepLane;

class alignas(64) Router {
  public:
    static constexpr uint32_t kMaxPorts = 8;
    static constexpr uint32_t kMaxVcs = 16;
    static constexpr uint32_t kNoLink = 0xFFFFFFFFu;
    static constexpr uint8_t kFree = 0xFF;

    // `storage`: storageWords(ports, p) words the router keeps its VCs and buffers in (a network
    // lays all its routers' out in one table); null: the router allocates its own.
    Router(uint32_t id, uint32_t ports, const RouterParams& p, uint64_t* storage = nullptr);
    static size_t storageWords(uint32_t ports, const RouterParams& p);

    uint32_t id() const { return id_; }
    uint32_t ports() const { return ports_; }
    uint32_t vcs() const { return vcs_; }
    uint32_t depth() const { return depth_; }

    // The far end of a port's link and the cycles to reach it, cached here because reading the
    // link record would be a cache miss per flit and per credit on large meshes.
    struct Peer {
        uint32_t node = 0;    // router, or NI for an ejection flit / injection credit
        uint32_t cycles = 0;  // out port: the link's flight; in port: its credit latency
        uint16_t ser = 0;     // out port: cycles the link is busy per flit (connectOut sets it)
        uint8_t port = 0;     // the far end's port
        uint8_t to_ni : 1;
        uint8_t hop : 1;  // out port: a router-to-router link (on die or D2D), counted as a hop
        // Out port: no bit errors, so arrival = grant + flight (Link::transmit's retries and
        // in-order clamp cannot apply: the port sends at most once per serialization).
        uint8_t plain : 1;
        // Out port: cycles the far end's router holds arrivals back (its deferral(), at most
        // 4), added to the flit's arrival event.
        uint8_t defer : 3;
        Peer() : to_ni(0), hop(0), plain(0), defer(0) {}
    };
    // `serialization`: cycles the link is busy per flit.
    void connectOut(uint8_t port, uint32_t link, uint32_t serialization, const Peer& to);
    uint32_t outSerialization(uint8_t port) const { return out_port_[port].peer.ser; }
    void connectIn(uint8_t port, uint32_t link, const Peer& from) {
        in_port_[port].link = link;
        in_port_[port].peer = from;
    }
    uint32_t outLink(uint8_t port) const { return out_port_[port].link; }
    // Where the port's link keeps its flit count (send counts a plain link's flits there;
    // Link::transmit counts the others').
    uint64_t* sentCounter(uint8_t port) { return &sent_[port]; }
    const Peer& outPeer(uint8_t port) const { return out_port_[port].peer; }
    const Peer& inPeer(uint8_t port) const { return in_port_[port].peer; }
    uint32_t inLink(uint8_t port) const { return in_port_[port].link; }
    // Initial credits on an output port = the downstream buffer depth per VC.
    void setOutCredits(uint8_t port, uint8_t credits);

    // `now`: the cycle the flit is applied, deferral() cycles after it entered the buffer.
    // `net`: a head reaching the front of an idle VC is routed at once, from the flit in hand
    // (routing is a function of the router, port, VC and packet, not of time; allocation would
    // otherwise read the flit back from its slot). Null: allocation routes it.
    void acceptFlit(uint8_t port, const Flit& f, uint64_t now, const Network* net = nullptr);
    void acceptCredit(uint8_t port, uint8_t vc) {  // inline: one per flit hop
        uint8_t& c = out_[port * vcs_ + vc].credits;
        if (c >= depth_) throwCreditOverflow(port, vc);
        ++c;
    }

    uint32_t buffered() const { return buffered_; }
    // Whether its delay-line VA may run from masks (allocateUnicastVcs; tests).
    bool unicastVa() const { return unicast_va_; }

    // Deferred arrivals. A flit that enters a buffer at a cannot be allocated before a + the
    // pipeline (delay line) or a + rc (staged), and its arrival frees nothing, so a router
    // handed the flit only at that cycle grants exactly what it would have. The network then
    // schedules the flit's arrival that many cycles later (Router::Peer::defer), which spares
    // the router a visit per flit at arrival (on a large mesh, its cache misses). What the
    // buffer held meanwhile stays exact: maxOccupancy counts the flits that left the VC after
    // the flit entered (acceptFlit). Off for a router built alone; Network turns it on for its
    // routers and off again for observed ones.
    void deferArrivals(bool on) {
        defer_ = on && !observed_ ? static_cast<uint8_t>(staged_ ? rc_ : pipeline_) : 0;
    }
    uint8_t deferral() const { return defer_; }
    // A router whose state is read cycle by cycle (VCD probes, tests): arrivals go into its
    // buffers on the cycle they enter them, and it keeps its last send per port
    // (lastSendCycle/lastSendVc/lastSendFlit, which an unobserved router does not record).
    void observe() {
        observed_ = true;
        defer_ = 0;
    }
    // Cache hints for the network's loops (large meshes miss in cache on every router touched):
    // the input VC a flit or credit is about to reach, and the VCs an evaluation reads.
    WSC_PREFETCH void prefetchVc(uint8_t port, uint8_t vc) const {
        prefetchLine(&in_[port * vcs_ + vc]);
    }
    // The buffer slot a flit arriving on (port, vc) is written to (reads the VC's record, so
    // the record should be on its way already: Network::prefetchVcs, or prefetchState on a
    // mesh that does not chain arrivals, a few routers earlier).
    WSC_PREFETCH void prefetchArrival(uint8_t port, uint8_t vc) const {
        const uint32_t ivc = port * vcs_ + vc;
        const InVc& iv = in_[ivc];
        const uint32_t k = iv.head + iv.count;
        const Slot* s = &buf_[slot(ivc, k >= depth_ ? k - depth_ : k)];
        prefetchLine(s);
        prefetchLine(reinterpret_cast<const char*>(s + 1) - 1);
    }
    // The object's lines up to its ports' far ends (not what only observers read).
    WSC_PREFETCH void prefetchObject() const { prefetchLines(this, offsetof(Router, last_send_)); }
    // The lines a visit that only counts credits reads: the header and the output VCs' pointer.
    WSC_PREFETCH void prefetchHeader() const { prefetchLines(this, offsetof(Router, busy_until_)); }
    // The lines of input-VC records a visit reads besides those its arrivals reach (a head
    // waiting for VA or a VC holding flits to send), as a mask: bit j for records 2j and 2j + 1,
    // one line where the storage is line-aligned (Network::build). The network keeps it per
    // router, so a visit's VCs can be asked for before the router object itself has arrived.
    // By VC rather than by port: a busy port mostly has one busy VC, and a line asked for and
    // not read holds one of the few misses a core can have in flight.
    uint64_t busyVcLines() const {
        uint64_t m = 0;
        for (uint8_t pm = routing_ports_ | active_ports_; pm; pm &= pm - 1) {
            const uint32_t p = __builtin_ctz(pm);
            for (uint32_t vm = uint32_t(routing_vcs_[p]) | active_vcs_[p]; vm; vm &= vm - 1)
                m |= vcLine(p * vcs_ + __builtin_ctz(vm));
        }
        return m;
    }
    static uint64_t vcLine(uint32_t ivc) {
        static_assert(sizeof(InVc) * 2 == 64 && kMaxPorts * kMaxVcs / 2 <= 64,
                      "two records a line, at most 64 lines");
        return uint64_t{1} << (ivc >> 1);
    }
    // From a router's line-aligned storage alone (storageWords at `storage`): the VC records'
    // lines in `vc_lines` (busyVcLines) and the output VCs' line(s).
    WSC_PREFETCH static void prefetchStorage(const uint64_t* storage, uint32_t ports, uint32_t vcs,
                                             uint64_t vc_lines) {
        const auto* b = reinterpret_cast<const char*>(storage);
        for (uint64_t m = vc_lines; m; m &= m - 1) prefetchLine(b + 64 * __builtin_ctzll(m));
        prefetchRange(b + outVcOffset(ports, vcs), size_t(ports) * vcs * sizeof(OutVc));
    }
    WSC_PREFETCH void prefetchState() const {
        prefetchLines(in_, size_t(ports_) * vcs_ * sizeof(InVc));
        prefetchLine(out_);
    }
    // One cycle of allocation. Returns the next cycle this router needs evaluating if no flit or
    // credit arrives before: now + 1 after it granted anything, the earliest cycle a buffered
    // flit's stage delay or a busy output ends otherwise, kNever when every flit waits for a
    // credit or an output VC (an arrival wakes it; Network::step). An evaluation that grants
    // nothing changes nothing, so skipping it until then gives bit-identical results.
    // lane: where a threaded step collects what the router sends (nullptr: straight to the net).
    uint64_t evaluate(uint64_t now, Network& net, StepLane* lane = nullptr);

    // Observation (stats, watchdog dump, VCD probes).
    uint64_t traversals() const { return traversals_; }
    uint32_t maxOccupancy() const { return max_occupancy_; }
    uint32_t occupancy(uint8_t port) const;
    uint32_t occupancy(uint8_t port, uint8_t vc) const { return in_[port * vcs_ + vc].count; }
    uint32_t credits(uint8_t port, uint8_t vc) const { return out_[port * vcs_ + vc].credits; }
    // Cycle of the last grant on an output port and the VC it used (VCD "flit valid"). Only an
    // observed router records them (observe()); asking another is a model bug, not a reading.
    uint64_t lastSendCycle(uint8_t port) const { return checkedLastSend(port).cycle; }
    uint8_t lastSendVc(uint8_t port) const { return checkedLastSend(port).flit.vc; }
    // The flit that left `port` at lastSendCycle (its packet slot, index and head/tail): what a
    // VCD shows as the flit's identity.
    const Flit& lastSendFlit(uint8_t port) const { return checkedLastSend(port).flit; }
    struct Stuck {
        uint8_t port, vc;
        Flit flit;
        uint8_t state, out_mask, pending;
        uint64_t ready;
        // What it waits for: VCs still needed ([vc_lo, vc_hi) on need_vc's ports) or, once it
        // holds its VCs, the output VC per port (its credits).
        uint8_t need_vc = 0, vc_lo = 0, vc_hi = 0;
        uint8_t out_vc[kMaxPorts] = {};
    };
    void stuckFlits(std::vector<Stuck>& out) const;
    // The input VC (port * vcs + vc) holding output VC `vc` of `port`, or kFree.
    uint8_t owner(uint8_t port, uint8_t vc) const { return out_[port * vcs_ + vc].owner; }

  private:
    enum State : uint8_t { kIdle, kRouting, kActive };
    struct InVc {
        uint8_t head = 0, count = 0;
        uint8_t state = kIdle;
        uint8_t out_mask = 0;  // branches of the packet at the front
        uint8_t need_vc = 0;   // branches still waiting for an output VC
        uint8_t pending = 0;   // branches the front flit has not been sent on yet
        uint8_t vc_lo = 0, vc_hi = 0;
        uint8_t alt_port = 0xFF, alt_vc_lo = 0, alt_vc_hi = 0;  // RouteDecision's alternative
        uint8_t shared = 0;  // multicast ejection branches that use a VC without owning it
        uint8_t tree = 0;    // the packet follows a table route (a possibly multicast tree)
        uint8_t out_vc[kMaxPorts] = {};
        // Staged VA (iSLIP, one iteration): the output VC index (port * vcs + vc) this input
        // VC's accept arbiter starts from.
        uint8_t va_accept = 0;
        // This VC's input port and index there (i / vcs and i % vcs without a division, whose
        // latency the allocation loop would wait on).
        uint8_t port = 0, vc = 0;
        // Cycle the front flit may be allocated (its slot's `ready`, kept here so allocation
        // reads one cache line per VC).
        uint64_t front_ready = 0;
    };
    struct Slot {
        Flit f;
        // Cycle this flit may be allocated; once it has left, the cycle it left + 1 (what
        // acceptFlit reads back for a deferred arrival's occupancy).
        uint64_t ready = 0;
    };
    struct OutVc {
        uint8_t credits = 0;
        uint8_t owner = kFree;  // input VC index holding it, or kFree
        uint8_t va_grant = 0;   // staged VA: the input VC its grant arbiter starts from
    };

    [[noreturn]] void throwCreditOverflow(uint8_t port, uint8_t vc) const;
    bool allocateVcs(uint64_t now, Network& net);  // true if it granted any VC
    // Input VC i's head holds all its output VCs: it leaves VA and takes part in SA.
    void wonVcs(uint32_t i);
    // The lowest unowned VC of output port o in [lo, hi), or hi (the delay line's choice).
    uint32_t lowestFreeVc(uint32_t o, uint32_t lo, uint32_t hi) const {
        uint32_t ov = lo;
        while (ov < hi && out_[o * vcs_ + ov].owner != kFree) ++ov;
        return ov;
    }
    // allocateVcs for a delay-line router whose ready heads are all plain unicasts (no tree,
    // one branch, no escape alternative) and whose input VCs fit a 32-bit mask: the same grants
    // in the same order, from a requester mask per output port instead of lists. kGeneral when
    // some head is not plain (nothing granted yet; allocateVcs then does the cycle).
    enum : int { kNoGrant = 0, kGranted = 1, kGeneral = 2 };
    int allocateUnicastVcs(uint64_t now, Network& net);
    // Route computation for the head `f` at the front of input VC i.
    void routeFront(uint32_t i, const Flit& f, const Network& net);
    // Staged routers' unicast VA: one iSLIP iteration over input VCs x output VCs (see .cpp).
    // Marks every requester it considered in `done` (bit per input VC), winners or not, gives
    // the winners their VCs and lists them in `won`; returns how many won.
    uint32_t islipVa(const uint8_t* req, uint32_t nreq, uint64_t* done, uint8_t* won);
    void send(uint8_t p, uint8_t v, uint8_t grant, uint64_t now, Network& net, StepLane* lane);
    uint64_t nextWake(uint64_t now) const;
    size_t slot(uint32_t ivc, uint32_t k) const { return size_t(ivc) * depth_ + k; }
    // The storage's layout (storageWords): VC records, output VCs (rounded to 8 bytes), slots.
    static size_t outVcOffset(uint32_t ports, uint32_t vcs) {
        return size_t(ports) * vcs * sizeof(InVc);
    }
    static size_t slotOffset(uint32_t ports, uint32_t vcs) {
        return outVcOffset(ports, vcs) + (size_t(ports) * vcs * sizeof(OutVc) + 7) / 8 * 8;
    }

    // Members in the order a visit touches them, so a visit reads few cache lines of the
    // router (on a large mesh each is a miss): line 0 every visit, line 1 allocation, then the
    // outputs' busy cycles, the output links' flit counts and the ports' far ends; what only
    // observers read comes last.
    uint32_t id_;
    uint8_t ports_, vcs_, depth_, pipeline_;
    // Stage-accurate timing (RouterParams::staged): the stages' cycles.
    bool staged_ = false;
    uint8_t rc_ = 0, va_ = 0, sa_ = 0, st_ = 0;
    uint8_t defer_ = 0;  // deferArrivals
    bool observed_ = false;
    uint8_t routing_ports_ = 0;  // ports with a routing_vcs_ bit
    uint8_t active_ports_ = 0;   // ports with an active_vcs_ bit
    // Output ports whose link is busy more than a cycle per flit: the only ones whose
    // busy_until_ can lie past the cycle after a send.
    uint8_t serial_ports_ = 0;
    uint16_t max_occupancy_ = 0;  // at most a VC's depth (255)
    uint32_t buffered_ = 0;
    // Per input port, bit v set when VC v needs VA (head at the front without all its output
    // VCs) or can take part in SA (holds its VCs and has a flit). Evaluation walks set bits only.
    uint16_t routing_vcs_[kMaxPorts] = {};
    uint16_t active_vcs_[kMaxPorts] = {};
    // One allocation per router holds its VCs, output VCs and buffers, so a router's state is
    // contiguous (on large meshes it is a cache miss per line touched, not per array).
    InVc* in_ = nullptr;  // [port][vc]
    // Line 1.
    OutVc* out_ = nullptr;  // [out port][vc]
    Slot* buf_ = nullptr;   // [port][vc][depth]
    uint64_t traversals_ = 0;
    uint8_t va_rr_[kMaxPorts] = {};
    // Next output VC to hand out, per output port: written by every VC allocator, read only
    // for staged heads that islipVa does not take.
    uint8_t ovc_rr_[kMaxPorts] = {};
    uint8_t sa_in_rr_[kMaxPorts] = {};
    uint8_t sa_out_rr_[kMaxPorts] = {};
    uint8_t mc_rr_ = 0;  // rotates which multicast head is tried first
    // allocateUnicastVcs may run: a delay line whose input VCs fit its 32-bit masks (and
    // RouterParams::unicast_va).
    bool unicast_va_ = false;
    alignas(64) uint64_t busy_until_[kMaxPorts] = {};
    // Flits sent on each output port: its link's count (Link::useCounter), on a line of the
    // router's own, as a table of counts indexed by link was a cache miss per send on a wafer.
    uint64_t sent_[kMaxPorts] = {};
    struct Port {
        Peer peer;
        uint32_t link = kNoLink;
    };
    Port out_port_[kMaxPorts];
    Port in_port_[kMaxPorts];
    // Observed routers only (observe()).
    struct LastSend {
        uint64_t cycle = kNever;
        Flit flit;  // with the VC it took (lastSendVc)
    };
    LastSend last_send_[kMaxPorts];
    const LastSend& checkedLastSend(uint8_t port) const;
    std::unique_ptr<uint64_t[]> storage_;  // when not given one
};

}  // namespace wsc::noc
