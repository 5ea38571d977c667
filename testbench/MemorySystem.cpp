#include "testbench/MemorySystem.h"

#include <fmt/format.h>

namespace wsc::tb {

MemorySystem::MemorySystem(const core::CoreParams& p, double) {
    for (uint32_t i = 0; i < p.memory.ports; ++i) {
        bridges_.push_back(std::make_unique<core::MemoryBridge>(
            fmt::format("mem_bridge{}", i).c_str(), p.memory.max_outstanding, p.dma.burst_bytes));
        memories_.push_back(std::make_unique<core::SimpleMemory>(
            fmt::format("memory{}", i).c_str(), sc_core::sc_time(double(p.memory.latency_ps), sc_core::SC_PS),
            p.memory.bytes_per_ns, p.memory.capacity_bytes, true));
        bridges_.back()->socket.bind(memories_.back()->socket);
    }
}

void MemorySystem::attach(core::CoreArray& cores, noc::NocShell& shell, bool functional) {
    for (size_t i = 0; i < bridges_.size(); ++i) {
        memories_[i]->setFunctional(functional);
        bridges_[i]->connect([&shell] { return shell.cycle(); },
                             [&cores, &shell](core::MemoryRequest&& r) {
                                 cores.memoryDone(std::move(r));
                                 shell.wake();
                             });
        cores.attachMemoryPort(*bridges_[i]);
    }
}

uint64_t MemorySystem::transactions() const {
    uint64_t n = 0;
    for (const auto& b : bridges_) n += b->transactions();
    return n;
}

}  // namespace wsc::tb
