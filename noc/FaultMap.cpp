#include "noc/FaultMap.h"

#include <fmt/format.h>

#include <random>
#include <stdexcept>

namespace wsc::noc {

FaultMap::FaultMap(const Topology& topo, const FaultParams& f) : topo_(topo) {
    any_ = f.any();
    if (!any_) return;
    const uint32_t R = topo.routers();
    link_dead_.assign(size_t(R) * 4, 0);
    router_dead_.assign(R, 0);
    auto kill = [&](uint32_t r, uint8_t port) {
        uint32_t n = topo.neighbor(r, port);
        if (n == Topology::kNone)
            throw std::invalid_argument(
                fmt::format("failed link {} port {}: there is no link there", topo.name(r),
                            Topology::portName(port)));
        if (!link_dead_[r * 4 + port]) ++failed_links_;
        link_dead_[r * 4 + port] = 1;
        link_dead_[n * 4 + Topology::opposite(port)] = 1;
    };
    for (const auto& l : f.links) {
        if (l.x >= topo.kx() || l.y >= topo.ky() || l.port > 3)
            throw std::invalid_argument(
                fmt::format("failed link ({},{}) port {} is outside the {}x{} mesh", l.x, l.y,
                            l.port, topo.kx(), topo.ky()));
        kill(topo.router(l.x, l.y), l.port);
    }
    for (uint32_t r : f.routers) {
        if (r >= R) throw std::invalid_argument(fmt::format("failed router {} does not exist", r));
        if (!router_dead_[r]) ++failed_routers_;
        router_dead_[r] = 1;
    }
    if (f.link_rate > 0) {
        if (f.link_rate > 1) throw std::invalid_argument("link fault rate must be in [0, 1]");
        std::mt19937_64 rng(f.seed);
        std::bernoulli_distribution fail(f.link_rate);
        // Each physical link once: from its west or north end.
        for (uint32_t r = 0; r < R; ++r)
            for (uint8_t port : {Topology::kEast, Topology::kSouth})
                if (topo.neighbor(r, port) != Topology::kNone && fail(rng) &&
                    !link_dead_[r * 4 + port])
                    kill(r, port);
    }
}

bool FaultMap::linkDead(uint32_t r, uint8_t port) const {
    if (!any_) return false;
    uint32_t n = topo_.neighbor(r, port);
    return n == Topology::kNone || link_dead_[r * 4 + port] || router_dead_[r] || router_dead_[n];
}

}  // namespace wsc::noc
