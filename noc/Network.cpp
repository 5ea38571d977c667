#include "noc/Network.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <utility>

#include "noc/DeadlockError.h"
#include "noc/ParamError.h"

namespace wsc::noc {

namespace {
// The spec of a D2D link of the given length (FEC when longer than the threshold), with the
// parameters of its class: d2d, or w2w for a link between two wafers.
Link::Spec d2dSpec(const D2DParams& d, double noc_clock_hz, double length_mm) {
    Link::Spec s;
    s.kind = Link::Kind::D2D;
    s.length_mm = length_mm;
    s.latency = d.latency;
    s.serdes = d.serdes_latency;
    s.fec = length_mm > d.fec_threshold_mm ? d.fec_latency : 0;
    s.width_bytes = d.width_bytes;
    s.energy_pj_per_bit = d.energy_pj_per_bit;
    s.ber = d.ber;
    s.clock_hz = d.clock_hz;
    s.noc_clock_hz = noc_clock_hz;
    s.sync = d.sync;
    return s;
}
Link::Spec d2dSpec(const NocParams& p, double length_mm) {
    return d2dSpec(p.d2d, p.clock_hz, length_mm);
}

// The longest delay events usually have: three round trips of the slowest link kind (64-bit
// sums; the wheel caps its ring anyway, EventWheel::kMaxBuckets).
uint64_t wheelHorizon(const NocParams& p) {
    const uint64_t fb = p.flit_bytes;
    auto ser = [&](uint64_t w) { return w ? (fb + w - 1) / w : fb; };
    const uint64_t onDie =
        uint64_t{p.link.latency} + ser(p.link.width_bytes) + p.link.credit_latency;
    const uint64_t local = uint64_t{p.local_link.latency} + ser(p.local_link.width_bytes) +
                           p.local_link.credit_latency;
    // A D2D link class (d2d, or w2w between wafers): three of its round trips; on its own clock
    // its NoC-cycle flight and credit (with FEC, the longest).
    auto cls = [&](const D2DParams& d) {
        uint64_t t =
            3 * (uint64_t{d.latency} + d.serdes_latency + d.fec_latency + ser(d.width_bytes));
        const Link::Spec withFec = d2dSpec(d, p.clock_hz, d.fec_threshold_mm + 1);
        if (withFec.ownClock() && d.width_bytes && d.latency) {
            Link::Spec s = withFec;
            s.ber = 0;
            const Link longest(s, p.flit_bytes, 0);
            t = std::max<uint64_t>(t, 3 * (uint64_t{longest.flight()} + longest.creditLatency() +
                                           longest.serialization()));
        }
        return t;
    };
    uint64_t d2d = cls(p.d2d);
    if (p.topology.wafer_x || p.topology.wafer_y) d2d = std::max(d2d, cls(p.w2w));
    return std::max({onDie, local, d2d}) + 4;
}
}  // namespace

Network::Network(const NocParams& p, uint64_t seed)
    : p_(p),
      seed_(seed),
      topo_(p.topology),
      faults_(topo_, p.faults),
      dor_(topo_, p.routing != RoutingAlgo::YX, p.router.vcs),
      table_(topo_, p.router.vcs),
      wheel_horizon_(wheelHorizon(p)),
      wheels_(1, EventWheel(wheel_horizon_)),
      ni_wheel_(wheel_horizon_),
      due_(1),
      next_route_id_(topo_.nodes()) {
    if (p.flit_bytes == 0) throw std::invalid_argument("flit size must be > 0");
    if (p.link.latency == 0 || p.local_link.latency == 0 || p.d2d.latency == 0 ||
        p.link.credit_latency == 0 || p.local_link.credit_latency == 0)
        throw std::invalid_argument("link and credit latencies must be >= 1 cycle");
    if (p.link.width_bytes == 0 || p.local_link.width_bytes == 0 || p.d2d.width_bytes == 0)
        throw std::invalid_argument("link widths must be >= 1 byte per cycle");
    if ((p.topology.wafer_x || p.topology.wafer_y) &&
        (p.w2w.latency == 0 || p.w2w.width_bytes == 0))
        throw std::invalid_argument(
            "wafer-to-wafer links need a latency >= 1 cycle and a width >= 1 byte per cycle");
    if (p.topology.wrap && p.router.vcs < 2)
        throw ParamError("noc.router.vcs", "a torus needs at least 2 VCs (dateline classes)");
    if (faults_.any()) {
        if (p.routing == RoutingAlgo::Table)
            throw ParamError("noc.routing",
                             "faults: routing around failures uses up*/down* tables; set routing "
                             "to xy");
        updown_ = std::make_unique<UpDownRouting>(topo_, faults_, p.router.vcs);
        if (p.faults.escape(p.router.vcs))
            escape_ = std::make_unique<EscapeRouting>(topo_, faults_, *updown_, p.router.vcs);
        auto cut = updown_->cutOff();
        if (!cut.empty() && !p.faults.allow_partition) {
            std::string names;
            for (size_t i = 0; i < cut.size() && i < 32; ++i)
                names += (i ? ", " : "") + topo_.name(cut[i]);
            if (cut.size() > 32) names += fmt::format(", ... ({} more)", cut.size() - 32);
            throw ParamError(
                "noc.faults",
                fmt::format(
                    "faults: {} routers are cut off from the rest of the mesh and unreachable: {} "
                    "(set faults.allow_partition to run the reachable pairs only)",
                    cut.size(), names));
        }
    }
    build();
    if (p.routing == RoutingAlgo::Table) installDestinationRoutes();
    if (p.threads > 1) setThreads(p.threads);
}

bool Network::reachable(uint32_t s, uint32_t d) const {
    if (!updown_) return true;
    return updown_->reachable(topo_.routerOfNode(s), topo_.routerOfNode(d));
}

std::vector<uint32_t> Network::cutOffRouters() const {
    return updown_ ? updown_->cutOff() : std::vector<uint32_t>{};
}

uint8_t Network::unicastNextPort(uint32_t r, uint8_t in_port, uint32_t dst) const {
    if (escape_) {
        const uint32_t d = topo_.routerOfNode(dst);
        return r == d ? topo_.portOfNode(dst) : escape_->shortestPort(r, d);
    }
    if (updown_) return updown_->nextPort(r, in_port, dst);
    return dor_.nextPort(r, topo_.routerOfNode(dst), topo_.portOfNode(dst));
}

uint32_t Network::addLink(const Link::Spec& s, uint32_t src, uint8_t sp, uint32_t dst, uint8_t dp) {
    links_.emplace_back(s, p_.flit_bytes, seed_ * 1000003ull + links_.size());
    Link& l = links_.back();
    l.src = src, l.src_port = sp, l.dst = dst, l.dst_port = dp;
    return static_cast<uint32_t>(links_.size() - 1);
}

void Network::build() {
    const uint32_t R = topo_.routers(), P = topo_.ports();
    routers_.reserve(R);
    // At most one link per mesh port and two per node: reserved, so a large mesh never holds the
    // old and the doubled array at once (the peak the memory estimate would otherwise miss).
    links_.reserve(uint64_t{R} * Topology::kFirstLocal + 2ull * topo_.nodes());
    // Whole lines per router (the storage starts on one): prefetchVcs asks for a VC's record
    // by its line.
    const size_t words = (Router::storageWords(P, p_.router) + 7) / 8 * 8;
    router_storage_.resize(words * R);
    router_words_ = words;
    vc_lines_.assign(R, 0);
    for (uint32_t r = 0; r < R; ++r)
        routers_.emplace_back(r, P, p_.router, router_storage_.data() + words * r);
    const uint8_t depth = static_cast<uint8_t>(p_.router.vc_buffer_flits);
    for (uint32_t r = 0; r < R; ++r) {
        for (uint8_t port = 0; port < Topology::kFirstLocal; ++port) {
            uint32_t n = topo_.neighbor(r, port);
            if (n == Topology::kNone || faults_.linkDead(r, port)) continue;
            Link::Spec s;
            s.length_mm = topo_.linkLengthMm(r, port);
            if (topo_.isW2W(r, port)) {
                s = d2dSpec(p_.w2w, p_.clock_hz, s.length_mm);
            } else if (topo_.isD2D(r, port)) {
                s = d2dSpec(p_, s.length_mm);
            } else {
                s.kind = Link::Kind::OnDie;
                s.latency = p_.link.latency;
                s.width_bytes = p_.link.width_bytes;
                s.credit_latency = p_.link.credit_latency;
                s.energy_pj_per_bit = p_.link.energy_pj_per_bit;
            }
            uint8_t in = Topology::opposite(port);
            uint32_t l = addLink(s, r, port, n, in);
            routers_[r].connectOut(port, l, links_[l].serialization(), outPeer(l));
            routers_[r].setOutCredits(port, depth);
            routers_[n].connectIn(in, l, inPeer(l));
        }
    }
    const uint32_t V = p_.router.vcs;
    const uint8_t vc_hi = static_cast<uint8_t>(p_.topology.wrap ? V / 2 : V);
    nis_.reserve(topo_.nodes());
    for (uint32_t node = 0; node < topo_.nodes(); ++node) {
        uint32_t r = topo_.routerOfNode(node);
        uint8_t port = topo_.portOfNode(node);
        nis_.emplace_back(node, r, port, V, depth, 0, vc_hi);
        nis_.back().setInterleave(p_.interleave_injection);
        Link::Spec s;
        s.latency = p_.local_link.latency;
        s.width_bytes = p_.local_link.width_bytes;
        s.credit_latency = p_.local_link.credit_latency;
        s.energy_pj_per_bit = p_.local_link.energy_pj_per_bit;
        s.kind = Link::Kind::Injection;
        uint32_t in = addLink(s, node, 0, r, port);
        routers_[r].connectIn(port, in, inPeer(in));
        s.kind = Link::Kind::Ejection;
        uint32_t out = addLink(s, r, port, node, 0);
        routers_[r].connectOut(port, out, links_[out].serialization(), outPeer(out));
        routers_[r].setOutCredits(port, depth);  // the NI's ejection buffer, drained each cycle
        nis_.back().inj_link = in;
        nis_.back().ej_link = out;
    }
    // A router's links count their flits in the router (Router::sentCounter), on a line its
    // send writes anyway, not in each link's record or a table by link id (a cache miss per
    // flit on large meshes). NIs' injection links count in their records (transmit reads them).
    for (uint32_t r = 0; r < R; ++r)
        for (uint8_t port = 0; port < P; ++port)
            if (routers_[r].outLink(port) != Router::kNoLink)
                links_[routers_[r].outLink(port)].useCounter(routers_[r].sentCounter(port));
    applyDeferral();
    router_active_.assign(R, 0);
    ev_head_.assign(R, kNoEvent);
    ev_tail_.assign(R, kNoEvent);
    ev_next_.resize(1);
    router_wake_.assign(R, kNever);
    ni_active_.assign(topo_.nodes(), 0);
    ni_retry_.assign(topo_.nodes(), 0);
    settle_ = p_.router.hopCycles() + 2;
    dor_in_flit_ =
        !updown_ && !escape_ &&
        uint64_t(p_.topology.x) + p_.topology.y - 2 <= std::numeric_limits<uint16_t>::max();
    // The watchdog must outlast the slowest link's round trip, or it would fire on a flit that
    // is merely in flight.
    uint64_t worst = 0;
    for (const auto& l : links_)
        worst = std::max<uint64_t>(worst, l.maxFlight() + uint64_t{l.creditLatency()});
    if (p_.watchdog_cycles <= 2 * worst)
        throw ParamError(
            "noc.watchdog",
            fmt::format("watchdog of {} cycles is shorter than twice the slowest link round trip "
                        "({} cycles)",
                        p_.watchdog_cycles, worst));
}

// Table mode: unicast packets use route id = destination node, and every router holds one entry
// per (input port, destination) that XY traffic can bring to it. Counting them is exactly the
// PLMR route budget question; exceeding route_limit is reported per router.
void Network::installDestinationRoutes() {
    const uint32_t R = topo_.routers();
    for (uint32_t dst = 0; dst < topo_.nodes(); ++dst) {
        uint32_t dr = topo_.routerOfNode(dst);
        uint8_t dport = topo_.portOfNode(dst);
        for (uint32_t r = 0; r < R; ++r) {
            uint8_t out = dor_.nextPort(r, dr, dport);
            uint8_t mask = static_cast<uint8_t>(1u << out);
            for (uint32_t l = 0; l < topo_.localPorts(); ++l)
                table_.table(r).add(static_cast<uint8_t>(Topology::kFirstLocal + l), dst, mask);
            for (uint8_t p = 0; p < Topology::kFirstLocal; ++p) {
                uint32_t n = topo_.neighbor(r, p);
                if (n == Topology::kNone || n == r) continue;
                if (n != dr && dor_.nextPort(n, dr, dport) == Topology::opposite(p))
                    table_.table(r).add(p, dst, mask);
            }
            if (table_.table(r).size() > p_.route_limit)
                throw ParamError(
                    "noc.route_limit",
                    fmt::format("routing: table routing needs more than {} route entries at "
                                "router {} (limit route_limit = {}); use xy/yx routing or raise "
                                "route_limit",
                                p_.route_limit, topo_.name(r), p_.route_limit));
        }
    }
}

uint32_t Network::addMulticastRoute(uint32_t src_node, const std::vector<uint32_t>& dsts) {
    if (src_node >= topo_.nodes()) throw std::invalid_argument("multicast source out of range");
    if (dsts.empty()) throw std::invalid_argument("multicast route needs at least one destination");
    // Build tentatively: (router, in_port) -> out mask.
    std::map<std::pair<uint32_t, uint8_t>, uint8_t> entries;
    uint32_t sr = topo_.routerOfNode(src_node);
    std::set<uint32_t> unique(dsts.begin(), dsts.end());
    std::pair<uint32_t, std::vector<uint32_t>> key;
    if (reuse_routes_) {
        key = {src_node, std::vector<uint32_t>(unique.begin(), unique.end())};
        const auto it = route_memo_.find(key);
        if (it != route_memo_.end()) {
            ++reused_routes_;
            return it->second;
        }
    }
    for (uint32_t d : unique) {
        if (d >= topo_.nodes()) throw std::invalid_argument("multicast destination out of range");
        uint32_t dr = topo_.routerOfNode(d);
        uint8_t in = topo_.portOfNode(src_node);
        uint32_t r = sr;
        for (uint32_t guard = 0;; ++guard) {
            if (guard > topo_.routers() * 2) throw std::logic_error("multicast path does not end");
            uint8_t out = dor_.nextPort(r, dr, topo_.portOfNode(d));
            if (!Topology::isLocal(out) && faults_.linkDead(r, out))
                throw ParamError(
                    "noc.faults",
                    fmt::format("routing: the XY multicast tree from node {} to node {} crosses "
                                "the failed link {} port {}",
                                src_node, d, topo_.name(r), Topology::portName(out)));
            entries[{r, in}] |= static_cast<uint8_t>(1u << out);
            if (Topology::isLocal(out)) break;
            r = topo_.neighbor(r, out);
            in = Topology::opposite(out);
        }
    }
    const uint32_t id = installRoute(entries, src_node, static_cast<uint16_t>(unique.size()));
    if (reuse_routes_) route_memo_.emplace(std::move(key), id);
    return id;
}

uint32_t Network::installRoute(const std::map<std::pair<uint32_t, uint8_t>, uint8_t>& entries,
                               uint32_t src_node, uint16_t fanout) {
    const uint32_t route = next_route_id_;
    std::map<uint32_t, uint32_t> added;
    for (const auto& [key, mask] : entries)
        if (!table_.table(key.first).lookup(key.second, route)) ++added[key.first];
    for (const auto& [r, n] : added) {
        uint32_t total = table_.table(r).size() + n;
        if (total > p_.route_limit)
            throw ParamError("noc.route_limit",
                             fmt::format("routing: router {} would need {} route entries, more "
                                         "than its limit of {} (route_limit)",
                                         topo_.name(r), total, p_.route_limit));
    }
    for (const auto& [key, mask] : entries) table_.table(key.first).add(key.second, route, mask);
    mc_fanout_[treeKey(route, src_node)] = fanout;
    ++next_route_id_;
    return route;
}

uint32_t Network::addPathRoute(uint32_t src_node, uint32_t dst_node,
                               const std::vector<uint32_t>& routers) {
    if (src_node >= topo_.nodes() || dst_node >= topo_.nodes())
        throw std::invalid_argument("path route: node out of range");
    if (routers.empty() || routers.front() != topo_.routerOfNode(src_node) ||
        routers.back() != topo_.routerOfNode(dst_node))
        throw std::invalid_argument(fmt::format(
            "path route: the path from node {} to node {} must start at router {} and end at {}",
            src_node, dst_node, topo_.routerOfNode(src_node), topo_.routerOfNode(dst_node)));
    std::map<std::pair<uint32_t, uint8_t>, uint8_t> entries;  // (router, in port) -> out mask
    uint8_t in = topo_.portOfNode(src_node);
    for (size_t i = 0; i < routers.size(); ++i) {
        const uint32_t r = routers[i];
        uint8_t out = topo_.portOfNode(dst_node);
        if (i + 1 < routers.size()) {
            out = 0xFF;
            for (uint8_t p = 0; p < Topology::kFirstLocal; ++p)
                if (topo_.neighbor(r, p) == routers[i + 1]) out = p;
            if (out == 0xFF)
                throw std::invalid_argument(
                    fmt::format("path route: routers {} and {} are not neighbours", topo_.name(r),
                                topo_.name(routers[i + 1])));
            if (faults_.linkDead(r, out))
                throw ParamError(
                    "noc.faults",
                    fmt::format("routing: the path from node {} to node {} crosses "
                                "the failed link {} port {}",
                                src_node, dst_node, topo_.name(r), Topology::portName(out)));
        }
        entries[{r, in}] |= static_cast<uint8_t>(1u << out);
        in = Topology::opposite(out);
    }
    return installRoute(entries, src_node, 1);
}

uint32_t Network::addPairRoute(uint32_t src_node, uint32_t dst_node,
                               const std::vector<uint32_t>& routers) {
    if (pair_routes_.count({src_node, dst_node}))
        throw std::invalid_argument(fmt::format(
            "pair route: node {} to node {} already has a route of its own", src_node, dst_node));
    const uint32_t route = addPathRoute(src_node, dst_node, routers);
    pair_routes_[{src_node, dst_node}] = route;
    return route;
}

uint32_t Network::pairRoute(uint32_t src_node, uint32_t dst_node) const {
    if (pair_routes_.empty()) return kNoRoute;
    auto it = pair_routes_.find({src_node, dst_node});
    return it == pair_routes_.end() ? kNoRoute : it->second;
}

void Network::addRouteEntry(uint32_t router, uint8_t in_port, uint32_t route, uint8_t out_mask) {
    if (router >= topo_.routers() || in_port >= topo_.ports())
        throw std::invalid_argument("route entry: router or port out of range");
    table_.table(router).add(in_port, route, out_mask);
    next_route_id_ = std::max(next_route_id_, route + 1);
}

void Network::checkRouteLimits() const {
    for (uint32_t r = 0; r < topo_.routers(); ++r)
        if (table_.table(r).size() > p_.route_limit)
            throw ParamError(
                "noc.route_limit",
                fmt::format("routing: router {} holds {} route entries, more than its limit of {} "
                            "(route_limit)",
                            topo_.name(r), table_.table(r).size(), p_.route_limit));
}

const Network::TreeMemo& Network::tree(uint32_t route, uint32_t src) {
    if (route < tree_memo_.size() && tree_memo_[route].src == src) return tree_memo_[route];
    TreeMemo t;
    t.fanout = multicastDeliveries(route, src);  // (throws on a broken tree, as before)
    t.branches = &multicastBranches(route, src);
    t.src = src;
    // Ids come densely from nodes() up; slots for four per node (MeshGEMM uses two) and more,
    // so a firmware's arbitrary route id cannot make this table large.
    const uint64_t cap = uint64_t(topo_.nodes()) * 5 + 4096;
    if (route >= cap) return tree_scratch_ = t;
    if (route >= tree_memo_.size())
        tree_memo_.resize(std::min<uint64_t>(cap, uint64_t(route) * 2 + 1));
    return tree_memo_[route] = t;
}

// Destinations of a route: walk the table tree from the source's local port.
uint16_t Network::multicastDeliveries(uint32_t route, uint32_t src) {
    auto it = mc_fanout_.find(treeKey(route, src));
    if (it != mc_fanout_.end()) return it->second;
    const uint32_t count = countTree(route, src, topo_.routerOfNode(src), topo_.portOfNode(src));
    mc_fanout_[treeKey(route, src)] = static_cast<uint16_t>(count);
    return static_cast<uint16_t>(count);
}

uint32_t Network::countTree(uint32_t route, uint32_t src, uint32_t router, uint8_t in_port) const {
    uint32_t count = 0, steps = 0;
    std::vector<std::pair<uint32_t, uint8_t>> stack{{router, in_port}};
    while (!stack.empty()) {
        auto [r, in] = stack.back();
        stack.pop_back();
        if (++steps > topo_.routers() * topo_.ports())
            throw std::runtime_error(
                fmt::format("routing: route {} from node {} loops", route, src));
        uint8_t mask = table_.table(r).lookup(in, route);
        if (!mask)
            throw std::runtime_error(
                fmt::format("routing: route {} from node {} has no entry at {} for input port {}",
                            route, src, topo_.name(r), Topology::portName(in)));
        for (uint8_t m = mask; m; m &= m - 1) {
            uint8_t o = static_cast<uint8_t>(__builtin_ctz(m));
            if (Topology::isLocal(o)) {
                ++count;
            } else {
                uint32_t n = topo_.neighbor(r, o);
                if (n == Topology::kNone)
                    throw std::runtime_error(
                        fmt::format("routing: route {} leaves the mesh at {} "
                                    "port {}",
                                    route, topo_.name(r), Topology::portName(o)));
                stack.push_back({n, Topology::opposite(o)});
            }
        }
    }
    return count;
}

// A tree that leaves its source router towards two or more neighbours would let one packet own
// VCs in opposite directions (east and west, north and south) while waiting for credits on one
// of them: two such trees in one row or column then wait for each other through the traffic
// between them. Split at the source, each branch is a path that only turns off to eject, so
// its dependencies all point one way. Ejections at the source router ride on the first branch.
const std::vector<Network::Branch>& Network::multicastBranches(uint32_t route, uint32_t src) {
    auto it = mc_branches_.find(treeKey(route, src));
    if (it != mc_branches_.end()) return it->second;
    const uint32_t sr = topo_.routerOfNode(src);
    const uint8_t sp = topo_.portOfNode(src);
    const uint8_t mask = table_.table(sr).lookup(sp, route);
    const uint8_t mesh = mask & ((1u << Topology::kFirstLocal) - 1);
    std::vector<Branch> branches;
    if ((mesh & (mesh - 1)) == 0) {
        branches.push_back({0, multicastDeliveries(route, src)});
    } else {
        const uint8_t local = mask & ~mesh;
        for (uint8_t m = mesh; m; m &= m - 1) {
            const uint8_t o = static_cast<uint8_t>(__builtin_ctz(m));
            Branch b;
            b.mask = static_cast<uint8_t>((1u << o) | (branches.empty() ? local : 0));
            uint32_t n = topo_.neighbor(sr, o);
            if (n == Topology::kNone)
                throw std::runtime_error(
                    fmt::format("routing: route {} leaves the mesh at {} port {}", route,
                                topo_.name(sr), Topology::portName(o)));
            uint32_t count = countTree(route, src, n, Topology::opposite(o));
            if (branches.empty()) count += static_cast<uint32_t>(__builtin_popcount(local));
            b.deliveries = static_cast<uint16_t>(count);
            branches.push_back(b);
        }
    }
    return mc_branches_.emplace(treeKey(route, src), std::move(branches)).first->second;
}

uint32_t Network::allocPacket() {
    if (!free_packets_.empty()) {
        uint32_t s = free_packets_.back();
        free_packets_.pop_back();
        if (!free_packets_.empty())  // the next packet's slot, as send() does for records
            prefetchRange(&packets_[free_packets_.back()], sizeof(PacketInfo));
        return s;
    }
    packets_.emplace_back();
    return static_cast<uint32_t>(packets_.size() - 1);
}

uint32_t Network::enqueuePacket(uint32_t src, uint32_t dst, uint32_t route, uint32_t flits,
                                uint64_t now, bool measured, uint64_t message, uint8_t src_mask) {
    checkPacket(src, dst, route, flits);
    uint16_t deliveries = 1;
    if (route != kNoRoute) {  // the tree's nodes, or its branch's (as send() hands them out)
        const TreeMemo& t = tree(route, src);
        deliveries = t.fanout;
        if (src_mask)
            for (const Branch& b : *t.branches)
                if (b.mask == src_mask) deliveries = b.deliveries;
    }
    return enqueueChecked(src, dst, route, flits, now, measured, message, src_mask, deliveries);
}

void Network::postPacket(uint32_t src, uint32_t dst, uint32_t flits, uint64_t now, bool measured) {
    if (gate_)
        throw std::logic_error(
            "postPacket with an ejection gate: use enqueuePacket (a retry of "
            "refused flits at the step would come before the posts)");
    checkPacket(src, dst, kNoRoute, flits);
    posted_.push_back({src, dst, flits, measured, now});
}

void Network::enqueuePosted() {
    // Each post reads its NI and writes a packet record (the free list hints the next one):
    // the NIs a few posts ahead are asked for first (bench/noc.md: the generator's enqueues
    // missed on their NIs; measured only together with the posts).
    constexpr size_t kAhead = 4;
    for (size_t i = 0; i < posted_.size(); ++i) {
        if (i + kAhead < posted_.size()) nis_[posted_[i + kAhead].src].prefetchObject();
        const Posted& p = posted_[i];
        enqueueChecked(p.src, p.dst, kNoRoute, p.flits, p.created, p.measured, 0, 0, 1);
    }
    posted_.clear();
}

void Network::checkPacket(uint32_t src, uint32_t dst, uint32_t route, uint32_t flits) const {
    if (src >= topo_.nodes() || (route == kNoRoute && dst >= topo_.nodes()))
        throw std::invalid_argument(
            fmt::format("packet endpoints out of range: {} -> {}", src, dst));
    if (flits == 0 || flits > 0xFFFF)
        throw std::invalid_argument("packet must have 1..65535 flits");
    if (updown_ && route == kNoRoute && !reachable(src, dst))
        throw std::runtime_error(fmt::format(
            "node {} ({}) cannot reach node {} ({}): {}", src, topo_.name(topo_.routerOfNode(src)),
            dst, topo_.name(topo_.routerOfNode(dst)),
            !nodeAlive(src) || !nodeAlive(dst) ? "a failed core" : "cut off by failed links"));
}

uint32_t Network::enqueueChecked(uint32_t src, uint32_t dst, uint32_t route, uint32_t flits,
                                 uint64_t now, bool measured, uint64_t message, uint8_t src_mask,
                                 uint16_t deliveries) {
    uint32_t slot = allocPacket();
    PacketInfo& pk = packets_[slot];
    pk = PacketInfo{};
    pk.id = next_packet_id_++;
    pk.message = message;
    pk.src = src;
    pk.dst = dst;
    pk.flits = static_cast<uint16_t>(flits);
    pk.bytes = flits * p_.flit_bytes;
    pk.created = now;
    pk.measured = measured;
    pk.live = true;
    if (route != kNoRoute) {
        pk.route = route;
        pk.deliveries_expected = deliveries;
        pk.src_mask = src_mask;
    } else if (p_.routing == RoutingAlgo::Table) {
        pk.route = dst;  // destination-based table entries
    }
    expected_deliveries_ += uint64_t(pk.flits) * pk.deliveries_expected;
    ++packets_created_;
    ++live_packets_;
    nis_[src].enqueue(slot);
    activateNi(src);
    return slot;
}

uint64_t Network::send(Message m, uint64_t now) {
    m.id = next_message_id_++;
    uint64_t flits = std::max<uint64_t>(1, (m.bytes + p_.flit_bytes - 1) / p_.flit_bytes);
    const uint64_t packets64 = (flits + max_packet_flits_ - 1) / max_packet_flits_;
    // Packets are counted in 32 bits (a larger count used to wrap to 0 and starve the run).
    if (packets64 > UINT32_MAX)
        throw std::invalid_argument(
            fmt::format("message of {} bytes from node {}: {} packets, more than 2^32 - 1", m.bytes,
                        m.src, packets64));
    const uint32_t packets = static_cast<uint32_t>(packets64);
    // A unicast between a rerouted pair rides its path route; the message stays a unicast.
    const uint32_t path = m.route == kNoRoute ? pairRoute(m.src, m.dst) : kNoRoute;
    const uint32_t route = path != kNoRoute ? path : m.route;  // the packets'
    checkPacket(m.src, m.dst, route, uint32_t(std::min<uint64_t>(max_packet_flits_, flits)));
    if (path != kNoRoute) pair_route_flits_ += flits;
    // The nodes a packet of the whole tree reaches, looked up once per message rather than per
    // packet (a hashed lookup, often a cache miss); a path route reaches its one destination
    // (installRoute records it with a fanout of 1).
    static const std::vector<Branch> kWhole{Branch{}};
    const TreeMemo* tree_of = m.route != kNoRoute ? &tree(m.route, m.src) : nullptr;
    const uint16_t whole = tree_of ? tree_of->fanout : 1;
    MessageRecord rec;
    rec.msg = m;
    rec.packets = packets;
    rec.deliveries_left = whole;
    rec.single = rec.deliveries_left == 1;
    uint32_t record;
    if (!free_records_.empty()) {
        record = free_records_.back();
        free_records_.pop_back();
        records_[record] = std::move(rec);
        // The next send's record, a send ahead: reuse reads it (the old payload it releases),
        // and with thousands of cores sending, the slot last freed is rarely still in cache.
        if (!free_records_.empty())
            prefetchRange(&records_[free_records_.back()], sizeof(MessageRecord));
    } else {
        record = static_cast<uint32_t>(records_.size());
        records_.push_back(std::move(rec));
    }
    const std::vector<Branch>& branches = tree_of ? *tree_of->branches : kWhole;
    // Every node is on exactly one branch and gets all `packets` packets of the message from
    // it; branches interleave packet by packet so none waits for another's whole message.
    for (uint32_t i = 0; i < packets; ++i) {
        uint32_t f = static_cast<uint32_t>(std::min<uint64_t>(max_packet_flits_, flits));
        flits -= f;
        for (const Branch& b : branches) {
            uint32_t slot = enqueueChecked(m.src, m.dst, route, f, now, false, m.id, b.mask,
                                           b.mask ? b.deliveries : whole);
            packets_[slot].record = record;
            packets_[slot].bytes = static_cast<uint32_t>(
                std::min<uint64_t>(uint64_t(f) * p_.flit_bytes,
                                   m.bytes - uint64_t(i) * max_packet_flits_ * p_.flit_bytes));
        }
    }
    return m.id;
}

RouteDecision Network::route(uint32_t r, uint8_t in_port, uint8_t in_vc, uint32_t slot) const {
    const PacketInfo& pk = packets_[slot];
    if (pk.route != kNoRoute) {
        RouteDecision d = table_.route(r, in_port, in_vc, pk);
        if (pk.src_mask && in_port == topo_.portOfNode(pk.src) && r == topo_.routerOfNode(pk.src))
            d.out_mask &= pk.src_mask;
        // VC 0 is escape routing's escape channel: its dependencies must stay up*/down* only,
        // so trees (which hold several outputs at once) keep off it.
        if (escape_ && d.vc_lo == 0) d.vc_lo = 1;
        return d;
    }
    if (escape_) return escape_->route(r, in_port, in_vc, pk);
    if (updown_) return updown_->route(r, in_port, in_vc, pk);
    return dor_.route(r, in_port, in_vc, pk);
}

namespace {
// A link's far end as Router::Peer: downstream (where its flits go) or upstream (where its
// credits go).
Router::Peer peerOf(const Link& k, bool downstream) {
    Router::Peer p;
    p.node = downstream ? k.dst : k.src;
    p.port = downstream ? k.dst_port : k.src_port;
    p.to_ni = k.kind() == (downstream ? Link::Kind::Ejection : Link::Kind::Injection);
    p.cycles = downstream ? k.flight() : k.creditLatency();
    p.plain = downstream && k.plain();
    p.hop = downstream && (k.kind() == Link::Kind::OnDie || k.kind() == Link::Kind::D2D);
    return p;
}
}  // namespace

Router::Peer Network::outPeer(uint32_t l) const {
    Router::Peer p = peerOf(links_[l], true);
    p.defer = links_[l].dst_defer;
    return p;
}

void Network::observeRouter(uint32_t r) {
    if (r >= routers_.size()) throw std::invalid_argument("observeRouter: no such router");
    if (last_step_ != kNever) throw std::logic_error("observeRouter after the simulation started");
    routers_[r].observe();
    refreshInPeers(r);
}

void Network::refreshInPeers(uint32_t r) {
    // The links into r carry whether r defers its arrivals (Link::dst_defer: an NI's injection
    // reads it per flit) and the routers sending on them cache it (Router::Peer::defer).
    const uint8_t d = isExternal(r) ? 0 : routers_[r].deferral();
    for (uint8_t port = 0; port < routers_[r].ports(); ++port) {
        const uint32_t l = routers_[r].inLink(port);
        if (l == Router::kNoLink) continue;
        Link& k = links_[l];
        k.dst_defer = d;
        if (k.kind() != Link::Kind::OnDie && k.kind() != Link::Kind::D2D) continue;
        Router& up = routers_[k.src];
        up.connectOut(k.src_port, l, up.outSerialization(k.src_port), outPeer(l));
    }
}

void Network::applyDeferral() {
    // On every mesh. Deferring changes which routers a cycle visits and so, below the chaining
    // threshold (routers visited in the order they were woken), the order of their sends; what
    // could observe that, same-cycle deliveries at different NIs, reaches endpoints in NI order
    // whatever the order of visits (NiArrivalOrder).
    chained_ = routers_.size() >= chain_routers_;
    for (Router& rt : routers_) rt.deferArrivals(true);
    for (uint32_t r = 0; r < routers_.size(); ++r) refreshInPeers(r);
}
Router::Peer Network::inPeer(uint32_t l) const {
    return peerOf(links_[l], false);
}

void Network::forward(uint32_t l, const Flit& f, uint64_t now, uint32_t delay, StepLane* lane) {
    // An NI's injection: through Link::transmit (an NI does not keep its link's far end).
    Router::Peer to = outPeer(l);
    to.plain = 0;
    forward(l, to, f, f.vc, now, delay, lane);
}

void Network::returnCredit(uint32_t l, uint8_t vc, uint64_t now, uint32_t delay, StepLane* lane) {
    returnCredit(inPeer(l), vc, now, delay, lane);
}

void Network::forward(uint32_t l, const Router::Peer& to, const Flit& f, uint8_t vc, uint64_t now,
                      uint32_t delay, StepLane* lane) {
    // The link is its source router's (or NI's) alone: a threaded step writes it from one lane.
    uint64_t at;
    if (to.plain) {
        at = now + delay + to.cycles + to.defer;
        // The count: the sending router's (Router::send; Link::useCounter), not the record's.
    } else {
        at = links_[l].transmit(now + delay) + to.defer;
    }
    // A dimension-order head counts its hops in itself; a multicast head forks at several
    // routers in one cycle, possibly in several lanes, so its record counts them.
    const bool hop = f.head() && to.hop;
    const bool in_flit = hop && f.dimensionOrder();
    if (hop && !in_flit) {
        if (lane)
            lane->head_hops.push_back(f.packet);
        else
            ++packets_[f.packet].hops;
    }
    scheduleFilled(now, at, to.node, to.to_ni, lane, [&](NetEvent& e) {
        e.target = to.node;
        e.port = to.port;
        e.kind = to.to_ni ? NetEvent::FlitToNi : NetEvent::FlitToRouter;
        e.flit = f;
        e.flit.vc = vc;
        if (in_flit) ++e.flit.hops;
    });
}

void Network::scheduleCredit(const Router::Peer& to, uint8_t vc, uint64_t now, uint64_t at,
                             StepLane* lane) {
    scheduleFilled(now, at, to.node, to.to_ni, lane, [&](NetEvent& e) {
        e.target = to.node;
        e.port = to.port;
        e.vc = vc;
        e.kind = to.to_ni ? NetEvent::CreditToNi : NetEvent::CreditToRouter;
    });
}

void Network::flitInjected(uint64_t now, uint32_t slot) {
    ++flits_injected_;
    ++flits_in_network_;
    last_progress_ = now;
    if (packets_[slot].injected == kNever) packets_[slot].injected = now;
}

void Network::flitEjected(uint64_t now, const Flit& f, uint32_t node) {
    ++flits_ejected_;
    --flits_in_network_;
    last_progress_ = now;
    if (f.head() && f.dimensionOrder()) packets_[f.packet].hops = f.hops;
    if (f.tail()) packetDone(f.packet, node, now);
}

Admission Network::admitFlit(uint32_t node, const Flit& f, uint64_t now) {
    if (!gate_) return Admission::TakeRest;
    const PacketInfo& pk = packets_[f.packet];
    if (pk.record == kNoRoute) return Admission::TakeRest;
    // This flit's payload bytes: whole flits, the packet's remainder in its last one.
    const uint64_t before = uint64_t(f.seq) * p_.flit_bytes;
    const uint32_t bytes = static_cast<uint32_t>(
        pk.bytes > before ? std::min<uint64_t>(p_.flit_bytes, pk.bytes - before) : 0);
    return gate_->admitFlit(records_[pk.record].msg, node, bytes, now);
}

void Network::flitHeld(uint32_t, int64_t delta) {
    held_flits_ = uint64_t(int64_t(held_flits_) + delta);
}

void Network::wakeEjection(uint32_t node) {
    if (node < nis_.size() && nis_[node].held() && !ni_retry_[node]) {
        ni_retry_[node] = 1;
        retry_nis_.push_back(node);
    }
}

void Network::packetDone(uint32_t slot, uint32_t node, uint64_t now) {
    PacketInfo& pk = packets_[slot];
    if (!pk.live)
        throw std::logic_error(
            fmt::format("integrity: packet slot {} delivered after completion", slot));
    if (pk.deliveries_expected == 1) {
        // Unicast: dimension order, a destination-table route, or a pair route (a unicast too).
        if (pk.route == kNoRoute || pk.route < topo_.nodes() ||
            pairRoute(pk.src, pk.dst) == pk.route) {
            if (node != pk.dst)
                throw std::logic_error(fmt::format(
                    "integrity: packet {} for node {} delivered to node {}", pk.id, pk.dst, node));
        }
    } else {
        if (mc_received_.size() <= slot) mc_received_.resize(packets_.size());
        auto& seen = mc_received_[slot];
        if (std::find(seen.begin(), seen.end(), node) != seen.end())
            throw std::logic_error(fmt::format(
                "integrity: multicast packet {} delivered twice to node {}", pk.id, node));
        seen.push_back(node);
    }
    ++pk.deliveries_done;
    ++packet_deliveries_;
    if (observer_) observer_->onPacketDelivered(pk, node, now);
    if (pk.record != kNoRoute) {
        // Indices, not references, across the observer's callback: an observer that sent a
        // message from it would grow records_ and packets_ under them.
        const uint32_t rid = pk.record;
        const uint64_t msg = pk.message;
        MessageRecord& rec = records_[rid];
        const uint32_t got = rec.single         ? ++rec.received_single
                             : rec.packets == 1 ? 1
                                                : nis_[node].messagePacket(msg, rec.packets);
        if (got == rec.packets) {
            if (observer_) observer_->onMessageDelivered(records_[rid].msg, node, now);
            MessageRecord& done = records_[rid];
            if (--done.deliveries_left == 0) {
                done.msg.payload.reset();
                free_records_.push_back(rid);
            }
        }
    }
    PacketInfo& pk_after = packets_[slot];
    if (pk_after.deliveries_done == pk_after.deliveries_expected) {
        pk_after.live = false;
        if (slot < mc_received_.size()) mc_received_[slot].clear();
        free_packets_.push_back(slot);
        --live_packets_;
    }
}

void Network::replaceRouter(uint32_t r, std::unique_ptr<ExternalRouter> ext) {
    if (r >= routers_.size()) throw std::invalid_argument("replaceRouter: no such router");
    if (last_step_ != kNever) throw std::logic_error("replaceRouter after the simulation started");
    if (external_.empty()) external_.resize(routers_.size());
    external_[r] = std::move(ext);
    refreshInPeers(r);  // an external router takes its flits on the cycle they arrive
}

void Network::radixSort(std::vector<uint32_t>& v, std::vector<uint32_t>& tmp) {
    // Stable LSD radix sort of router indices (11-bit digits, as many passes as the largest
    // index needs): linear in the active routers, where a comparison sort is not.
    uint32_t top = 0;
    for (uint32_t x : v) top = std::max(top, x);
    tmp.resize(v.size());
    constexpr uint32_t kBits = 11, kBuckets = 1u << kBits;
    for (uint32_t d = 0; d < 32 && (top >> d) != 0; d += kBits) {
        uint32_t count[kBuckets + 1] = {};
        for (uint32_t x : v) ++count[((x >> d) & (kBuckets - 1)) + 1];
        for (uint32_t b = 0; b < kBuckets; ++b) count[b + 1] += count[b];
        for (uint32_t x : v) tmp[count[(x >> d) & (kBuckets - 1)]++] = x;
        v.swap(tmp);
    }
}

void Network::step(uint64_t now) {
    if (last_step_ != kNever && now <= last_step_)
        throw std::logic_error(fmt::format("network stepped twice at cycle {}", now));
    if (last_step_ == kNever) splitWheels();
    last_step_ = now;
    if (!retry_nis_.empty()) {
        // Endpoints that made room take their waiting flits before this cycle's arrivals.
        std::vector<uint32_t> retry;
        retry.swap(retry_nis_);
        for (uint32_t n : retry) {
            ni_retry_[n] = 0;
            nis_[n].drain(now, *this);
        }
    }
    for (size_t w = 0; w < wheels_.size(); ++w) wheels_[w].collect(now, due_[w]);
    ni_wheel_.collect(now, ni_due_);
    // On a large mesh each C++ router's arrivals are chained in their scheduled order and applied
    // on its visit below, so its state is brought into cache once per cycle (arrivals, then
    // allocation) instead of twice; a small mesh is all in cache and applies them at once.
    // Threads: each lane chains and activates the routers of its own index range itself (below).
    // Only where one thread would chain too: the lanes' step is the chained step split by index
    // (below the threshold cycles are too short for the hand-overs to pay).
    const bool chain = chained_;
    if (lane_wheels_) {
        visitThreaded(now);  // the NIs' part included
        return checkProgress(now);
    }
    const std::vector<NetEvent>& due = due_[0];  // the only wheel
    if (chain) ev_next_[0].resize(due.size());
    if (!posted_.empty()) enqueuePosted();
    niArrivals(now);
    if (credits_pending_) applyCredits(now);
    // Applied at once, arrivals still land all over a mesh that outgrows the L2 cache: fetch a
    // few events ahead (the router, then the VC it reaches).
    constexpr size_t kAhead = 8;
    auto hint = [&](size_t k, bool deep) __attribute__((always_inline)) {
        const NetEvent& e = due[k];
        if (e.kind == NetEvent::WakeRouter) return;
        if (!deep) return prefetchLine(&routers_[e.target]);
        if (e.kind == NetEvent::FlitToRouter && !isExternal(e.target))
            routers_[e.target].prefetchVc(e.port, e.flit.vc);
    };
    // Not where the routers' state fits in a core's L2 cache: the hints then cost more
    // instructions than the L1 misses they hide (8x8: 5% fewer instructions, 13% less time
    // together with the allocators' masks).
    const bool hints = !chain && router_storage_.size() * 8 > kHintBytes;
    const bool chain_or_hints = chain || hints;
    for (size_t k = 0; k < due.size(); ++k) {
        if (chain_or_hints) {  // one test per event where the mesh fits in cache
            if (chain) {
                if (k + kAhead < due.size()) prefetchChainEnds(due[k + kAhead].target);
            } else {
                if (k + 2 * kAhead < due.size()) hint(k + 2 * kAhead, false);
                if (k + kAhead < due.size()) hint(k + kAhead, true);
            }
        }
        const NetEvent& e = due[k];
        if (e.kind == NetEvent::WakeRouter) {
            if (router_wake_[e.target] == now) {
                router_wake_[e.target] = kNever;
                activate(e.target);
            }
        } else if (isExternal(e.target)) {
            if (e.kind == NetEvent::FlitToRouter) {
                external_[e.target]->acceptFlit(e.port, e.flit, now);
                activate(e.target);
            } else {
                external_[e.target]->acceptCredit(e.port, e.vc);
            }
        } else if (chain) {
            chainArrival(e.target, 0, uint32_t(k));
            activateFor(e.target, e.kind == NetEvent::CreditToRouter ? kCreditsOnly : kActive);
        } else if (e.kind == NetEvent::FlitToRouter) {
            routers_[e.target].acceptFlit(e.port, e.flit, now, this);
            activate(e.target);
        } else {
            routers_[e.target].acceptCredit(e.port, e.vc);
            if (routers_[e.target].buffered()) activate(e.target);
        }
    }
    injectNis(now);
    // Each router's arrivals in their scheduled order, then its allocation: the same per-router
    // sequence as before, so results do not change (a router touches only its own state, and
    // everything it sends is at least a cycle ahead). On large meshes the routers go in index
    // (memory) order, so their state streams through the cache instead of being hit at random.
    if (chain) radixSort(active_, sort_tmp_);
    size_t w = 0;
    for (size_t i = 0; i < active_.size(); ++i) {
        if (chain)
            prefetchVisits(active_.data(), i, active_.size(), 0);
        else if (hints && i + 8 < active_.size() && !isExternal(active_[i + 8]))
            routers_[active_[i + 8]].prefetchState();
        const uint32_t r = active_[i];
        if (visitRouter(r, now, nullptr)) active_[w++] = r;
    }
    active_.resize(w);
    checkProgress(now);
}

void Network::applyCredits(uint64_t now) {
    // Before or after the cycle's other arrivals: a credit touches only its output VC's count,
    // which no arrival does, and activating a router twice is activating it once.
    std::vector<CreditArrival>& due = credit_ring_[now & (kCreditRing - 1)];
    for (const CreditArrival& c : due) {
        Router& rt = routers_[c.router];
        rt.acceptCredit(c.port, c.vc);
        if (rt.buffered()) activate(c.router);
    }
    credits_pending_ -= due.size();
    due.clear();
}

uint64_t Network::nextCredit(uint64_t now) const {
    if (!credits_pending_) return kNever;
    for (uint64_t d = 1; d < kCreditRing; ++d)
        if (!credit_ring_[(now + d) & (kCreditRing - 1)].empty()) return now + d;
    return kNever;  // (every pending credit is due within the ring)
}

void Network::checkProgress(uint64_t now) {
    // Flits held by a refusing endpoint wait for that endpoint, not for the network: whether
    // the wait ends is the endpoints' question (CoreArray reports a schedule that cannot).
    if (flits_in_network_ > 0 && held_flits_ == 0 && now > last_progress_ &&
        now - last_progress_ >= p_.watchdog_cycles)
        throw DeadlockError(deadlockReport(now));
    if (flits_in_network_ == 0) last_progress_ = now;
}

void Network::niArrivals(uint64_t now) {
    ni_order_.sort(ni_due_, nis_.size());  // what endpoints see, whatever the order of visits
    // Arrivals at NIs: the NI and the flit's packet, then what taking the flit reads (the
    // ejection link the credit goes back on, the packets being received, and the message the
    // gate admits the flit by: its tag and size, a miss per flit with many messages in flight
    // when data arrives before its receive), fetched a few events ahead so misses overlap.
    constexpr size_t kAhead = 8;
    auto hintNi = [&](size_t k, bool deep) __attribute__((always_inline)) {  // see WSC_PREFETCH
        const NetEvent& e = ni_due_[k];
        const NetworkInterface& ni = nis_[e.target];
        // The NI first: a credit reads its count and the queue it may wake, and no more.
        if (!deep) ni.prefetchObject();
        if (e.kind != NetEvent::FlitToNi) return;
        // Both lines a 72-byte record may straddle (`record` is at its end).
        if (!deep) return prefetchRange(&packets_[e.flit.packet], sizeof(PacketInfo));
        ni.prefetchRx();
        prefetchLine(&links_[ni.ej_link]);
        if (!gate_) return;
        const uint32_t rec = packets_[e.flit.packet].record;
        if (rec < records_.size()) prefetchLine(&records_[rec].msg.tag);
    };
    for (size_t k = 0; k < ni_due_.size(); ++k) {
        if (k + 2 * kAhead < ni_due_.size()) hintNi(k + 2 * kAhead, false);
        if (k + kAhead < ni_due_.size()) hintNi(k + kAhead, true);
        const NetEvent& e = ni_due_[k];
        if (e.kind == NetEvent::FlitToNi) {
            nis_[e.target].acceptFlit(e.flit, now, *this);
        } else {
            nis_[e.target].acceptCredit(e.vc);
            if (nis_[e.target].active()) activateNi(e.target);
        }
    }
}

void Network::injectNis(uint64_t now) {
    const bool chain = chained_;
    size_t w = 0;
    for (size_t i = 0; i < active_nis_.size(); ++i) {
        if (chain) {  // a large network's NIs miss in cache like its routers
            const size_t a = active_nis_.size();
            // Two NIs between stages: an injection is too short for a line asked for one NI
            // earlier to land (inject() waited on its packet record: 2.5% of MeshGEMM P = 128).
            if (i + 6 < a) nis_[active_nis_[i + 6]].prefetchObject();
            if (i + 4 < a) nis_[active_nis_[i + 4]].prefetchTx();
            if (i + 2 < a) nis_[active_nis_[i + 2]].prefetchTxPacket(packets_.data());
        }
        uint32_t n = active_nis_[i];
        if (nis_[n].inject(now, *this))
            active_nis_[w++] = n;
        else
            ni_active_[n] = 0;
    }
    active_nis_.resize(w);
}

bool Network::visitRouter(uint32_t r, uint64_t now, StepLane* lane, uint32_t li) {
    uint64_t next;
    if (isExternal(r)) {
        external_[r]->evaluate(now, *this);
        next = external_[r]->buffered() > 0 ? now + 1 : kNever;
    } else {
        Router& rt = routers_[r];
        const std::vector<NetEvent>& due = due_[li];
        const std::vector<uint32_t>& next_event = ev_next_[li];
        for (uint32_t k = ev_head_[r]; k != kNoEvent; k = next_event[k]) {
            const NetEvent& e = due[k];
            if (e.kind == NetEvent::FlitToRouter)
                rt.acceptFlit(e.port, e.flit, now, this);
            else
                rt.acceptCredit(e.port, e.vc);
        }
        ev_head_[r] = kNoEvent;
        // A router that cannot move anything sleeps until an arrival (flit or credit) or the
        // cycle it named: no per-cycle re-evaluation of blocked flits.
        next = rt.evaluate(now, *this, lane);
        if (chained_) vc_lines_[r] = rt.busyVcLines();  // for prefetchVcs
    }
    if (next == now + 1) {
        if (chained_) router_active_[r] = kActive;  // (it may have been woken by credits only)
        return true;
    }
    router_active_[r] = 0;
    if (next != kNever && (router_wake_[r] <= now || next < router_wake_[r])) {
        router_wake_[r] = next;
        NetEvent e;
        e.target = r;
        e.kind = NetEvent::WakeRouter;
        schedule(now, next, e, lane);
    }
    return false;
}

WSC_PREFETCH void Network::prefetchVisits(const uint32_t* a, size_t i, size_t end,
                                          uint32_t li) const {
    // Each stage after the one before has landed (distances measured at 256x256: bench/noc.md).
    if (i + 12 < end) prefetchRouter(a[i + 12], li);
    if (i + 8 < end) prefetchVcs(a[i + 8]), prefetchChain(a[i + 8], li);
    if (i + 4 < end) prefetchArrivals(a[i + 4], li);
}

WSC_PREFETCH void Network::prefetchRouter(uint32_t r, uint32_t li) const {
    // The lines of the router object a visit reads (Router's member order) and the first of
    // its chained arrivals (the chain is walked a few routers later).
    // A router woken by credits alone, holding no flit and receiving none, only counts them
    // and finds nothing to allocate: of its object that visit reads the first two lines
    // (Router::prefetchHeader). On a quiet mesh that is the router each flit hop just left.
    if (router_active_[r] == kCreditsOnly && !vc_lines_[r])
        routers_[r].prefetchHeader();
    else
        routers_[r].prefetchObject();
    const uint32_t k = ev_head_[r];
    if (k != kNoEvent) prefetchLine(&due_[li][k]), prefetchLine(&ev_next_[li][k]);
}

WSC_PREFETCH void Network::prefetchChain(uint32_t r, uint32_t li) const {
    // The chain's second arrival and its link, from the first's (prefetchRouter asked for it
    // earlier): prefetchArrivals walks the chain link by link, and each link it had to wait
    // for was a miss (a fifth of Network::step at MeshGEMM P = 128).
    const uint32_t k = ev_head_[r];
    if (k == kNoEvent) return;
    const uint32_t k2 = ev_next_[li][k];
    if (k2 != kNoEvent) prefetchLine(&due_[li][k2]), prefetchLine(&ev_next_[li][k2]);
}

WSC_PREFETCH void Network::prefetchVcs(uint32_t r) const {
    // The VC records a visit reads: those busy after its last visit and those its chained
    // flits reach, found without reading the router object (asked for a few routers earlier,
    // it is often still on its way). Asking for all of a router's VCs instead filled the
    // core's outstanding-miss slots with lines a visit mostly does not read.
    if (isExternal(r)) return;
    Router::prefetchStorage(router_storage_.data() + router_words_ * r, topo_.ports(),
                            p_.router.vcs, vc_lines_[r]);
    // Its route table's record where routes were installed (prefetchArrivals reads it for the
    // entries a table-routed head looks up).
    if (tableHints()) prefetchLine(&table_.table(r));
}

WSC_PREFETCH void Network::prefetchArrivals(uint32_t r, uint32_t li) const {
    // The slots router r's chained flits will be written to (allocation reads them back in the
    // same visit; on a large mesh each is a miss). After prefetchVcs: this reads the VCs.
    if (isExternal(r)) return;
    const std::vector<NetEvent>& due = due_[li];
    for (uint32_t k = ev_head_[r]; k != kNoEvent; k = ev_next_[li][k]) {
        const NetEvent& e = due[k];
        if (e.kind != NetEvent::FlitToRouter) continue;
        routers_[r].prefetchArrival(e.port, e.flit.vc);
        // A head routed by its packet record (a table route or tree) reads it on arrival.
        if (e.flit.head() && !e.flit.dimensionOrder()) {
            prefetchLine(&packets_[e.flit.packet]);
            if (tableHints()) table_.table(r).prefetchEntries();
        }
    }
}

void Network::setChainRouters(size_t n) {
    // Crossing the threshold mid-run would hand the lanes an unsorted active list.
    if (last_step_ != kNever)
        throw std::logic_error("setChainRouters after the simulation started");
    chain_routers_ = n;
    applyDeferral();
}

std::vector<uint32_t> Network::laneBoundaries() const {
    return lane_lo_;
}

void Network::setLaneBoundaries(const std::vector<uint32_t>& first) {
    // Lanes' wheels hold their routers' events from the first step on (splitWheels).
    if (last_step_ != kNever)
        throw std::logic_error("setLaneBoundaries after the simulation started");
    bool ok = first.size() == lanes_.size() && !first.empty() && first[0] == 0;
    for (size_t t = 1; ok && t < first.size(); ++t)
        ok = first[t] > first[t - 1] && first[t] < routers_.size();
    if (!ok)
        throw std::invalid_argument(
            "setLaneBoundaries: one first router per thread, from 0, increasing, on the mesh");
    for (size_t t = 0; t < lanes_.size(); ++t) {
        lanes_[t].lo = first[t];
        lanes_[t].hi = t + 1 < lanes_.size() ? first[t + 1] : uint32_t(routers_.size());
    }
    lane_lo_ = first;
}

void Network::setThreads(unsigned n) {
    if (n == 0) throw std::invalid_argument("Network::setThreads: at least one thread");
    if (last_step_ != kNever) throw std::logic_error("setThreads after the simulation started");
    threads_.reset();
    lanes_.clear();
    lane_lo_.clear();
    chunks_.clear();
    sync_.reset();
    n = unsigned(std::min<size_t>(n, routers_.size()));  // a lane has at least one router
    if (n <= 1) return;
    threads_ = std::make_unique<StepThreads>(n);
    lanes_.resize(n);
    chunks_.resize(n * kChunksPerLane);
    sync_ = std::make_unique<StepSync>(n, chunks_.size());
    const uint64_t R = routers_.size();
    for (unsigned t = 0; t < n; ++t) {
        lanes_[t].lo = uint32_t(R * t / n);
        lanes_[t].hi = uint32_t(R * (t + 1) / n);
    }
    for (const StepLane::Range& l : lanes_) lane_lo_.push_back(l.lo);
}

void Network::splitWheels() {
    // Only where the threaded step runs: elsewhere one thread applies the events of the one
    // wheel.
    lane_wheels_ = threads_ && chained_ && external_.empty();
    // Credits to routers skip the wheel where arrivals are applied as they come (a chained step
    // applies them on the router's visit, in its chain).
    direct_credits_ = !chained_ && external_.empty();
    // returnCredit's ring ignores lanes: lanes must never see it.
    if (direct_credits_ && lane_wheels_) throw std::logic_error("Network: credit ring with lanes");
    if (!lane_wheels_) return;
    if (pendingEvents() != 0)
        throw std::logic_error("Network: events scheduled before the first step");
    wheels_.assign(lanes_.size(), EventWheel(wheel_horizon_));
    due_.resize(lanes_.size());
    ev_next_.resize(lanes_.size());
}

void Network::laneChain(uint32_t li, uint64_t now) {
    // The routers of its range still active from the last cycle (active_ is in index order),
    // then those this cycle's arrivals and wake-ups activate, chained as step() chains them.
    // The lane's own wheel holds its routers' events and no others (wheelOf), so a lane reads
    // only its share of the cycle's events however many lanes there are.
    StepLane::Range& lane = lanes_[li];
    const auto from = std::lower_bound(active_.begin(), active_.end(), lane.lo);
    const auto to = std::lower_bound(from, active_.end(), lane.hi);
    lane.active.assign(from, to);
    const std::vector<NetEvent>& due = due_[li];
    ev_next_[li].resize(due.size());
    for (size_t k = 0; k < due.size(); ++k) {
        if (k + 8 < due.size()) prefetchChainEnds(due[k + 8].target);
        const NetEvent& e = due[k];
        const uint32_t r = e.target;
        if (r < lane.lo || r >= lane.hi)
            throw std::logic_error(
                fmt::format("event for router {} in the wheel of lane {} (routers {}..{})", r, li,
                            lane.lo, lane.hi - 1));
        uint8_t why = kActive;
        if (e.kind == NetEvent::FlitToRouter || e.kind == NetEvent::CreditToRouter) {
            chainArrival(r, li, uint32_t(k));
            if (e.kind == NetEvent::CreditToRouter) why = kCreditsOnly;
        } else if (e.kind == NetEvent::WakeRouter && router_wake_[r] == now) {
            router_wake_[r] = kNever;
        } else {
            continue;
        }
        uint8_t& act = router_active_[r];
        if (!act) lane.active.push_back(r);
        act = std::max(act, why);
    }
    radixSort(lane.active, lane.sort_tmp);
}

void Network::visitChunk(size_t c, uint64_t now) {
    const uint32_t li = uint32_t(c / kChunksPerLane);
    const std::vector<uint32_t>& a = lanes_[li].active;
    const size_t k = c % kChunksPerLane;
    const size_t begin = a.size() * k / kChunksPerLane, end = a.size() * (k + 1) / kChunksPerLane;
    StepLane& out = chunks_[c];
    out.clear();
    out.lo = lanes_[li].lo;
    out.hi = lanes_[li].hi;
    // Cache hints stay inside the chunk: the next one may be another thread's, its routers
    // being written. So the first routers get their early stages here.
    for (size_t i = begin; i < end && i < begin + 12; ++i) prefetchRouter(a[i], li);
    for (size_t i = begin; i < end && i < begin + 8; ++i)
        prefetchVcs(a[i]), prefetchChain(a[i], li);
    for (size_t i = begin; i < end; ++i) {
        prefetchVisits(a.data(), i, end, li);
        if (visitRouter(a[i], now, &out, li)) out.keep.push_back(a[i]);
    }
}

void Network::mergeChunk(StepLane& chunk, uint32_t li, uint64_t now) {
    EventWheel& own = wheels_[li];
    for (uint64_t d = 1; d < StepLane::kNear; ++d) own.scheduleAll(now, now + d, chunk.near[d]);
    for (const StepLane::Scheduled& s : chunk.rest) schedule(now, s.at, s.e, nullptr);
    for (uint32_t slot : chunk.head_hops) ++packets_[slot].hops;
    traversals_ += chunk.traversals;
    flits_in_network_ = uint64_t(int64_t(flits_in_network_) + chunk.in_network);
    if (chunk.moved) last_progress_ = now;
    next_active_.insert(next_active_.end(), chunk.keep.begin(), chunk.keep.end());
}

void Network::visitThreaded(uint64_t now) {
    // Each lane chains the arrivals of a contiguous range of router indices and lists its
    // active routers in index order, while this thread first takes the NIs' arrivals and
    // injections (they touch no router state, and nothing is visited before they are done:
    // a delivery may send, and a new packet may move the packet table). Then every thread
    // visits chunks of the lists, its own lane's first, then the others' in order (waiting
    // for a lane whose chains are not ready), and this thread applies each chunk's effects in
    // chunk order as soon as it is done. Taking chunks rather than whole lanes keeps the
    // threads busy however the work or a thread's speed is spread. A router touches only its
    // own state, its output links and its own entries of the per-router tables, and reads what
    // no one writes during the visits (the cycle's arrivals, routes, the packet table's fields
    // other than hops), so no locks are needed; applying in chunk order after the NIs' own
    // events repeats the single-threaded order.
    next_active_.clear();
    StepSync& sync = *sync_;
    sync.reset();
    const size_t lanes = lanes_.size(), chunks = chunks_.size();
    size_t merged = 0;
    auto mergeNext = [&] {
        mergeChunk(chunks_[merged], uint32_t(merged / kChunksPerLane), now);
        ++merged;
    };
    // Until the flag is set; false if a member threw (its error is rethrown by run()).
    auto wait = [&sync](const std::atomic<uint8_t>& flag) {
        return StepThreads::await([&] { return flag.load(std::memory_order_acquire) != 0; },
                                  [&] { return sync.abort.load(std::memory_order_relaxed); });
    };
    auto take = [&](unsigned t) {  // the next chunk for thread t, `chunks` when none is left
        for (size_t i = 0; i <= lanes; ++i) {
            const size_t u = i == 0 ? t : i - 1;
            if (i > 0 && u == t) continue;
            const size_t k = sync.next_in_lane[u].fetch_add(1, std::memory_order_relaxed);
            if (k < kChunksPerLane) return u * kChunksPerLane + k;
        }
        return chunks;
    };
    threads_->run([&](unsigned t) {
        try {
            if (t == 0) {
                if (!posted_.empty()) enqueuePosted();  // while the others chain
                niArrivals(now);
                injectNis(now);
                sync.nis_done.store(1, std::memory_order_release);
            }
            laneChain(t, now);
            sync.lane_ready[t].store(1, std::memory_order_release);
            if (!wait(sync.nis_done)) return;
            for (;;) {
                while (t == 0 && merged < chunks &&
                       sync.chunk_done[merged].load(std::memory_order_acquire))
                    mergeNext();
                const size_t c = take(t);
                if (c >= chunks) break;
                if (!wait(sync.lane_ready[c / kChunksPerLane])) return;
                visitChunk(c, now);
                sync.chunk_done[c].store(1, std::memory_order_release);
            }
            while (t == 0 && merged < chunks) {
                if (!wait(sync.chunk_done[merged])) return;
                mergeNext();
            }
        } catch (...) {
            sync.abort.store(true, std::memory_order_relaxed);
            throw;
        }
    });
    active_.swap(next_active_);
    ++lane_cycles_;
}

uint64_t Network::nextActiveCycle(uint64_t now) const {
    if (!active_.empty() || !active_nis_.empty() || !retry_nis_.empty() || !posted_.empty())
        return now + 1;
    uint64_t next = std::min(ni_wheel_.nextAfter(now), nextCredit(now));
    for (const EventWheel& w : wheels_) next = std::min(next, w.nextAfter(now));
    // Every router waits for a credit or a VC and nothing is in flight: a deadlock, unless a
    // refusing endpoint holds flits. Step once more when the watchdog is due, so it reports.
    if (next == kNever && held_flits_ == 0 && flits_in_network_ > 0)
        return std::max(now + 1, last_progress_ + p_.watchdog_cycles);
    // Only flits held at refusing endpoints: step once more when the network counts as stalled,
    // so a driver waiting on it can tell (stalled()); after that nothing happens by itself.
    if (next == kNever && held_flits_ > 0 && last_progress_ + settle_ > now)
        return last_progress_ + settle_;
    return next;
}

void Network::checkConservation() const {
    if (flits_in_network_ != 0 || livePackets() != 0 || flits_ejected_ != expected_deliveries_)
        throw std::logic_error(fmt::format(
            "conservation: {} flit deliveries expected, {} flits ejected, {} flits still in the "
            "network, {} packets not fully delivered",
            expected_deliveries_, flits_ejected_, flits_in_network_, livePackets()));
}

void Network::markWindow() {
    for (auto& l : links_) l.markWindow();
}

uint64_t Network::linkRetries() const {
    uint64_t n = 0;
    for (const auto& l : links_) n += l.retries();
    return n;
}

double Network::linkEnergyPj() const {
    double e = 0;
    for (const auto& l : links_) e += l.energyPj();
    return e;
}

uint32_t Network::maxBufferOccupancy() const {
    uint32_t m = 0;
    for (const auto& r : routers_)
        m = std::max(m, isExternal(r.id()) ? external_[r.id()]->maxOccupancy() : r.maxOccupancy());
    return m;
}

std::string Network::linkName(uint32_t l) const {
    const Link& k = links_[l];
    switch (k.kind()) {
        case Link::Kind::Injection:
            return fmt::format("ni{}->{}.{}", k.src, topo_.name(k.dst),
                               Topology::portName(k.dst_port));
        case Link::Kind::Ejection:
            return fmt::format("{}.{}->ni{}", topo_.name(k.src), Topology::portName(k.src_port),
                               k.dst);
        default:
            return fmt::format("{}.{}->{}", topo_.name(k.src), Topology::portName(k.src_port),
                               topo_.name(k.dst));
    }
}

std::string Network::deadlockReport(uint64_t now) const {
    std::string s = fmt::format(
        "deadlock watchdog: no flit moved for {} cycles (cycle {}), {} flits in the network\n",
        now - last_progress_, now, flits_in_network_);
    static const char* states[] = {"idle", "waiting for a VC", "waiting for credit/switch"};
    std::vector<Router::Stuck> stuck;
    size_t shown = 0;
    for (const auto& r : routers_) {
        stuck.clear();
        r.stuckFlits(stuck);
        for (const auto& st : stuck) {
            if (shown++ >= 64) continue;
            const PacketInfo& pk = packets_[st.flit.packet];
            std::string outs;
            for (uint8_t m = st.out_mask; m; m &= m - 1)
                outs += std::string(outs.empty() ? "" : ",") + Topology::portName(__builtin_ctz(m));
            s += fmt::format(
                "  {} in {} vc {}: flit {}/{} of packet {} (node {} -> {}{}), {} on out [{}]\n",
                topo_.name(r.id()), Topology::portName(st.port), st.vc, st.flit.seq + 1, pk.flits,
                pk.id, pk.src, pk.route == kNoRoute ? std::to_string(pk.dst) : "route",
                pk.route == kNoRoute ? "" : " " + std::to_string(pk.route), states[st.state], outs);
        }
    }
    if (shown > 64) s += fmt::format("  ... and {} more\n", shown - 64);
    s += waitCycle();
    return s;
}

// The wait-for graph of the stuck input VCs: a head waiting for a VC waits for the input VCs at
// its router that own the VCs it needs; a flit waiting for credit waits for the downstream input
// VC its output VC feeds. A deadlock is a cycle in it; naming one tells the user which routes
// or schedules close the loop. Ejection never waits (the NI drains every cycle).
std::string Network::waitCycle() const {
    const uint32_t P = topo_.ports(), V = p_.router.vcs;
    auto key = [&](uint32_t r, uint32_t port, uint32_t vc) {
        return (uint64_t(r) * P + port) * V + vc;
    };
    std::unordered_map<uint64_t, std::vector<uint64_t>> next;
    std::unordered_map<uint64_t, std::pair<uint32_t, Router::Stuck>> node;
    std::vector<Router::Stuck> stuck;
    for (const auto& r : routers_) {
        if (isExternal(r.id())) continue;
        stuck.clear();
        r.stuckFlits(stuck);
        for (const auto& st : stuck) {
            const uint64_t k = key(r.id(), st.port, st.vc);
            node.emplace(k, std::make_pair(r.id(), st));
            auto& out = next[k];
            if (st.state == 1) {
                for (uint8_t m = st.need_vc & ((1u << Topology::kFirstLocal) - 1); m; m &= m - 1) {
                    const uint8_t o = static_cast<uint8_t>(__builtin_ctz(m));
                    for (uint32_t v = st.vc_lo; v < st.vc_hi; ++v) {
                        const uint8_t w = r.owner(o, static_cast<uint8_t>(v));
                        if (w != Router::kFree) out.push_back(key(r.id(), w / V, w % V));
                    }
                }
            } else if (st.state == 2) {
                for (uint8_t m = st.pending & ((1u << Topology::kFirstLocal) - 1); m; m &= m - 1) {
                    const uint8_t o = static_cast<uint8_t>(__builtin_ctz(m));
                    const uint32_t l = r.outLink(o);
                    if (l == Router::kNoLink || r.credits(o, st.out_vc[o]) > 0) continue;
                    const Link& link = links_[l];
                    out.push_back(key(link.dst, link.dst_port, st.out_vc[o]));
                }
            }
        }
    }
    // Iterative DFS; the first back edge closes the cycle reported.
    std::unordered_map<uint64_t, uint8_t> color;  // 0 new, 1 on stack, 2 done
    std::vector<std::pair<uint64_t, size_t>> stack;
    std::vector<uint64_t> cycle;
    for (const auto& [start, unused] : next) {
        (void)unused;
        if (color[start]) continue;
        stack.push_back({start, 0});
        color[start] = 1;
        while (!stack.empty() && cycle.empty()) {
            auto& [v, i] = stack.back();
            const auto it = next.find(v);
            if (it == next.end() || i >= it->second.size()) {
                color[v] = 2;
                stack.pop_back();
                continue;
            }
            const uint64_t w = it->second[i++];
            if (!node.count(w)) continue;  // waits on something that is not stuck
            if (color[w] == 1) {
                size_t j = stack.size();
                while (stack[j - 1].first != w) --j;
                for (size_t q = j - 1; q < stack.size(); ++q) cycle.push_back(stack[q].first);
            } else if (color[w] == 0) {
                color[w] = 1;
                stack.push_back({w, 0});
            }
        }
        stack.clear();
        if (!cycle.empty()) break;
    }
    if (cycle.empty())
        return "  no cycle of waits among the stuck VCs (a flit may wait on an RTL router)\n";
    std::string s =
        fmt::format("  cycle of waits ({} input VCs, each waits for the next):\n", cycle.size());
    size_t n = 0;
    for (uint64_t k : cycle) {
        if (n++ == 24) {
            s += fmt::format("    ... {} more\n", cycle.size() - 24);
            break;
        }
        const auto& [r, st] = node.at(k);
        const PacketInfo& pk = packets_[st.flit.packet];
        s += fmt::format("    {} in {} vc {} (packet {}, node {} -> {}{}) {}\n", topo_.name(r),
                         Topology::portName(st.port), st.vc, pk.id, pk.src,
                         pk.route == kNoRoute ? std::to_string(pk.dst) : "route ",
                         pk.route == kNoRoute ? "" : std::to_string(pk.route),
                         st.state == 1 ? "needs a VC held by" : "needs credit from");
    }
    s += "    (back to the first)\n";
    return s;
}

void Network::dumpStats(nlohmann::json& out) const {
    using nlohmann::json;
    json net = {{"flits_injected", flits_injected_},
                {"flits_ejected", flits_ejected_},
                {"flit_router_traversals", traversals_},
                {"packets_created", packets_created_},
                {"packet_deliveries", packet_deliveries_},
                {"flits_in_network", flits_in_network_},
                {"link_retries", linkRetries()},
                {"link_energy_pj", linkEnergyPj()},
                {"max_buffer_occupancy_flits", maxBufferOccupancy()}};
    json routers = json::object();
    for (const auto& r : routers_) {
        const bool ext = isExternal(r.id());
        routers[topo_.name(r.id())] = {
            {"flit_traversals", ext ? external_[r.id()]->traversals() : r.traversals()},
            {"max_vc_occupancy_flits", ext ? external_[r.id()]->maxOccupancy() : r.maxOccupancy()},
            {"route_entries", table_.table(r.id()).size()},
            {"model", ext ? "rtl" : "c++"}};
    }
    json links = json::object();
    static const char* kinds[] = {"on-die", "d2d", "injection", "ejection"};
    for (uint32_t l = 0; l < links_.size(); ++l) {
        const Link& k = links_[l];
        links[linkName(l)] = {{"kind", kinds[static_cast<int>(k.kind())]},
                              {"flits", k.flits()},
                              {"busy_cycles", k.busyCycles()},
                              {"retries", k.retries()},
                              {"bits", k.bitsSent()},
                              {"energy_pj", k.energyPj()},
                              {"length_mm", k.spec().length_mm},
                              {"flight_cycles", k.flight()},
                              {"fec", k.spec().fec > 0}};
    }
    json nis = json::object();
    for (const auto& n : nis_)
        nis[fmt::format("ni{}", n.node())] = {{"flits_injected", n.flitsInjected()},
                                              {"flits_ejected", n.flitsEjected()},
                                              {"packets_ejected", n.packetsEjected()},
                                              {"flits_held", n.held()}};
    // Moved, not copied: a wafer's per-link records are gigabytes of tree.
    out["network"] = std::move(net);
    out["routers"] = std::move(routers);
    out["links"] = std::move(links);
    out["nis"] = std::move(nis);
}

}  // namespace wsc::noc
