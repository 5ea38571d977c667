#include "hw/MemoryStack.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace wsc::hw {

namespace {
dram::HbmParams oneStack(dram::HbmParams p) {
    // The section's totals (stacks, required capacity and bandwidth) were validated by the
    // loader; one controller models one stack.
    p.stacks = 1;
    p.required_bandwidth_gbps = 0;
    p.required_capacity_gb = 0;
    return p;
}
}  // namespace

MemoryStack::MemoryStack(sc_core::sc_module_name name, const core::CoreParams& cp,
                         MemoryTarget target, const dram::HbmParams& hbm, uint32_t sync)
    : sc_module(name), target_(target), max_outstanding_(cp.memory.max_outstanding) {
    bridge_ = std::make_unique<core::MemoryBridge>("bridge", cp.memory.max_outstanding,
                                                   cp.dma.burst_bytes);
    if (target == MemoryTarget::Hbm) {
        const dram::HbmParams p = oneStack(hbm);
        p.validate();
        hbm_ = std::make_unique<dram::HbmTarget>("controller", p, true);
        bridge_->socket.bind(hbm_->socket);
        bridge_->setCrossing(core::MemoryBridge::Crossing::asynchronous(sync));
    } else {
        memory_ = std::make_unique<core::SimpleMemory>(
            "memory", sc_core::sc_time(double(cp.memory.latency_ps), sc_core::SC_PS),
            cp.memory.bytes_per_ns, cp.memory.capacity_bytes, true);
        bridge_->socket.bind(memory_->socket);
        bridge_->setCrossing(core::MemoryBridge::Crossing::synchronous());
    }
}

core::SimpleMemory& MemoryStack::memory() {
    if (!memory_) throw std::logic_error(std::string(name()) + ": the target is HBM, not simple");
    return *memory_;
}

dram::HbmTarget& MemoryStack::hbm() {
    if (!hbm_) throw std::logic_error(std::string(name()) + ": the target is simple, not HBM");
    return *hbm_;
}

void MemoryStack::hostWrite(uint64_t addr, const void* src, uint64_t len) {
    if (memory_) return memory_->write(addr, src, len);
    bridge_->debugAccess(addr, const_cast<void*>(src), static_cast<uint32_t>(len), true);
}

void MemoryStack::hostRead(uint64_t addr, void* dst, uint64_t len) {
    if (memory_) return memory_->read(addr, dst, len);
    bridge_->debugAccess(addr, dst, static_cast<uint32_t>(len), false);
}

void MemoryStack::connectDirect(core::CoreArray& cores, noc::NocShell& shell, bool functional) {
    ports_.clear();
    if (bridge_->maxOutstanding() != max_outstanding_) bridge_->setMaxOutstanding(max_outstanding_);
    if (memory_) memory_->setFunctional(functional);
    bridge_->connect(shell, [&cores, &shell](core::MemoryRequest&& r) {
        cores.memoryDone(std::move(r));
        shell.wake();
    });
    cores.attachMemoryPort(*bridge_);
}

void MemoryStack::attachAt(core::CoreArray& cores, noc::NocShell& shell, noc::Network& net,
                           bool functional, const std::vector<uint32_t>& nodes,
                           uint32_t header_bytes, uint32_t window) {
    if (nodes.empty() || nodes.size() > UINT16_MAX)
        throw std::invalid_argument(std::string(name()) + ": a stack attaches at 1 .. 65535 nodes");
    for (size_t i = 0; i < nodes.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (nodes[i] == nodes[j])
                throw std::invalid_argument(std::string(name()) + ": attach node " +
                                            std::to_string(nodes[i]) + " given twice");
    if (memory_) memory_->setFunctional(functional);
    ports_.clear();
    const uint32_t slots = max_outstanding_ * static_cast<uint32_t>(nodes.size());
    if (bridge_->maxOutstanding() != slots) bridge_->setMaxOutstanding(slots);
    for (size_t i = 0; i < nodes.size(); ++i)
        ports_.push_back(std::make_unique<core::NocMemoryPort>(
            net, cores, nodes[i], *bridge_, header_bytes, window, static_cast<uint16_t>(i)));
    bridge_->connect(shell, [this, &shell](core::MemoryRequest&& r) {
        ports_.at(r.via)->targetDone(std::move(r));
        shell.wake();
    });
}

void MemoryStack::dumpStats(nlohmann::json& out) const {
    out["target"] = hbm_ ? "hbm" : "simple";
    out["bridge"] = {{"transactions", bridge_->transactions()},
                     {"in_flight", bridge_->inFlight()},
                     {"crossing_sync_cycles", bridge_->crossing().sync},
                     {"crossing", bridge_->crossing().async ? "async" : "sync"}};
    if (hbm_) {
        const dram::HbmController& c = hbm_->controller();
        const dram::HbmStats s = c.stats(hbm_->cycle());
        out["controller"] = {{"requests_accepted", hbm_->requestsAccepted()},
                             {"responses_sent", hbm_->responsesSent()},
                             {"transactions", s.transactions},
                             {"bytes_read", s.bytes_read},
                             {"bytes_written", s.bytes_written},
                             {"row_hit_rate", s.rowHitRate()},
                             {"bandwidth_gbytes_per_s", s.bandwidthBytesPerSec(c.params()) / 1e9},
                             {"read_latency_mean_cycles", s.read_latency.mean()},
                             {"write_latency_mean_cycles", s.write_latency.mean()},
                             {"energy_pj", s.energyPj(c.params())},
                             {"tck_ps", c.params().tCK_ps}};
    } else {
        out["memory"] = {{"requests", memory_->requests()}, {"bytes", memory_->bytes()}};
    }
    // One entry per NoC port (attach router): "noc_port" for a single one, as before, else a
    // list "noc_ports" in attach order.
    nlohmann::json ports = nlohmann::json::array();
    for (const auto& port : ports_) {
        const auto& p = port->stats();
        ports.push_back({{"node", port->node()},
                         {"requests", p.requests},
                         {"reads", p.reads},
                         {"writes", p.writes},
                         {"bytes_read", p.bytes_read},
                         {"bytes_written", p.bytes_written},
                         {"request_msg_bytes", p.request_msg_bytes},
                         {"response_msg_bytes", p.response_msg_bytes},
                         {"hops_sum", p.hop_sum},
                         {"round_trip_cycles_sum", p.round_trip_cycles},
                         {"max_round_trip_cycles", p.max_round_trip}});
    }
    if (ports.size() == 1)
        out["noc_port"] = ports[0];
    else if (!ports.empty())
        out["noc_ports"] = ports;
}

}  // namespace wsc::hw
