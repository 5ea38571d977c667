#pragma once
// The whole NoC as plain C++: routers, links, NIs, routing policies, the event wheel, the packet
// table, integrity checks and stats. It advances one cycle per step() and only touches routers
// and NIs that may act (the active sets: a router that can grant nothing sleeps until an arrival
// or its WakeRouter cycle), so an idle or jammed region of a large mesh costs nothing.
// NocShell is the SystemC module that calls step() on clock edges while there is work.
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "noc/DimensionOrderRouting.h"
#include "noc/EjectionGate.h"
#include "noc/EscapeRouting.h"
#include "noc/EventWheel.h"
#include "noc/ExternalRouter.h"
#include "noc/FaultMap.h"
#include "noc/HugePageAllocator.h"
#include "noc/Link.h"
#include "noc/NetworkInterface.h"
#include "noc/NetworkObserver.h"
#include "noc/NiArrivalOrder.h"
#include "noc/NocParams.h"
#include "noc/Packet.h"
#include "noc/Router.h"
#include "noc/StepLane.h"
#include "noc/StepThreads.h"
#include "noc/TableRouting.h"
#include "noc/Topology.h"
#include "noc/UpDownRouting.h"

namespace wsc::noc {

class Network {
  public:
    explicit Network(const NocParams& p, uint64_t seed = 1);

    const NocParams& params() const { return p_; }
    const Topology& topology() const { return topo_; }
    uint32_t nodes() const { return topo_.nodes(); }

    // ---- routes ("colors") -------------------------------------------------------------------
    // Installs a (multicast) route from src_node to every node in dsts along XY paths and returns
    // its route id. Throws std::runtime_error naming the router if any router would need more
    // than route_limit entries; nothing is installed in that case.
    uint32_t addMulticastRoute(uint32_t src_node, const std::vector<uint32_t>& dsts);
    // With reuse on, a route from the same source to the same destinations as one installed
    // before is that route (its id, no new entries): a composed program's operations share the
    // trees they have in common (WaferLLM reuses colors the same way). Messages on a route are
    // matched per (route, sender's stream) in send order, so sharing is safe when every use has
    // the same sender. Off by default.
    void setRouteReuse(bool on) { reuse_routes_ = on; }
    bool routeReuse() const { return reuse_routes_; }
    uint64_t reusedRoutes() const { return reused_routes_; }
    // A unicast route from src_node to dst_node along `routers` (the routers it visits, from the
    // source's to the destination's, each next to the one before): a path chosen by a mapper
    // (TCME) rather than dimension order. Same checks and errors as addMulticastRoute, plus
    // std::invalid_argument for a path that does not start, step or end where it should.
    uint32_t addPathRoute(uint32_t src_node, uint32_t dst_node,
                          const std::vector<uint32_t>& routers);
    // A path route that every unicast message from src_node to dst_node without a route of its
    // own takes (a mapper's reroute of a whole pair, e.g. TCME on a plan whose firmware addresses
    // cores): the packets follow `routers`, the message is delivered as the unicast it was (its
    // receiver matches it by source, the firmware is unchanged). One route per pair: a second
    // for the same pair is refused. Returns the route id.
    uint32_t addPairRoute(uint32_t src_node, uint32_t dst_node,
                          const std::vector<uint32_t>& routers);
    // The pair route from src_node to dst_node, kNoRoute when it takes its routing's path.
    uint32_t pairRoute(uint32_t src_node, uint32_t dst_node) const;
    // Flits sent on pair routes so far (what the reroutes carried).
    uint64_t pairRouteFlits() const { return pair_route_flits_; }
    // A hand-built entry (firmware that lays its own routes); checked by checkRouteLimits().
    void addRouteEntry(uint32_t router, uint8_t in_port, uint32_t route, uint8_t out_mask);
    void checkRouteLimits() const;
    uint32_t routeEntries(uint32_t router) const { return table_.table(router).size(); }

