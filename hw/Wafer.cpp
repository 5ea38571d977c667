#include "hw/Wafer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace wsc::hw {

core::MemoryParams Wafer::stackModel(const dram::HbmParams& h, const core::MemoryParams& base) {
    core::MemoryParams m = base;
    m.bytes_per_ns = h.stackPeakBandwidthBytesPerSec() * kStreamEfficiency / 1e9;
    const uint64_t burst_ck = h.burst_length / 2;  // double data rate
    m.latency_ps = uint64_t(h.tRCD + h.tCL + burst_ck) * h.tCK_ps;
    m.capacity_bytes = h.stackCapacityBytes();
    return m;
}

Wafer::Wafer(sc_core::sc_module_name name, const HardwareConfig& hw, MemoryTarget memory)
    : sc_module(name), hw_(hw), topo_(hw.noc.topology), memory_(memory) {
    core::CoreParams cp = hw_.core;
    if (memory == MemoryTarget::Simple && hw_.hbm) cp.memory = stackModel(*hw_.hbm, cp.memory);
    shell_ = std::make_unique<noc::NocShell>("noc", hw_.noc.clock_hz);
    if (hw_.hbm && hw_.hbm_attach.stacks.size() != hw_.hbm->stacks)
        throw std::invalid_argument(fmt::format("wafer: {} HBM attach places for {} stacks per die",
                                                hw_.hbm_attach.stacks.size(), hw_.hbm->stacks));
    for (uint32_t y = 0; y < topo_.diesY(); ++y)
        for (uint32_t x = 0; x < topo_.diesX(); ++x)
            dies_.push_back(std::make_unique<Die>(fmt::format("die_{}_{}", x, y).c_str(), topo_, x,
                                                  y, cp, hw_.hbm, hw_.hbm_attach, memory));
}

noc::Network& Wafer::buildNetwork(uint64_t seed) {
    cores_.reset();  // the cores observe the network: drop them first
    net_ = std::make_unique<noc::Network>(hw_.noc, seed);
    for (auto& d : dies_) d->bindNetwork(net_.get());
    port_of_core_.clear();
    return *net_;
}

noc::Network& Wafer::network() {
    if (!net_) throw std::logic_error("wafer: no network built yet (buildNetwork)");
    return *net_;
}

void Wafer::releaseCores() {
    cores_.reset();
    port_of_core_.clear();
}

core::CoreArray& Wafer::buildCores(const core::CoreParams& cp) {
    cores_ = std::make_unique<core::CoreArray>(network(), cp);
    port_of_core_.clear();
    return *cores_;
}

core::CoreArray& Wafer::cores() {
    if (!cores_) throw std::logic_error("wafer: no cores built yet (buildCores)");
    return *cores_;
}

