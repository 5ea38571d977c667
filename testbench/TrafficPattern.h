#pragma once
// Synthetic destination patterns (Dally & Towles ch. 3; BookSim's names), over routers of a
// kx x ky mesh. With several local ports per router, the source's local index is kept.
// Bit patterns act on the router index and need a power-of-two router count; transpose needs a
// square mesh. Uniform may pick the source itself (so average hops match 2(k^2-1)/(3k)).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "noc/Topology.h"

namespace wsc::tb {

class TrafficPattern {
  public:
    enum class Kind {
        Uniform,
        Transpose,
        BitComplement,
        BitReverse,
        Shuffle,
        Tornado,
        Neighbor,
        Hotspot
    };

    // Throws std::invalid_argument naming the pattern and the requirement it fails.
    TrafficPattern(const std::string& name, const noc::Topology& topo, uint32_t hotspot_node = 0,
                   double hotspot_fraction = 0.2);
    static const std::vector<std::string>& names();

    uint32_t dest(uint32_t src_node, std::mt19937_64& rng) const;
    Kind kind() const { return kind_; }
    const std::string& name() const { return name_; }

  private:
    uint32_t destRouter(uint32_t r) const;
    std::string name_;
    Kind kind_;
    const noc::Topology& topo_;
    uint32_t bits_ = 0;
    uint32_t hotspot_;
    double hotspot_fraction_;
};

}  // namespace wsc::tb