    // ---- sending -----------------------------------------------------------------------------
    void setObserver(NetworkObserver* o) { observer_ = o; }
    // Endpoints that may refuse flits (back-pressure from the receivers; noc/EjectionGate.h).
    // None: every NI drains every cycle.
    void setEjectionGate(EjectionGate* g) { gate_ = g; }
    // The gate made room at `node` (or can now take what it refused): retry its waiting flits
    // at the next step.
    void wakeEjection(uint32_t node);
    // Splits a message into packets of at most max_packet_flits flits; returns the message id.
    // A multicast tree that leaves its source router in several directions is sent as one packet
    // stream per direction (interleaved), so no packet ever owns VCs in two directions at once
    // (see docs/NOC.md, "Multicast and deadlock").
    uint64_t send(Message m, uint64_t now);
    // Low-level: queue one packet at src's NI (the traffic testbench's path). A tree route is
    // sent whole unless src_mask restricts it to some of its source router's output ports.
    uint32_t enqueuePacket(uint32_t src, uint32_t dst, uint32_t route, uint32_t flits, uint64_t now,
                           bool measured, uint64_t message = 0, uint8_t src_mask = 0);
    // enqueuePacket for a unicast packet of no message whose slot the caller does not need,
    // checked and counted (livePackets) now, queued at its NI when the next step starts, in the
    // order posted. Why: with threads the calling thread queues them while the others chain
    // their lanes, instead of alone between cycles. The same slots and ids as enqueuePacket
    // right before the step where nothing else queues a packet in between and no ejection gate
    // retries refused flits first (their deliveries free slots): refused with a gate.
    void postPacket(uint32_t src, uint32_t dst, uint32_t flits, uint64_t now, bool measured);
    // The source-split branches of route `route` from src_node: per branch the source router's
    // output ports it takes (0 = the tree is not split) and the nodes it delivers to.
    struct Branch {
        uint8_t mask = 0;
        uint16_t deliveries = 0;
    };
    const std::vector<Branch>& multicastBranches(uint32_t route, uint32_t src_node);
    uint32_t maxPacketFlits() const { return max_packet_flits_; }
    void setMaxPacketFlits(uint32_t f) { max_packet_flits_ = f; }

    // Replaces the C++ router at position r (e.g. by a Verilated RTL router). Before any step.
    void replaceRouter(uint32_t r, std::unique_ptr<ExternalRouter> ext);
    // Router r's state is read cycle by cycle (VCD probes, tests): its arrivals are not
    // deferred and it records its last sends (Router::observe). Before any step.
    void observeRouter(uint32_t r);
    bool isExternal(uint32_t r) const { return !external_.empty() && external_[r] != nullptr; }

    // ---- faults ------------------------------------------------------------------------------
    const FaultMap& faults() const { return faults_; }
    bool nodeAlive(uint32_t node) const { return !faults_.routerDead(topo_.routerOfNode(node)); }
    bool reachable(uint32_t src_node, uint32_t dst_node) const;
    // Routers cut off from the largest connected part by failures (empty if none).
    std::vector<uint32_t> cutOffRouters() const;
    // Unicast routes are the dimension-order ones (unicastNextPort is dor_'s): no failure
    // routing (up*/down* or escape) is installed.
    bool unicastByDimensionOrder() const { return !updown_ && !escape_; }
    // Output port a unicast packet to dst_node takes at router r after arriving on in_port.
    uint8_t unicastNextPort(uint32_t r, uint8_t in_port, uint32_t dst_node) const;

    // ---- simulation --------------------------------------------------------------------------
    void step(uint64_t now);
    // From how many routers step() chains each router's arrivals and visits routers in index
    // order (a cache optimisation that must not change results; tests set it both ways).
    void setChainRouters(size_t n);
    // Threads that visit the routers of a cycle (each chains the arrivals of a contiguous range
    // of them; the active routers are then visited in chunks any thread takes, and the chunks'
    // effects applied in index order, so every result is the same as with one thread). 1: no
    // helper threads. Used only where one thread chains arrivals (from setChainRouters' count,
    // 4096 routers by default) and no router is external; elsewhere the step stays on the
    // calling thread. Capped at the router count.
    void setThreads(unsigned n);
    unsigned threads() const { return threads_ ? threads_->members() : 1; }
    // Steps that ran on the threads (0 where they are configured but not used).
    uint64_t threadedSteps() const { return lane_cycles_; }
    // The first router of each thread's range (equal shares unless set; first = 0,
    // increasing, one per thread), before the first step. Where they lie changes nothing but
    // the balance.
    std::vector<uint32_t> laneBoundaries() const;
    void setLaneBoundaries(const std::vector<uint32_t>& first);
    // Earliest cycle after `now` at which step() has anything to do: kNever when idle; when every
    // router sleeps with flits left and nothing is scheduled, the deadlock watchdog's cycle.
    uint64_t nextActiveCycle(uint64_t now) const;
    bool idle() const {
        return active_.empty() && active_nis_.empty() && posted_.empty() && pendingEvents() == 0 &&
               held_flits_ == 0 && flits_in_network_ == 0;
    }
    // Flits waiting at NIs whose gate refused them: nothing moves them but wakeEjection.
    uint64_t heldFlits() const { return held_flits_; }
    // Flits wait at refusing endpoints and nothing has moved for longer than a flit can sit in a
    // router pipeline with no event pending: the network stays as it is until a gate makes room.
    bool stalled(uint64_t now) const {
        return held_flits_ > 0 && pendingEvents() == 0 && now >= last_progress_ + settle_;
    }
    uint64_t flitsInNetwork() const { return flits_in_network_; }
    uint64_t livePackets() const { return live_packets_ + posted_.size(); }
    // Throws if any injected flit was not delivered exactly once (call when drained).
    void checkConservation() const;

