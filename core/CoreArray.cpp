#include "core/CoreArray.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/MessageTag.h"

namespace wsc::core {

CoreArray::CoreArray(noc::Network& net, const CoreParams& p)
    : net_(net), p_(p), pe_(p.pe), vu_(p.vector, p.sram.port_bytes) {
    const uint32_t n = net.nodes();
    for (uint32_t i = 0; i < n; ++i) cores_.emplace_back(i, p_, pe_, vu_, *this);
    queued_.assign(n, 0);
    net_.setObserver(this);
    net_.setEjectionGate(this);
}

std::string CoreArray::name(uint32_t c) const {
    const auto& t = net_.topology();
    const uint32_t r = t.routerOfNode(c);
    return fmt::format("core {} ({},{})", c, t.x(r), t.y(r));
}

void CoreArray::load(firmware::Firmware fw) {
    if (loaded_) throw std::logic_error("CoreArray::load called twice");
    if (fw.cores() != cores())
        throw std::invalid_argument(
            fmt::format("firmware is for {} cores but the chip has {}", fw.cores(), cores()));
    fw.validate();
    fw_ = std::move(fw);  // the cores point into it
    for (uint32_t c = 0; c < cores(); ++c) {
        cores_[c].load(fw_.program(c), name(c));
        if (cores_[c].done())
            ++finished_;
        else
            mark(c);
    }
    loaded_ = true;
}

void CoreArray::wakeAt(uint32_t core, uint64_t cycle) {
    timers_.push(std::max(cycle, now_ + 1), core);
}

void CoreArray::memoryRequest(MemoryRequest&& r) {
    if (ports_.empty())
        throw std::runtime_error(fmt::format(
            "{}: DMA to the memory port, but no memory port is attached", name(r.core)));
    const uint32_t port = port_of_core_.empty() ? r.core % ports_.size() : port_of_core_.at(r.core);
    if (port >= ports_.size())
        throw std::logic_error(fmt::format("{}: memory port {} of {} does not exist", name(r.core),
                                           port, ports_.size()));
    ++mem_outstanding_;
    ports_[port]->push(std::move(r));
}

void CoreArray::memoryDone(MemoryRequest&& r) {
    --mem_outstanding_;
    mem_done_.push_back(std::move(r));
}

void CoreArray::beforeStep(uint64_t c) {
    now_ = c;
    while (!mem_done_.empty() && mem_done_.front().ready <= c) {
        MemoryRequest& r = mem_done_.front();
        cores_[r.core].onMemory(r);
        mark(r.core);
        mem_done_.pop_front();
    }
    timers_.takeDue(c, due_timers_);
    for (const uint32_t core : due_timers_) mark(core);
    progress_ = false;
    for (size_t i = 0; i < active_.size(); ++i) {
        if (i + 4 < active_.size()) cores_[active_[i + 4]].prefetchObject();
        if (i + 3 < active_.size()) cores_[active_[i + 3]].prefetchState();
        if (i + 2 < active_.size()) cores_[active_[i + 2]].prefetchCode(0);
        if (i + 1 < active_.size()) cores_[active_[i + 1]].prefetchCode(1);
        const uint32_t id = active_[i];
        queued_[id] = 0;
        Core& core = cores_[id];
        const bool was_done = core.done();
        ++evaluations_;
        const bool again = core.evaluate(c);
        progress_ |= core.progressed();
        if (again) {
            queued_[id] = 1;
            next_.push_back(id);
        }
        if (!was_done && core.done()) ++finished_, last_finish_ = c;
    }
    active_.swap(next_);
    next_.clear();
    for (NocAgent* a : agents_) a->beforeStep(c);
}

void CoreArray::afterStep(uint64_t c) {
    // Nothing left to wake a core: the network is empty, or all it holds waits at cores that
    // refuse it (their receive buffers are full and no receive is posted for it).
    // Cores that only poll for egress credits wait on the network too.
    if (finished_ < cores() && timers_.empty() && mem_outstanding_ == 0 && mem_done_.empty() &&
        ((active_.empty() && net_.idle()) || (!progress_ && net_.stalled(c))))
        throw std::runtime_error(stuckReport(c));
}

std::string CoreArray::stuckReport(uint64_t c) const {
    std::string s = fmt::format(
        "firmware deadlock at cycle {}: {} of {} cores have not finished and nothing is in flight "
        "to wake them\n",
        c, cores() - finished_, cores());
    uint32_t shown = 0;
    for (uint32_t i = 0; i < cores(); ++i) {
        if (cores_[i].done()) continue;
        if (shown++ == 32) {
            s += "  ...\n";
            break;
        }
        s += fmt::format("  {}: {}\n", name(i), cores_[i].status());
    }
    if (net_.heldFlits()) {
        // The schedule needs more receive buffering than the SRAM gives it: name who and what.
        s += fmt::format(
            "{} flits wait in the network at cores whose receive buffer (core.rx_buffer) is "
            "full:\n",
            net_.heldFlits());
        shown = 0;
        for (uint32_t n = 0; n < cores(); ++n) {
            const noc::NetworkInterface& ni = net_.ni(n);
            if (!ni.held()) continue;
            if (shown++ == 16) {
                s += "  ...\n";
                break;
            }
            const noc::PacketInfo& pk = net_.packet(ni.heldFlits().front().packet);
            s += fmt::format(
                "  {}: {} flits held back, the first of a message from core {} (packet of {} B); "
                "receive buffer {} of {} B in use, {} B of SRAM in buffers\n",
                name(n), ni.held(), pk.src, pk.bytes, cores_[n].sram().held(),
                cores_[n].rxCapacity(), cores_[n].sram().used());
        }
    }
    return s;
}

uint64_t CoreArray::nextWake(uint64_t c) const {
    if (!active_.empty()) return c + 1;
    uint64_t w = noc::kNever;
    if (!timers_.empty()) w = timers_.earliest();
    if (!mem_done_.empty()) w = std::min(w, mem_done_.front().ready);
    for (const NocAgent* a : agents_) w = std::min(w, a->nextWake(c));
    return w == noc::kNever ? w : std::max(w, c + 1);
}

bool CoreArray::done(uint64_t) const {
    return finished_ == cores() && mem_outstanding_ == 0 && mem_done_.empty() && net_.idle();
}

noc::Admission CoreArray::admitFlit(const noc::Message& m, uint32_t node, uint32_t bytes,
                                    uint64_t) {
    // NocMemoryPort traffic: the port's own flow control.
    if (MessageTag::isMemory(m.tag)) return noc::Admission::TakeRest;
    return cores_[node].admit(m, bytes);
}

void CoreArray::onMessageDelivered(const noc::Message& m, uint32_t node, uint64_t cycle) {
    if (MessageTag::isMemory(m.tag)) {
        const uint16_t a = MessageTag::agent(m.tag);
        if (a >= agents_.size())
            throw std::logic_error(
                fmt::format("{}: memory-port message for unknown agent {}", name(node), a));
        agents_[a]->onMessage(m, node, cycle);
        return;
    }
    cores_[node].onMessage(m, cycle);
}

namespace {
// One loop for both run() overloads; D is CoreArray itself (calls bound statically) or any
// CycleDriver that drives it.
template <class D>
uint64_t runLoop(D& d, noc::Network& net, bool has_ports, uint64_t limit,
                 const std::function<void(uint64_t)>& on_step) {
    if (has_ports) throw std::logic_error("CoreArray::run: memory ports need the SystemC shell");
    uint64_t c = 0;
    for (;;) {
        d.beforeStep(c);
        net.step(c);
        d.afterStep(c);
        if (on_step) on_step(c);
        if (d.done(c)) return c;
        const uint64_t n = std::min(net.nextActiveCycle(c), d.nextWake(c));
        if (n == noc::kNever || n > limit)
            throw std::runtime_error(
                fmt::format("CoreArray::run: stopped at cycle {} before the cores finished", c));
        c = n;
    }
}
}  // namespace

uint64_t CoreArray::run(uint64_t limit, const std::function<void(uint64_t)>& on_step) {
    return runLoop(*this, net_, !ports_.empty(), limit, on_step);
}

uint64_t CoreArray::run(uint64_t limit, noc::CycleDriver& driver,
                        const std::function<void(uint64_t)>& on_step) {
    return runLoop(driver, net_, !ports_.empty(), limit, on_step);
}

void CoreArray::finish(uint64_t end) {
    for (auto& core : cores_) core.finish(end);
}

void CoreArray::dumpStats(nlohmann::json& out) const {
    out = nlohmann::json::object();
    for (uint32_t i = 0; i < cores(); ++i) {
        nlohmann::json j;
        cores_[i].stats().toJson(j, peakMacsPerCycle());
        j["sram_used_bytes"] = cores_[i].sram().used();
        j["sram_peak_bytes"] = cores_[i].sram().peak();
        j["rx_capacity_bytes"] = cores_[i].rxCapacity();
        if (loaded_) {
            j["program_instructions"] = fw_.program(i).code().size();
            j["program_bytes"] = fw_.program(i).codeBytes();
        }
        out[fmt::format("core{}", i)] = j;
    }
}

}  // namespace wsc::core
