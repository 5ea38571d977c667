#include "hw/Die.h"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace wsc::hw {

Die::Die(sc_core::sc_module_name name, const noc::Topology& topo, uint32_t die_x, uint32_t die_y,
         const core::CoreParams& cp, const std::optional<dram::HbmParams>& hbm,
         const HbmAttachParams& attach, MemoryTarget target)
    : sc_module(name), topo_(topo), x_(die_x), y_(die_y) {
    dx_ = topo.dieWidth();
    dy_ = topo.dieHeight();
    x0_ = die_x * dx_;
    y0_ = die_y * dy_;
    if (x0_ + dx_ > topo.kx() || y0_ + dy_ > topo.ky())
        throw std::invalid_argument(
            fmt::format("{}: die ({}, {}) lies outside the mesh", this->name(), die_x, die_y));
    index_ = topo.dieOf(topo.router(x0_, y0_));
    for (uint32_t y = 0; y < dy_; ++y)
        for (uint32_t x = 0; x < dx_; ++x) routers_.push_back(topo.router(x0_ + x, y0_ + y));
    if (!hbm) return;
    for (uint32_t k = 0; k < attach.stacks.size(); ++k) {
        const HbmAttachParams::Stack& s = attach.stacks[k];
        if (s.at.empty())
            throw std::invalid_argument(
                fmt::format("{}: HBM stack {} has no attach router", this->name(), k));
        std::vector<uint32_t> rs;
        for (uint32_t at : s.at) {
            uint32_t lx = 0, ly = 0;
            HbmAttachParams::position(s.edge, at, dx_, dy_, lx, ly);
            if (lx >= dx_ || ly >= dy_)
                throw std::invalid_argument(fmt::format(
                    "{}: HBM stack {} at position {} of the {} edge is outside the {} x {} die",
                    this->name(), k, at, HbmAttachParams::edgeName(s.edge), dx_, dy_));
            const uint32_t r = topo.router(x0_ + lx, y0_ + ly);
            for (uint32_t q : rs)
                if (q == r)
                    throw std::invalid_argument(
                        fmt::format("{}: HBM stack {} attaches twice at position {} of the {} edge",
                                    this->name(), k, at, HbmAttachParams::edgeName(s.edge)));
            rs.push_back(r);
        }
        stack_routers_.push_back(std::move(rs));
        stack_place_.push_back(s);
        stacks_.push_back(std::make_unique<MemoryStack>(fmt::format("hbm_{}", k).c_str(), cp,
                                                        target, *hbm, attach.sync));
    }
}

bool Die::contains(uint32_t r) const {
    return r < topo_.routers() && topo_.x(r) >= x0_ && topo_.x(r) < x0_ + dx_ &&
           topo_.y(r) >= y0_ && topo_.y(r) < y0_ + dy_;
}

std::vector<uint32_t> Die::edgeRouters(HbmAttachParams::Edge e) const {
    std::vector<uint32_t> v;
    const bool vertical = e == HbmAttachParams::Edge::West || e == HbmAttachParams::Edge::East;
    const uint32_t n = vertical ? dy_ : dx_;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t lx = 0, ly = 0;
        HbmAttachParams::position(e, i, dx_, dy_, lx, ly);
        v.push_back(topo_.router(x0_ + lx, y0_ + ly));
    }
    return v;
}

uint32_t Die::nearestStack(uint32_t r) const {
    if (stacks_.empty())
        throw std::logic_error(fmt::format("{}: no HBM stack on this die", name()));
    uint32_t best = 0, best_d = UINT32_MAX;
    for (uint32_t k = 0; k < stack_routers_.size(); ++k) {
        const uint32_t d = topo_.distance(r, stack_routers_[k][nearestAttach(k, r)]);
        if (d < best_d) best = k, best_d = d;
    }
    return best;
}

uint32_t Die::nearestAttach(uint32_t k, uint32_t r) const {
    const std::vector<uint32_t>& rs = stack_routers_.at(k);
    uint32_t best = 0, best_d = UINT32_MAX;
    for (uint32_t i = 0; i < rs.size(); ++i) {
        const uint32_t d = topo_.distance(r, rs[i]);
        if (d < best_d) best = i, best_d = d;
    }
    return best;
}

void Die::dumpStats(nlohmann::json& out) const {
    out["x"] = x_;
    out["y"] = y_;
    out["index"] = index_;
    out["routers"] = routers_.size();
    nlohmann::json stacks = nlohmann::json::array();
    for (uint32_t k = 0; k < stacks_.size(); ++k) {
        // A single attach router keeps the scalar form; several give lists in attach order.
        const std::vector<uint32_t>& rs = stack_routers_[k];
        nlohmann::json s = {{"name", stacks_[k]->basename()},
                            {"edge", HbmAttachParams::edgeName(stack_place_[k].edge)}};
        if (rs.size() == 1) {
            s["at"] = stack_place_[k].at[0];
            s["router"] = topo_.name(rs[0]);
            s["node"] = topo_.node(rs[0], 0);
        } else {
            s["at"] = stack_place_[k].at;
            nlohmann::json names = nlohmann::json::array(), nodes = nlohmann::json::array();
            for (uint32_t r : rs) names.push_back(topo_.name(r)), nodes.push_back(topo_.node(r, 0));
            s["routers"] = names;
            s["nodes"] = nodes;
        }
        stacks.push_back(s);
    }
    out["hbm_attach"] = stacks;
    if (!net_) return;
    // Counters of this die's part of the network: router traversals, and per link kind the
    // flits/bits leaving a router of this die (injection: entering one).
    uint64_t traversals = 0;
    for (uint32_t r : routers_) traversals += net_->router(r).traversals();
    uint64_t flits[4] = {}, bits[4] = {}, busy[4] = {};
    for (const noc::Link& l : net_->links()) {
        const auto k = static_cast<size_t>(l.kind());
        const uint32_t r = l.kind() == noc::Link::Kind::Injection ? l.dst : l.src;
        if (!contains(r)) continue;
        flits[k] += l.flits();
        bits[k] += l.bitsSent();
        busy[k] += l.busyCycles();
    }
    out["router_traversals"] = traversals;
    static const char* kinds[] = {"on_die", "d2d_out", "injection", "ejection"};
    for (size_t k = 0; k < 4; ++k)
        out["links"][kinds[k]] = {{"flits", flits[k]}, {"bits", bits[k]}, {"busy_cycles", busy[k]}};
}

}  // namespace wsc::hw
