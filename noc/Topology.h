#pragma once
// Geometry of a kx x ky mesh (optionally a torus) partitioned into dies. Pure arithmetic: which
// router is where, who its neighbours are, how long each link is physically and whether it is a
// die-to-die link. Port numbering: 0 East (x+1), 1 West (x-1), 2 North (y-1), 3 South (y+1),
// then the local (NI) ports. Row 0 is the top row, as in the papers' mesh figures.
#include <cstdint>
#include <string>
#include <vector>

#include "noc/NocParams.h"

namespace wsc::noc {

class Topology {
  public:
    static constexpr uint8_t kEast = 0, kWest = 1, kNorth = 2, kSouth = 3, kFirstLocal = 4;
    static constexpr uint32_t kNone = 0xFFFFFFFFu;

    explicit Topology(const TopologyParams& p);

    uint32_t kx() const { return p_.x; }
    uint32_t ky() const { return p_.y; }
    uint32_t routers() const { return p_.x * p_.y; }
    uint32_t localPorts() const { return p_.local_ports; }
    uint32_t ports() const { return kFirstLocal + p_.local_ports; }
    uint32_t nodes() const { return routers() * p_.local_ports; }
    bool torus() const { return p_.wrap; }

    // Coordinates are looked up, not divided out: route computation runs once per head flit.
    uint32_t x(uint32_t r) const { return xs_[r]; }
    uint32_t y(uint32_t r) const { return ys_[r]; }
    uint32_t router(uint32_t x, uint32_t y) const { return y * p_.x + x; }
    uint32_t routerOfNode(uint32_t n) const { return p_.local_ports == 1 ? n : n / p_.local_ports; }
    uint8_t portOfNode(uint32_t n) const {
        return static_cast<uint8_t>(kFirstLocal + (p_.local_ports == 1 ? 0 : n % p_.local_ports));
    }
    uint32_t node(uint32_t r, uint32_t local) const { return r * p_.local_ports + local; }

    // Neighbour across a mesh port, or kNone at a mesh edge without wrap.
    uint32_t neighbor(uint32_t r, uint8_t port) const;
    static uint8_t opposite(uint8_t port) { return port ^ 1u; }
    static bool isLocal(uint8_t port) { return port >= kFirstLocal; }
    bool isWrap(uint32_t r, uint8_t port) const;
    // A link is a D2D link when it joins two dies or wraps around the mesh.
    bool isD2D(uint32_t r, uint8_t port) const;
    // The link leaves its wafer (a D2D link between two wafers of a multi-wafer system).
    bool isW2W(uint32_t r, uint8_t port) const;
    double linkLengthMm(uint32_t r, uint8_t port) const;
    uint32_t dieOf(uint32_t r) const;
    uint32_t dieWidth() const { return die_x_; }  // routers per die along x
    uint32_t dieHeight() const { return die_y_; }
    uint32_t diesX() const { return p_.x / die_x_; }
    uint32_t diesY() const { return p_.y / die_y_; }
    // Minimal router-to-router hop count (torus-aware).
    uint32_t distance(uint32_t a, uint32_t b) const;
    std::string name(uint32_t r) const;  // "r(x,y)"
    static const char* portName(uint8_t port);

  private:
    double posMm(uint32_t i, uint32_t per_die) const;
    TopologyParams p_;
    uint32_t die_x_, die_y_;
    std::vector<uint16_t> xs_, ys_;
};

}  // namespace wsc::noc
