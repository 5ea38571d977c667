#include "testbench/TrafficPattern.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::tb {

const std::vector<std::string>& TrafficPattern::names() {
    static const std::vector<std::string> n = {"uniform", "transpose", "bitcomp",  "bitrev",
                                               "shuffle", "tornado",   "neighbor", "hotspot"};
    return n;
}

TrafficPattern::TrafficPattern(const std::string& name, const noc::Topology& topo,
                               uint32_t hotspot_node, double hotspot_fraction)
    : name_(name), topo_(topo), hotspot_(hotspot_node), hotspot_fraction_(hotspot_fraction) {
    static const Kind kinds[] = {Kind::Uniform,    Kind::Transpose, Kind::BitComplement,
                                 Kind::BitReverse, Kind::Shuffle,   Kind::Tornado,
                                 Kind::Neighbor,   Kind::Hotspot};
    const auto& n = names();
    size_t i = 0;
    while (i < n.size() && n[i] != name) ++i;
    if (i == n.size())
        throw std::invalid_argument(fmt::format(
            "unknown traffic pattern '{}': expected one of uniform, transpose, bitcomp, bitrev, "
            "shuffle, tornado, neighbor, hotspot",
            name));
    kind_ = kinds[i];
    uint32_t R = topo.routers();
    bool pow2 = R && !(R & (R - 1));
    while ((1u << bits_) < R) ++bits_;
    if ((kind_ == Kind::BitComplement || kind_ == Kind::BitReverse || kind_ == Kind::Shuffle) &&
        !pow2)
        throw std::invalid_argument(fmt::format(
            "traffic pattern '{}' needs a power-of-two number of routers, the mesh has {}", name,
            R));
    if (kind_ == Kind::Transpose && topo.kx() != topo.ky())
        throw std::invalid_argument(
            fmt::format("traffic pattern 'transpose' needs a square mesh, this one is {}x{}",
                        topo.kx(), topo.ky()));
    if (kind_ == Kind::Hotspot && hotspot_node >= topo.nodes())
        throw std::invalid_argument(fmt::format(
            "hotspot node {} does not exist (mesh has {} nodes)", hotspot_node, topo.nodes()));
    if (hotspot_fraction < 0 || hotspot_fraction > 1)
        throw std::invalid_argument("hotspot fraction must be in [0, 1]");
}

uint32_t TrafficPattern::destRouter(uint32_t r) const {
    const uint32_t kx = topo_.kx(), ky = topo_.ky(), x = topo_.x(r), y = topo_.y(r);
    const uint32_t mask = (1u << bits_) - 1;
    switch (kind_) {
        case Kind::Transpose:
            return topo_.router(y, x);
        case Kind::BitComplement:
            return ~r & mask;
        case Kind::BitReverse: {
            uint32_t d = 0;
            for (uint32_t b = 0; b < bits_; ++b)
                if (r & (1u << b)) d |= 1u << (bits_ - 1 - b);
            return d;
        }
        case Kind::Shuffle:
            return ((r << 1) | (r >> (bits_ - 1))) & mask;
        case Kind::Tornado: {
            // Half-way round each ring minus one: the worst case for dimension-order on a torus.
            uint32_t ox = (kx + 1) / 2 - 1, oy = (ky + 1) / 2 - 1;
            return topo_.router((x + ox) % kx, (y + oy) % ky);
        }
        case Kind::Neighbor:
            return topo_.router((x + 1) % kx, (y + 1) % ky);
        default:
            return r;
    }
}

uint32_t TrafficPattern::dest(uint32_t src, std::mt19937_64& rng) const {
    const uint32_t N = topo_.nodes();
    if (kind_ == Kind::Uniform) return static_cast<uint32_t>(rng() % N);
    if (kind_ == Kind::Hotspot) {
        double u = (rng() >> 11) * 0x1.0p-53;
        return u < hotspot_fraction_ ? hotspot_ : static_cast<uint32_t>(rng() % N);
    }
    uint32_t r = topo_.routerOfNode(src);
    uint32_t local = src % topo_.localPorts();
    return topo_.node(destRouter(r), local);
}

}  // namespace wsc::tb