    // ---- observation -------------------------------------------------------------------------
    const Router& router(uint32_t r) const { return routers_[r]; }
    const Link& link(uint32_t l) const { return links_[l]; }
    using LinkTable = std::vector<Link, HugePageAllocator<Link>>;
    const LinkTable& links() const { return links_; }
    const NetworkInterface& ni(uint32_t n) const { return nis_[n]; }
    const PacketInfo& packet(uint32_t slot) const { return packets_[slot]; }
    std::string linkName(uint32_t l) const;
    void markWindow();  // start of a measurement window for link utilisation
    uint64_t flitRouterTraversals() const { return traversals_; }
    uint64_t flitsInjected() const { return flits_injected_; }
    uint64_t flitsEjected() const { return flits_ejected_; }
    uint64_t packetsInjected() const { return packets_created_; }
    uint64_t packetsDelivered() const { return packet_deliveries_; }
    uint64_t linkRetries() const;
    double linkEnergyPj() const;
    uint32_t maxBufferOccupancy() const;
    void dumpStats(nlohmann::json& out) const;
    std::string deadlockReport(uint64_t now) const;
    // One cycle of the wait-for graph among stuck input VCs, as report lines ("" if none).
    std::string waitCycle() const;

    // ---- called by routers and NIs -----------------------------------------------------------
    RouteDecision route(uint32_t router, uint8_t in_port, uint8_t in_vc, uint32_t slot) const;
    // The same for the head flit `f`: a dimension-order head carries its destination, so with
    // no fault routing this reads no packet record.
    RouteDecision route(uint32_t router, uint8_t in_port, uint8_t in_vc, const Flit& f) const {
        if (f.dimensionOrder())
            return dor_.routeTo(router, in_port, in_vc, f.dst_x, f.dst_y, f.dst_port);
        return route(router, in_port, in_vc, f.packet);
    }
    // Whether an NI puts a dimension-order packet's destination in its flits (Flit::dst_x): no
    // fault routing (which reads the record), and every path short enough for Flit::hops.
    bool dorInFlit() const { return dor_in_flit_; }
    // `delay`: cycles after `now` at which the flit enters the link, or the credit leaves (a
    // staged router's switch-traversal stages).
    // `lane`: a threaded step's collector for the calling router's effects (nullptr: apply now).
    void forward(uint32_t link, const Flit& f, uint64_t now, uint32_t delay = 0,
                 StepLane* lane = nullptr);
    void returnCredit(uint32_t in_link, uint8_t vc, uint64_t now, uint32_t delay = 0,
                      StepLane* lane = nullptr);
    // The same from a router, with the link's far end as the router caches it (Router::Peer).
    // A plain peer's flit skips the link's record and count: the network's own Router::send
    // counts it in the router the link counts into (Router::sentCounter); any other caller
    // passes plain = 0, and Link::transmit counts it.
    // `vc`: the VC the flit takes on the link (f.vc is the one it left).
    void forward(uint32_t link, const Router::Peer& to, const Flit& f, uint8_t vc, uint64_t now,
                 uint32_t delay, StepLane* lane);
    // Inline where the credit skips the wheel (credit_ring_): one per flit hop, and a call's
    // register saves were most of its cost.
    void returnCredit(const Router::Peer& to, uint8_t vc, uint64_t now, uint32_t delay,
                      StepLane* lane) {
        // now + 1 .. now + 7: not now + 8, whose slot is this cycle's, still to be drained after
        // NIs have returned credits (niArrivals, retries).
        const uint64_t at = now + delay + to.cycles;
        if (direct_credits_ && !to.to_ni && at - now - 1 < kCreditRing - 1) {
            credit_ring_[at & (kCreditRing - 1)].push_back({to.node, to.port, vc});
            ++credits_pending_;
            return;
        }
        scheduleCredit(to, vc, now, at, lane);
    }
    void flitsMoved(uint64_t now, uint32_t copies, bool popped, StepLane* lane = nullptr) {
        if (lane) {
            lane->traversals += copies;
            lane->in_network += int64_t(copies) - (popped ? 1 : 0);
            lane->moved = true;
            return;
        }
        traversals_ += copies;
        flits_in_network_ += copies;
        flits_in_network_ -= popped ? 1 : 0;
        last_progress_ = now;
    }
    void flitInjected(uint64_t now, uint32_t slot);
    void packetInjected(uint32_t node, size_t queued, uint64_t now) {
        if (observer_) observer_->onPacketInjected(node, queued, now);
    }
    void flitEjected(uint64_t now, const Flit& f, uint32_t node);
    // Asks the gate whether `node` takes flit f now (TakeRest without a gate or for a bare
    // packet).
    Admission admitFlit(uint32_t node, const Flit& f, uint64_t now);
    void flitHeld(uint32_t node, int64_t delta);
    const Link& linkRef(uint32_t l) const { return links_[l]; }
    PacketInfo& packetMut(uint32_t slot) { return packets_[slot]; }

