#include "noc/ZeroLoadModel.h"

#include <algorithm>
#include <random>

namespace wsc::noc {

uint64_t ZeroLoadModel::packetLatency(uint32_t src, uint32_t dst, uint32_t flits) const {
    const Topology& t = net_.topology();
    const uint32_t P = net_.params().router.hopCycles();
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
    // Pairs a fault makes unreachable are left out (the testbench does not send them either).
    auto add = [&](uint32_t s, uint32_t d) {
        if (!net_.reachable(s, d)) return;
        sum += packetLatency(s, d, flits);
        ++n;
    };
    if (N <= kExactNodes) {
        for (uint32_t s = 0; s < N; ++s)
            for (uint32_t d = 0; d < N; ++d) add(s, d);
        if (sampled) *sampled = 0;
    } else {
        std::mt19937_64 rng(12345);
        for (uint32_t i = 0; i < kSampledPairs; ++i) add(rng() % N, rng() % N);
        if (sampled) *sampled = n;
    }
    return n ? sum / n : 0.0;
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