void Wafer::attachMemory(bool functional, bool over_noc, uint32_t header_bytes, uint32_t window,
                         bool interleave, uint64_t granule) {
    core::CoreArray& cs = cores();
    if (interleave && over_noc)
        throw std::invalid_argument("wafer: interleaving over a die's stacks is for direct DMA");
    interleaved_.clear();
    noc::Network& net = network();
    if (ports() == 0)
        throw std::invalid_argument(
            "wafer: the cores use DMA but the hardware has no hbm: section (no stacks)");
    // Stacks (the MemoryPorts index) are numbered die-major, stack by stack: first stack of the
    // die + k. The cores' memory ports are registered in the same order, one per stack when
    // direct, one per attach router of each stack over the NoC (MemoryStack::attachAt).
    std::vector<uint32_t> first(dies_.size(), 0);
    std::vector<std::vector<uint32_t>> first_port(dies_.size());  // per die and stack
    uint32_t p = 0, q = 0;
    for (size_t d = 0; d < dies_.size(); ++d) {
        first[d] = p;
        Die& die = *dies_[d];
        for (uint32_t k = 0; k < die.stacks(); ++k, ++p) {
            MemoryStack& s = die.stack(k);
            first_port[d].push_back(q);
            if (over_noc) {
                std::vector<uint32_t> nodes;
                for (uint32_t r : die.stackRouters(k)) nodes.push_back(topo_.node(r, 0));
                s.attachAt(cs, *shell_, net, functional, nodes, header_bytes, window);
                q += static_cast<uint32_t>(nodes.size());
            } else {
                s.connectDirect(cs, *shell_, functional);
                ++q;
            }
        }
    }
    // Each core: the nearest stack of its die, and over the NoC that stack's nearest attach
    // router (ties to the lower stack index, then the earlier router in attach order).
    port_of_core_.assign(net.nodes(), 0);
    std::vector<uint32_t> core_port(net.nodes(), 0);
    for (uint32_t c = 0; c < net.nodes(); ++c) {
        const uint32_t r = topo_.routerOfNode(c);
        const uint32_t d = topo_.dieOf(r);
        const Die& die = *dies_.at(d);
        if (die.stacks() == 0)
            throw std::invalid_argument(fmt::format("wafer: {} has no HBM stack", die.name()));
        const uint32_t k = die.nearestStack(r);
        port_of_core_[c] = first[d] + k;
        core_port[c] = first_port[d][k] + (over_noc ? die.nearestAttach(k, r) : 0);
    }
    if (interleave) {
        // One interleaved port per die over its stacks' bridges, registered after the stacks.
        const uint64_t g = granule ? granule : std::max<uint64_t>(cs.params().dma.burst_bytes, 256);
        std::vector<uint32_t> die_port(dies_.size());
        for (size_t d = 0; d < dies_.size(); ++d) {
            std::vector<core::MemoryPort*> ps;
            for (uint32_t k = 0; k < dies_[d]->stacks(); ++k)
                ps.push_back(&dies_[d]->stack(k).bridge());
            interleaved_.push_back(std::make_unique<core::InterleavedMemoryPort>(ps, g));
            cs.attachMemoryPort(*interleaved_.back());
            die_port[d] = q++;
        }
        for (uint32_t c = 0; c < net.nodes(); ++c)
            core_port[c] = die_port[topo_.dieOf(topo_.routerOfNode(c))];
    }
    cs.setPortOfCore(core_port);
}

MemoryStack& Wafer::stackOfPort(uint32_t port) {
    for (auto& d : dies_) {
        if (port < d->stacks()) return d->stack(port);
        port -= d->stacks();
    }
    throw std::out_of_range(fmt::format("wafer: memory port {} does not exist", port));
}

uint32_t Wafer::ports() const {
    uint32_t n = 0;
    for (const auto& d : dies_) n += d->stacks();
    return n;
}

uint32_t Wafer::portOfCore(uint32_t core) const {
    if (port_of_core_.empty())
        throw std::logic_error("wafer: memory not attached yet (attachMemory)");
    return port_of_core_.at(core);
}

void Wafer::hostWrite(uint32_t port, uint64_t addr, const void* src, uint64_t len) {
    stackOfPort(port).hostWrite(addr, src, len);
}

void Wafer::hostRead(uint32_t port, uint64_t addr, void* dst, uint64_t len) {
    stackOfPort(port).hostRead(addr, dst, len);
}

uint64_t Wafer::transactions() const {
    uint64_t n = 0;
    for (const auto& d : dies_)
        for (uint32_t k = 0; k < d->stacks(); ++k) n += d->stack(k).transactions();
    return n;
}

void Wafer::dumpStats(nlohmann::json& out) const {
    const noc::NocParams& n = hw_.noc;
    out["dies"] = {{"x", topo_.diesX()}, {"y", topo_.diesY()}};
    out["cores_per_die"] = {{"x", topo_.dieWidth()}, {"y", topo_.dieHeight()}};
    out["clocks_hz"] = {{"noc", n.clock_hz},
                        {"d2d", n.d2d.clock_hz > 0 ? n.d2d.clock_hz : n.clock_hz},
                        {"hbm", hw_.hbm ? hw_.hbm->clockHz() : 0.0}};
    out["hbm_stacks_per_die"] = hw_.hbm ? hw_.hbm->stacks : 0;
}

}  // namespace wsc::hw