  private:
    // Installs a route's entries ((router, in port) -> out mask) under a new id after checking
    // every router's route limit (nothing is installed if one would overflow).
    uint32_t installRoute(const std::map<std::pair<uint32_t, uint8_t>, uint8_t>& entries,
                          uint32_t src_node, uint16_t fanout);
    uint32_t addLink(const Link::Spec& s, uint32_t src, uint8_t sp, uint32_t dst, uint8_t dp);
    // A link's far end as the router sending on it (outPeer) or receiving from it (inPeer)
    // caches it.
    Router::Peer outPeer(uint32_t link) const;
    Router::Peer inPeer(uint32_t link) const;
    void build();
    void refreshInPeers(uint32_t r);
    void applyDeferral();
    void installDestinationRoutes();
    uint32_t allocPacket();
    void enqueuePosted();  // postPacket's packets, into their NIs
    // enqueuePacket's checks (endpoints, size, reachability; throws), and the packet queued once
    // checked, `deliveries` the nodes it reaches (its branch's, src_mask != 0).
    void checkPacket(uint32_t src, uint32_t dst, uint32_t route, uint32_t flits) const;
    uint32_t enqueueChecked(uint32_t src, uint32_t dst, uint32_t route, uint32_t flits,
                            uint64_t now, bool measured, uint64_t message, uint8_t src_mask,
                            uint16_t deliveries);
    uint16_t multicastDeliveries(uint32_t route, uint32_t src_node);
    // A (route, source) tree's deliveries and branches as send() needs them, from a slot per
    // route id that remembers the last source it was asked for: an index instead of two hash
    // lookups per message (each a cache miss on a wafer's 10^4-10^5 trees). Filled from the
    // hashed memos, so it answers exactly what they do.
    struct TreeMemo {
        uint32_t src = kNoRoute;
        uint16_t fanout = 0;
        const std::vector<Branch>* branches = nullptr;  // into mc_branches_ (stable nodes)
    };
    const TreeMemo& tree(uint32_t route, uint32_t src_node);
    // Nodes a tree delivers to from (router, in_port) on; throws on loops and dangling entries.
    uint32_t countTree(uint32_t route, uint32_t src, uint32_t router, uint8_t in_port) const;
    void packetDone(uint32_t slot, uint32_t node, uint64_t now);
    // Cache hints of the chained visit loop (step, visitChunk) before visiting a[i] of a[0, end):
    // the object twelve routers ahead, the VCs eight, the slots four.
    // `li`: the wheel (lane) whose due list router r's arrivals are in.
    WSC_PREFETCH void prefetchVisits(const uint32_t* a, size_t i, size_t end, uint32_t li) const;
    WSC_PREFETCH void prefetchRouter(uint32_t r, uint32_t li) const;
    WSC_PREFETCH void prefetchVcs(uint32_t r) const;
    WSC_PREFETCH void prefetchChain(uint32_t r, uint32_t li) const;
    WSC_PREFETCH void prefetchArrivals(uint32_t r, uint32_t li) const;
    // Whether heads may route by route tables (route ids handed out, or destination tables);
    // without, the visit loop asks for no table (heads on fault routing read none). Route ids
    // a firmware gives below nodes() on a dimension-order network are not seen: a hint only.
    bool tableHints() const {
        return next_route_id_ > topo_.nodes() || p_.routing == RoutingAlgo::Table;
    }
    // What chainArrival reads and writes of router r, asked for a few events ahead (arrivals
    // come in no router order: on a wafer each was an L1 miss, a tenth of Network::step); its
    // vc_lines_ word is not asked for (a hint's own miss).
    WSC_PREFETCH void prefetchChainEnds(uint32_t r) const {
        if (r < ev_head_.size()) prefetchLine(&ev_head_[r]), prefetchLine(&ev_tail_[r]);
    }
    // Appends due_[li][k] to router r's chain of this cycle's arrivals (applied on its visit).
    void chainArrival(uint32_t r, uint32_t li, uint32_t k) {
        std::vector<uint32_t>& next = ev_next_[li];
        next[k] = kNoEvent;
        if (ev_head_[r] == kNoEvent)
            ev_head_[r] = k;
        else
            next[ev_tail_[r]] = k;
        ev_tail_[r] = k;
        // Its VC records the visit will read (prefetchVcs; the visit rewrites the mask).
        const NetEvent& e = due_[li][k];
        if (e.kind == NetEvent::FlitToRouter)
            vc_lines_[r] |= Router::vcLine(e.port * p_.router.vcs + e.flit.vc);
    }
    void activate(uint32_t r) {
        if (!router_active_[r]) router_active_[r] = kActive, active_.push_back(r);
    }
    // The chained step's: it records why (prefetchRouter reads it).
    void activateFor(uint32_t r, uint8_t why) {
        if (!router_active_[r]) active_.push_back(r);
        router_active_[r] = std::max(router_active_[r], why);
    }
    void activateNi(uint32_t n) {
        if (!ni_active_[n]) ni_active_[n] = 1, active_nis_.push_back(n);
    }

