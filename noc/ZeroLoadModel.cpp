#include "noc/ZeroLoadModel.h"

#include <algorithm>
#include <random>

namespace wsc::noc {

uint64_t ZeroLoadModel::packetLatency(uint32_t src, uint32_t dst, uint32_t flits) const {
    const Topology& t = net_.topology();
    const uint32_t P = net_.params().router.hopCycles();
    if (sums_ && sums_->flits == flits && src < sums_->inj.size() && dst < sums_->ej.size()) {
        const PathSums& q = *sums_;
        const uint32_t rs = t.routerOfNode(src), rd = t.routerOfNode(dst);
        const uint32_t sx = rs % q.kx, sy = rs / q.kx, dx = rd % q.kx, dy = rd / q.kx;
        auto seg = [](const std::vector<uint64_t>& up, const std::vector<uint64_t>& down,
                      size_t line, uint32_t a, uint32_t b) {
            return b > a ? up[line + b] - up[line + a] : down[line + a] - down[line + b];
        };
        auto xseg = [&](uint32_t y) { return seg(q.east, q.west, size_t(y) * q.kx, sx, dx); };
        auto yseg = [&](uint32_t x) { return seg(q.south, q.north, size_t(x) * q.ky, sy, dy); };
        // XY runs along the source's row, then the destination's column; YX the other way.
        const uint64_t links = q.x_first ? xseg(sy) + yseg(dx) : yseg(sx) + xseg(dy);
        const uint64_t d = (dx > sx ? dx - sx : sx - dx) + (dy > sy ? dy - sy : sy - dy);
        return uint64_t(q.inj[src]) + q.ej[dst] + uint64_t(P) * (d + 1) + links + q.flit_term;
    }
    const Link& inj = net_.link(net_.ni(src).inj_link);
    uint64_t lat = inj.flight();
    uint32_t bottleneck = inj.serialization();
    uint32_t r = t.routerOfNode(src);
    uint8_t in = t.portOfNode(src);
    while (true) {
        lat += P;
        uint8_t out = net_.unicastNextPort(r, in, dst);
        if (out == UpDownRouting::kUnreachable) return kNever;
        if (Topology::isLocal(out)) {
            const Link& l = net_.link(net_.ni(dst).ej_link);
            lat += l.flight();
            bottleneck = std::max(bottleneck, l.serialization());
            break;
        }
        // The router's copy of its output link's flight and serialization (Router::Peer): on
        // a large mesh the link records are one more cache miss per hop, and a sampled mean
        // walks kSampledPairs paths.
        const Router::Peer& pe = net_.router(r).outPeer(out);
        lat += pe.cycles;
        bottleneck = std::max<uint32_t>(bottleneck, pe.ser);
        r = t.neighbor(r, out);
        in = Topology::opposite(out);
    }
    return lat + uint64_t(flits - 1) * bottleneck;
}

uint32_t ZeroLoadModel::hops(uint32_t src, uint32_t dst) const {
    const Topology& t = net_.topology();
    return t.distance(t.routerOfNode(src), t.routerOfNode(dst));
}

double ZeroLoadModel::uniformMeanLatency(uint32_t flits, uint64_t* sampled) const {
    const uint32_t N = net_.nodes();
    double sum = 0;
    uint64_t n = 0;
    // O(1) a pair where the path sums apply (built only for the enumeration: beyond it they
    // apply exactly where the closed form does), the walk elsewhere.
    ZeroLoadModel quick(*this);
    // Pairs a fault makes unreachable are left out (the testbench does not send them either).
    auto add = [&](uint32_t s, uint32_t d) {
        if (!net_.reachable(s, d)) return;
        sum += quick.packetLatency(s, d, flits);
        ++n;
    };
    double exact = 0;
    if (N <= kExactNodes) {
        quick.buildPathSums(flits);
        for (uint32_t s = 0; s < N; ++s)
            for (uint32_t d = 0; d < N; ++d) add(s, d);
        if (sampled) *sampled = 0;
    } else if (exactUniformMean(flits, exact)) {
        if (sampled) *sampled = 0;
        return exact;
    } else {
        std::mt19937_64 rng(12345);
        for (uint32_t i = 0; i < kSampledPairs; ++i) add(rng() % N, rng() % N);
        if (sampled) *sampled = n;
    }
    return n ? sum / n : 0.0;
}

template <class F>
void ZeroLoadModel::forEachMeshLink(F f) const {
    // Rows, then columns; in each line the pair of links between positions c and c + 1.
    const Topology& t = net_.topology();
    const uint32_t kx = t.kx(), ky = t.ky();
    for (uint32_t y = 0; y < ky; ++y)
        for (uint32_t x = 0; x + 1 < kx; ++x)
            f(true, y, x, kx, net_.router(t.router(x, y)).outPeer(Topology::kEast),
              net_.router(t.router(x + 1, y)).outPeer(Topology::kWest));
    for (uint32_t x = 0; x < kx; ++x)
        for (uint32_t y = 0; y + 1 < ky; ++y)
            f(false, x, y, ky, net_.router(t.router(x, y)).outPeer(Topology::kSouth),
              net_.router(t.router(x, y + 1)).outPeer(Topology::kNorth));
}

uint32_t ZeroLoadModel::commonSerialization() const {
    uint32_t ser = 0;
    bool one = true;
    auto see = [&](uint32_t s) {
        if (ser == 0) ser = s;
        one = one && s == ser;
    };
    for (uint32_t n = 0; n < net_.nodes(); ++n) {
        see(net_.link(net_.ni(n).inj_link).serialization());
        see(net_.link(net_.ni(n).ej_link).serialization());
    }
    forEachMeshLink(
        [&](bool, uint32_t, uint32_t, uint32_t, const Router::Peer& up, const Router::Peer& down) {
            see(up.ser);
            see(down.ser);
        });
    return one ? ser : 0;
}

bool ZeroLoadModel::linkSumsApply(uint32_t flits, uint64_t& flit_term) const {
    if (net_.topology().torus() || !net_.unicastByDimensionOrder() || flits == 0) return false;
    if (flits == 1) {
        flit_term = 0;
        return true;
    }
    const uint32_t ser = commonSerialization();
    if (ser == 0) return false;
    flit_term = uint64_t(flits - 1) * ser;
    return true;
}

bool ZeroLoadModel::buildPathSums(uint32_t flits) {
    uint64_t flit_term = 0;
    if (!linkSumsApply(flits, flit_term)) return false;
    const Topology& t = net_.topology();
    auto q = std::make_shared<PathSums>();
    q->flits = flits;
    q->flit_term = flit_term;
    q->kx = t.kx();
    q->ky = t.ky();
    q->x_first = net_.params().routing != RoutingAlgo::YX;  // as dimension-order routing reads it
    q->east.assign(size_t(q->kx) * q->ky, 0);
    q->west.assign(q->east.size(), 0);
    q->south.assign(q->east.size(), 0);
    q->north.assign(q->east.size(), 0);
    // Per line (a row for east/west, a column for south/north, i = line * k + position) the
    // flights of the links from its first router up to each router, one way and the other.
    forEachMeshLink([&](bool row, uint32_t line, uint32_t c, uint32_t k, const Router::Peer& up,
                        const Router::Peer& down) {
        const size_t i = size_t(line) * k + c;
        std::vector<uint64_t>& a = row ? q->east : q->south;
        std::vector<uint64_t>& b = row ? q->west : q->north;
        a[i + 1] = a[i] + up.cycles;
        b[i + 1] = b[i] + down.cycles;
    });
    q->inj.resize(net_.nodes());
    q->ej.resize(net_.nodes());
    for (uint32_t n = 0; n < net_.nodes(); ++n) {
        q->inj[n] = net_.link(net_.ni(n).inj_link).flight();
        q->ej[n] = net_.link(net_.ni(n).ej_link).flight();
    }
    sums_ = std::move(q);
    return true;
}

bool ZeroLoadModel::exactUniformMean(uint32_t flits, double& mean) const {
    const Topology& t = net_.topology();
    uint64_t flit_term = 0;
    if (!linkSumsApply(flits, flit_term)) return false;
    // Sums over all pairs in 128 bits: at 1024 x 1024 routers a link's pair count times the
    // mesh side times its flight can pass 64 bits.
    using Sum = unsigned __int128;
    const uint64_t kx = t.kx(), ky = t.ky(), L = t.localPorts(), N = net_.nodes();
    // Every pair (s, d) pays s's injection and d's ejection: each node's N times.
    Sum ends = 0;
    for (uint32_t n = 0; n < N; ++n) {
        const Link& in = net_.link(net_.ni(n).inj_link);
        const Link& out = net_.link(net_.ni(n).ej_link);
        ends += in.flight() + out.flight();
    }
    // The link from column c to c + 1 (either way) in a row is crossed by the router pairs
    // with the source on one side and the destination on the other: (c + 1)(kx - 1 - c) in the
    // row, and its row is the one the route runs along for ky of the other coordinate's
    // values (XY: any destination row; YX: any source row). Likewise for columns.
    Sum links = 0, dist = 0;  // flights and hop counts over router pairs
    forEachMeshLink([&](bool row, uint32_t, uint32_t c, uint32_t k, const Router::Peer& up,
                        const Router::Peer& down) {
        const Sum pairs = Sum(c + 1) * (k - 1 - c) * (row ? ky : kx);
        links += pairs * (uint64_t(up.cycles) + down.cycles);
        dist += 2 * pairs;
    });
    // Per pair: injection + ejection + (D + 1) routers x P + the D links' flights
    // + (F - 1) x the per-flit time (packetLatency); node pairs are L^2 per router pair.
    const uint64_t P = net_.params().router.hopCycles();
    const Sum NN = Sum(N) * N;
    Sum total = Sum(N) * ends + Sum(P) * (NN + Sum(L) * L * dist) + Sum(L) * L * links;
    total += NN * flit_term;
    mean = double(total) / double(NN);
    return true;
}

double ZeroLoadModel::uniformMeanHops() const {
    // Sum over dimensions of the mean |a - b| for independent uniform a, b on a line (or ring).
    const Topology& t = net_.topology();
    auto dim = [&](uint32_t k) {
        double s = 0;
        for (uint32_t a = 0; a < k; ++a)
            for (uint32_t b = 0; b < k; ++b) {
                uint32_t d = a > b ? a - b : b - a;
                s += t.torus() ? std::min(d, k - d) : d;
            }
        return s / (double(k) * k);
    };
    return dim(t.kx()) + dim(t.ky());
}

}  // namespace wsc::noc
