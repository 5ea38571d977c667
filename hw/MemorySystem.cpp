#include "hw/MemorySystem.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::hw {

MemorySystem::MemorySystem(const core::CoreParams& p, double clock_hz)
    : MemorySystem(p, clock_hz, MemoryTarget::Simple) {}

MemorySystem::MemorySystem(const core::CoreParams& p, double, MemoryTarget target,
                           const dram::HbmParams& hbm, uint32_t sync)
    : target_(target) {
    if (target == MemoryTarget::Hbm) hbm.validate();
    for (uint32_t i = 0; i < p.memory.ports; ++i)
        stacks_.push_back(
            std::make_unique<MemoryStack>(fmt::format("mem{}", i).c_str(), p, target, hbm, sync));
}

core::SimpleMemory& MemorySystem::memory(uint32_t port) {
    if (target_ != MemoryTarget::Simple)
        throw std::logic_error("MemorySystem: the ports are HBM, not simple memories");
    return stacks_.at(port)->memory();
}

dram::HbmTarget& MemorySystem::hbm(uint32_t port) {
    if (target_ != MemoryTarget::Hbm)
        throw std::logic_error("MemorySystem: the ports are simple memories, not HBM");
    return stacks_.at(port)->hbm();
}

void MemorySystem::hostWrite(uint32_t port, uint64_t addr, const void* src, uint64_t len) {
    stacks_.at(port)->hostWrite(addr, src, len);
}

void MemorySystem::hostRead(uint32_t port, uint64_t addr, void* dst, uint64_t len) {
    stacks_.at(port)->hostRead(addr, dst, len);
}

void MemorySystem::attach(core::CoreArray& cores, noc::NocShell& shell, bool functional) {
    over_noc_ = false;
    for (auto& s : stacks_) s->connectDirect(cores, shell, functional);
}

void MemorySystem::attachOverNoc(core::CoreArray& cores, noc::NocShell& shell, noc::Network& net,
                                 bool functional, const std::vector<std::vector<uint32_t>>& nodes,
                                 uint32_t header_bytes, uint32_t window) {
    if (nodes.size() != stacks_.size())
        throw std::invalid_argument(fmt::format("MemorySystem: {} attach nodes for {} memory ports",
                                                nodes.size(), stacks_.size()));
    over_noc_ = true;
    for (size_t i = 0; i < stacks_.size(); ++i)
        stacks_[i]->attachAt(cores, shell, net, functional, nodes[i], header_bytes, window);
}

std::vector<core::NocMemoryPort*> MemorySystem::nocPorts() const {
    std::vector<core::NocMemoryPort*> v;
    if (over_noc_)
        for (const auto& s : stacks_)
            for (uint32_t i = 0; i < s->nocPorts(); ++i) v.push_back(s->nocPort(i));
    return v;
}

uint64_t MemorySystem::transactions() const {
    uint64_t n = 0;
    for (const auto& s : stacks_) n += s->transactions();
    return n;
}

}  // namespace wsc::hw