    NocParams p_;
    uint64_t seed_;
    Topology topo_;
    FaultMap faults_;
    DimensionOrderRouting dor_;
    std::unique_ptr<UpDownRouting> updown_;  // unicast routing when anything failed
    std::unique_ptr<EscapeRouting> escape_;  // ... with an escape VC (faults.routing: escape)
    TableRouting table_;
    std::vector<uint64_t, HugePageAllocator<uint64_t>>
        router_storage_;       // Router::storageWords each
    size_t router_words_ = 0;  // Router::storageWords of every router, rounded up to a line
    // Per router, its busyVcLines() after its last visit and the lines of the VCs this cycle's
    // chained flits reach (prefetchVcs).
    std::vector<uint64_t> vc_lines_;
    std::vector<Router, HugePageAllocator<Router>> routers_;
    std::vector<std::unique_ptr<ExternalRouter>> external_;  // empty unless some are replaced
    LinkTable links_;
    std::vector<NetworkInterface> nis_;
    // Events for routers and for NIs in wheels of their own: with threads, the calling thread
    // walks only the NIs' arrivals (a few percent of a large mesh's events) while the lanes
    // walk the routers'. Each list keeps its events' order, and a cycle's arrivals at routers
    // and at NIs touch disjoint state, so splitting them changes no result. (The NIs' go
    // first: an observer called on a delivery sees the routers before the cycle's arrivals.)
    // With threads, one wheel of router events per lane, each holding the events for its
    // lane's routers (wheelOf), so a lane reads only its own arrivals; otherwise one. Each
    // event goes into one wheel in the order it was scheduled, so every router's arrivals keep
    // their order, and that is the only order a visit depends on.
    uint64_t wheel_horizon_ = 0;  // before the wheels: their constructors read it
    std::vector<EventWheel> wheels_;
    EventWheel ni_wheel_;
    bool lane_wheels_ = false;  // wheels_ per lane (set at the first step: splitWheels)
    std::vector<std::vector<NetEvent>> due_;  // per wheel, the cycle's events
    std::vector<NetEvent> ni_due_;
    NiArrivalOrder ni_order_;
    // Credits to routers in flight, per cycle they arrive (ring of kCreditRing cycles), where
    // arrivals are applied as they come (direct_credits_: not chained, no external routers):
    // 8 bytes each instead of a 24-byte event through the wheel and the step's dispatch.
    struct CreditArrival {
        uint32_t router;
        uint8_t port, vc;
    };
    static constexpr uint64_t kCreditRing = 8;  // credits due 1-7 cycles ahead (returnCredit)
    std::vector<CreditArrival> credit_ring_[kCreditRing];
    uint64_t credits_pending_ = 0;
    bool direct_credits_ = false;
    std::vector<uint32_t> active_, active_nis_;
    // Per router: 0 not in the active list; kCreditsOnly in it for this cycle's credits alone
    // (prefetchRouter may ask for less), kActive otherwise (any flit, wake-up or last cycle's).
    std::vector<uint8_t> router_active_, ni_active_;
    enum : uint8_t { kCreditsOnly = 1, kActive = 2 };
    std::vector<uint64_t> router_wake_;  // cycle of a router's pending WakeRouter, or kNever
    // A cycle's arrivals at C++ routers, chained per router: ev_head_[router] -> index in its
    // wheel's due list -> ev_next_[wheel][index] ... (kNoEvent ends a chain); applied on the
    // router's visit.
    static constexpr uint32_t kNoEvent = 0xFFFFFFFFu;
    std::vector<uint32_t> ev_head_, ev_tail_;
    std::vector<std::vector<uint32_t>> ev_next_;
    // From this many routers (a 64x64 mesh; the tables outgrow the L2 cache) arrivals are
    // chained and routers visited in index order (step()); below, both cost more than they save.
    static constexpr size_t kChainRouters = 4096;
    static constexpr size_t kHintBytes = size_t(512) << 10;  // step()'s cache hints from here
    size_t chain_routers_ = kChainRouters;
    bool chained_ = false;  // routers_.size() >= chain_routers_ (applyDeferral sets it)
    std::vector<uint32_t> sort_tmp_;
    static void radixSort(std::vector<uint32_t>& v, std::vector<uint32_t>& tmp);  // ascending
    // One router's visit: its chained arrivals, its allocation, and whether it stays active
    // (otherwise its WakeRouter, if it named a cycle). lane: see forward().
    bool visitRouter(uint32_t r, uint64_t now, StepLane* lane, uint32_t li = 0);
    static bool toNi(const NetEvent& e) {
        return e.kind == NetEvent::FlitToNi || e.kind == NetEvent::CreditToNi;
    }
    // An event for `target` at `at`, written by `fill` straight into its wheel's bucket where
    // there is room (EventWheel::place), else assembled and scheduled.
    template <class Fill>
    void scheduleFilled(uint64_t now, uint64_t at, uint32_t target, bool to_ni, StepLane* lane,
                        const Fill& fill) {
        if (!lane) {
            EventWheel& w = to_ni ? ni_wheel_ : wheels_[wheelOf(target)];
            if (NetEvent* e = w.place(now, at)) return fill(*e);
        }
        NetEvent e;
        fill(e);
        schedule(now, at, e, lane);
    }
    void schedule(uint64_t now, uint64_t at, const NetEvent& e, StepLane* lane) {
        if (lane)
            lane->add(now, at, e, toNi(e));
        else if (toNi(e))
            ni_wheel_.schedule(now, at, e);
        else
            wheels_[wheelOf(e.target)].schedule(now, at, e);
    }
    // The wheel of router r's events: its lane's, or the only one.
    uint32_t wheelOf(uint32_t r) const {
        if (!lane_wheels_) return 0;
        uint32_t lo = 0, hi = uint32_t(lane_lo_.size());  // the last lane starting at or before r
        while (hi - lo > 1) {
            const uint32_t mid = (lo + hi) / 2;
            if (lane_lo_[mid] <= r)
                lo = mid;
            else
                hi = mid;
        }
        return lo;
    }
    void splitWheels();  // at the first step: a wheel per lane where the threaded step runs
    uint64_t pendingEvents() const {
        uint64_t n = ni_wheel_.pending() + credits_pending_;
        for (const EventWheel& w : wheels_) n += w.pending();
        return n;
    }
    // The threaded step (see StepLane.h): laneChain chains a lane's arrivals and lists its
    // active routers, visitChunk visits chunk c, mergeChunk applies a chunk's effects.
    void niArrivals(uint64_t now);    // this cycle's arrivals at NIs
    void applyCredits(uint64_t now);  // this cycle's credit_ring_ bucket
    void scheduleCredit(const Router::Peer& to, uint8_t vc, uint64_t now, uint64_t at,
                        StepLane* lane);      // returnCredit through the wheel
    uint64_t nextCredit(uint64_t now) const;  // earliest cycle > now with a credit, or kNever
    void injectNis(uint64_t now);             // the active NIs' injections
    void checkProgress(uint64_t now);         // the deadlock watchdog, after the visits
    void visitThreaded(uint64_t now);
    void laneChain(uint32_t li, uint64_t now);
    void visitChunk(size_t c, uint64_t now);
    void mergeChunk(StepLane& chunk, uint32_t li, uint64_t now);
    static constexpr size_t kChunksPerLane = 8;
    std::unique_ptr<StepThreads> threads_;
    std::vector<StepLane::Range> lanes_;
    // The lanes' first routers, apart from the lanes: wheelOf reads them while lane threads
    // append to their lists (a Range's line).
    std::vector<uint32_t> lane_lo_;
    std::vector<StepLane> chunks_;
    std::unique_ptr<StepSync> sync_;
    std::vector<uint32_t> next_active_;
    uint64_t lane_cycles_ = 0;
    std::vector<PacketInfo, HugePageAllocator<PacketInfo>> packets_;
    std::vector<uint32_t> free_packets_;
    // Per packet slot, the nodes a multicast packet has reached (kept with their capacity as
    // slots are reused, so steady state allocates nothing).
    std::vector<std::vector<uint32_t>> mc_received_;
    // Keyed by treeKey(route, src); hashed, as every message on a route looks its tree up (an
    // ordered map over a wafer's 10^5 trees was a chain of cache misses per message).
    static uint64_t treeKey(uint32_t route, uint32_t src) { return uint64_t{route} << 32 | src; }
    std::unordered_map<uint64_t, uint16_t> mc_fanout_;  // nodes the tree delivers to
    std::unordered_map<uint64_t, std::vector<Branch>> mc_branches_;
    // Per route id below 5 x nodes() + 4096 (Network::tree; ids are handed out densely from
    // nodes(), a firmware's own ids may be anything: those beyond go through tree_scratch_).
    std::vector<TreeMemo> tree_memo_;
    TreeMemo tree_scratch_;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> pair_routes_;  // (src, dst) node -> route
    uint64_t pair_route_flits_ = 0;
    bool reuse_routes_ = false;
    uint64_t reused_routes_ = 0;
    std::map<std::pair<uint32_t, std::vector<uint32_t>>, uint32_t> route_memo_;
    struct MessageRecord {
        Message msg;
        uint32_t packets = 0;
        uint32_t deliveries_left = 0;
        // Packets received: a message with one destination (unicast, or a table route to one
        // core) keeps a plain count; a multicast of several packets counts at each receiving NI
        // (NetworkInterface::messagePacket: no allocation per message and node).
        bool single = false;
        uint32_t received_single = 0;
    };
    // Messages in flight, in reused slots named by their packets (PacketInfo::record): no hash
    // lookup per flit and no allocation per message.
    std::vector<MessageRecord> records_;
    std::vector<uint32_t> free_records_;
    NetworkObserver* observer_ = nullptr;
    EjectionGate* gate_ = nullptr;
    uint64_t held_flits_ = 0;
    std::vector<uint32_t> retry_nis_;  // NIs with refused flits to offer again next step
    std::vector<uint8_t> ni_retry_;
    bool dor_in_flit_ = false;
    uint64_t settle_ = 0;  // cycles of no movement after which a network without events is frozen
    uint32_t next_route_id_;
    uint32_t max_packet_flits_ = 16;
    uint64_t next_packet_id_ = 1, next_message_id_ = 1;
    uint64_t flits_in_network_ = 0, live_packets_ = 0;
    struct Posted {  // postPacket's, until the next step
        uint32_t src, dst, flits;
        bool measured;
        uint64_t created;
    };
    std::vector<Posted> posted_;
    uint64_t traversals_ = 0, flits_injected_ = 0, flits_ejected_ = 0;
    uint64_t packets_created_ = 0, packet_deliveries_ = 0, expected_deliveries_ = 0;
    uint64_t last_progress_ = 0, last_step_ = kNever;
};

}  // namespace wsc::noc
