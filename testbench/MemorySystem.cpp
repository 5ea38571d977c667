#include "testbench/MemorySystem.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::tb {

MemorySystem::MemorySystem(const core::CoreParams& p, double clock_hz)
    : MemorySystem(p, clock_hz, MemoryTarget::Simple) {}

MemorySystem::MemorySystem(const core::CoreParams& p, double, MemoryTarget target,
                           const dram::HbmParams& hbm)
    : target_(target) {
    if (target == MemoryTarget::Hbm) hbm.validate();
    for (uint32_t i = 0; i < p.memory.ports; ++i) {
        bridges_.push_back(std::make_unique<core::MemoryBridge>(
            fmt::format("mem_bridge{}", i).c_str(), p.memory.max_outstanding, p.dma.burst_bytes));
        if (target == MemoryTarget::Hbm) {
            hbms_.push_back(
                std::make_unique<dram::HbmTarget>(fmt::format("hbm{}", i).c_str(), hbm, true));
            bridges_.back()->socket.bind(hbms_.back()->socket);
        } else {
            memories_.push_back(std::make_unique<core::SimpleMemory>(
                fmt::format("memory{}", i).c_str(),
                sc_core::sc_time(double(p.memory.latency_ps), sc_core::SC_PS),
                p.memory.bytes_per_ns, p.memory.capacity_bytes, true));
            bridges_.back()->socket.bind(memories_.back()->socket);
        }
    }
}

core::SimpleMemory& MemorySystem::memory(uint32_t port) {
    if (target_ != MemoryTarget::Simple)
        throw std::logic_error("MemorySystem: the ports are HBM, not simple memories");
    return *memories_.at(port);
}

dram::HbmTarget& MemorySystem::hbm(uint32_t port) {
    if (target_ != MemoryTarget::Hbm)
        throw std::logic_error("MemorySystem: the ports are simple memories, not HBM");
    return *hbms_.at(port);
}

void MemorySystem::hostWrite(uint32_t port, uint64_t addr, const void* src, uint64_t len) {
    if (target_ == MemoryTarget::Simple) return memory(port).write(addr, src, len);
    bridges_.at(port)->debugAccess(addr, const_cast<void*>(src), static_cast<uint32_t>(len), true);
}

void MemorySystem::hostRead(uint32_t port, uint64_t addr, void* dst, uint64_t len) {
    if (target_ == MemoryTarget::Simple) return memory(port).read(addr, dst, len);
    bridges_.at(port)->debugAccess(addr, dst, static_cast<uint32_t>(len), false);
}

void MemorySystem::attach(core::CoreArray& cores, noc::NocShell& shell, bool functional) {
    noc_ports_.clear();
    for (size_t i = 0; i < bridges_.size(); ++i) {
        if (!memories_.empty()) memories_[i]->setFunctional(functional);
        bridges_[i]->connect([&shell] { return shell.cycle(); },
                             [&cores, &shell](core::MemoryRequest&& r) {
                                 cores.memoryDone(std::move(r));
                                 shell.wake();
                             });
        cores.attachMemoryPort(*bridges_[i]);
    }
}

void MemorySystem::attachOverNoc(core::CoreArray& cores, noc::NocShell& shell, noc::Network& net,
                                 bool functional, const std::vector<uint32_t>& nodes,
                                 uint32_t header_bytes, uint32_t window) {
    if (nodes.size() != bridges_.size())
        throw std::invalid_argument(fmt::format("MemorySystem: {} attach nodes for {} memory ports",
                                                nodes.size(), bridges_.size()));
    noc_ports_.clear();
    for (size_t i = 0; i < bridges_.size(); ++i) {
        if (!memories_.empty()) memories_[i]->setFunctional(functional);
        noc_ports_.push_back(std::make_unique<core::NocMemoryPort>(
            net, cores, nodes[i], *bridges_[i], header_bytes, window));
        core::NocMemoryPort* port = noc_ports_.back().get();
        bridges_[i]->connect([&shell] { return shell.cycle(); },
                             [port, &shell](core::MemoryRequest&& r) {
                                 port->targetDone(std::move(r));
                                 shell.wake();
                             });
    }
}

uint64_t MemorySystem::transactions() const {
    uint64_t n = 0;
    for (const auto& b : bridges_) n += b->transactions();
    return n;
}

}  // namespace wsc::tb
