#include "noc/Topology.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace wsc::noc {

Topology::Topology(const TopologyParams& p) : p_(p) {
    if (p.x == 0 || p.y == 0) throw std::invalid_argument("mesh must be at least 1 x 1");
    if (p.x > 65535 || p.y > 65535) throw std::invalid_argument("mesh sides must be <= 65535");
    if (p.local_ports == 0 || p.local_ports > 4)
        throw std::invalid_argument("local_ports must be 1..4");
    xs_.resize(size_t(p.x) * p.y);
    ys_.resize(xs_.size());
    for (uint32_t r = 0; r < xs_.size(); ++r) xs_[r] = r % p.x, ys_[r] = r / p.x;
    die_x_ = p.die_x ? p.die_x : p.x;
    die_y_ = p.die_y ? p.die_y : p.y;
    if (p.x % die_x_ || p.y % die_y_)
        throw std::invalid_argument(fmt::format(
            "die of {}x{} routers does not divide the {}x{} mesh", die_x_, die_y_, p.x, p.y));
    // Dies must physically fit: the gap between neighbouring dies' edge routers must be positive.
    if ((die_x_ < p.x && p.die_pitch_mm <= (die_x_ - 1) * p.core_pitch_mm) ||
        (die_y_ < p.y && p.die_pitch_mm <= (die_y_ - 1) * p.core_pitch_mm))
        throw std::invalid_argument(
            fmt::format("die pitch {} mm is too small for {} routers at {} mm core pitch",
                        p.die_pitch_mm, std::max(die_x_, die_y_), p.core_pitch_mm));
}

uint32_t Topology::neighbor(uint32_t r, uint8_t port) const {
    uint32_t cx = x(r), cy = y(r);
    switch (port) {
        case kEast:
            if (cx + 1 < p_.x) return router(cx + 1, cy);
            return (p_.wrap && p_.x > 1) ? router(0, cy) : kNone;
        case kWest:
            if (cx > 0) return router(cx - 1, cy);
            return (p_.wrap && p_.x > 1) ? router(p_.x - 1, cy) : kNone;
        case kNorth:
            if (cy > 0) return router(cx, cy - 1);
            return (p_.wrap && p_.y > 1) ? router(cx, p_.y - 1) : kNone;
        case kSouth:
            if (cy + 1 < p_.y) return router(cx, cy + 1);
            return (p_.wrap && p_.y > 1) ? router(cx, 0) : kNone;
        default:
            return kNone;
    }
}

bool Topology::isWrap(uint32_t r, uint8_t port) const {
    if (!p_.wrap) return false;
    uint32_t cx = x(r), cy = y(r);
    switch (port) {
        case kEast:
            return cx + 1 == p_.x && p_.x > 1;
        case kWest:
            return cx == 0 && p_.x > 1;
        case kNorth:
            return cy == 0 && p_.y > 1;
        case kSouth:
            return cy + 1 == p_.y && p_.y > 1;
        default:
            return false;
    }
}

uint32_t Topology::dieOf(uint32_t r) const {
    uint32_t dx = x(r) / die_x_, dy = y(r) / die_y_;
    return dy * (p_.x / die_x_) + dx;
}

bool Topology::isD2D(uint32_t r, uint8_t port) const {
    uint32_t n = neighbor(r, port);
    if (n == kNone) return false;
    return isWrap(r, port) || dieOf(n) != dieOf(r);
}

bool Topology::isW2W(uint32_t r, uint8_t port) const {
    if (!p_.wafer_x && !p_.wafer_y) return false;
    const uint32_t n = neighbor(r, port);
    if (n == kNone) return false;
    return (p_.wafer_x && x(r) / p_.wafer_x != x(n) / p_.wafer_x) ||
           (p_.wafer_y && y(r) / p_.wafer_y != y(n) / p_.wafer_y);
}

double Topology::posMm(uint32_t i, uint32_t per_die) const {
    return (i / per_die) * p_.die_pitch_mm + (i % per_die) * p_.core_pitch_mm;
}

double Topology::linkLengthMm(uint32_t r, uint8_t port) const {
    uint32_t n = neighbor(r, port);
    if (n == kNone) return 0.0;
    if (port == kEast || port == kWest) return std::fabs(posMm(x(r), die_x_) - posMm(x(n), die_x_));
    return std::fabs(posMm(y(r), die_y_) - posMm(y(n), die_y_));
}

uint32_t Topology::distance(uint32_t a, uint32_t b) const {
    auto d1 = [&](uint32_t u, uint32_t v, uint32_t k) {
        uint32_t d = u > v ? u - v : v - u;
        return p_.wrap ? std::min(d, k - d) : d;
    };
    return d1(x(a), x(b), p_.x) + d1(y(a), y(b), p_.y);
}

std::string Topology::name(uint32_t r) const {
    return fmt::format("r({},{})", x(r), y(r));
}

const char* Topology::portName(uint8_t port) {
    static const char* names[] = {"E", "W", "N", "S", "L0", "L1", "L2", "L3"};
    return port < 8 ? names[port] : "?";
}

}  // namespace wsc::noc
