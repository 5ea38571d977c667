#include "noc/NocShell.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::noc {

using namespace sc_core;

NocShell::NocShell(sc_module_name name, double clock_hz)
    : sc_module(name), period_(1.0 / clock_hz, SC_SEC) {
    SC_METHOD(tick);
    sensitive << wake_ev_;
    dont_initialize();
}

uint64_t NocShell::cycle() const {
    if (sc_time_stamp() < base_) return 0;
    return static_cast<uint64_t>((sc_time_stamp() - base_) / period_);
}

uint64_t NocShell::edgeAtOrAfterNow() const {
    const uint64_t c = cycle();
    return timeOf(c) < sc_time_stamp() ? c + 1 : c;
}

uint64_t NocShell::run(Network& net, CycleDriver& driver) {
    if (tf_ && traced_net_ != &net)
        throw std::logic_error("NocShell: tracing was set up for a different network");
    net_ = &net;
    driver_ = &driver;
    stepped_ = false;
    running_ = true;
    error_ = nullptr;
    // Cycle 0 of this run is the first clock edge strictly after the current time (or now, at
    // the very start), so successive runs in one process never overlap.
    sc_time now = sc_time_stamp();
    base_ = now == SC_ZERO_TIME ? now : now + period_;
    wake_ev_.notify(base_ - now);
    sc_start();
    if (error_) std::rethrow_exception(error_);
    if (running_) {
        // The kernel ran out of events while the driver still expected work: something is
        // waiting for an event nobody will send. Report instead of returning half a result.
        running_ = false;
        throw std::runtime_error(fmt::format(
            "simulation starved at cycle {}: no pending events but the workload is not done "
            "({} flits in the network, {} packets undelivered)",
            last_, net.flitsInNetwork(), net.livePackets()));
    }
    return last_;
}

void NocShell::tick() {
    if (!running_) return;
    ++activations_;
    sc_time now = sc_time_stamp();
    uint64_t c = cycle();
    bool aligned = timeOf(c) == now;
    if (!aligned || (stepped_ && c <= last_)) {
        // Woken between edges or twice in one cycle: step at the next edge instead.
        uint64_t next = stepped_ ? std::max(last_ + 1, c + 1) : c + 1;
        next_trigger(timeOf(next) - now);
        return;
    }
    try {
        driver_->beforeStep(c);
        net_->step(c);
        driver_->afterStep(c);
        if (tf_) updateProbes(c);
    } catch (...) {
        error_ = std::current_exception();
        running_ = false;
        sc_pause();  // sc_start returns and run() rethrows
        return;
    }
    last_ = c;
    stepped_ = true;
    if (driver_->done(c)) {
        // Pause rather than wait for the kernel to run dry: other modules (an HBM controller's
        // refresh) may keep scheduling events forever. sc_pause lets a later run() resume.
        running_ = false;
        sc_pause();
        return;
    }
    uint64_t next = std::min(net_->nextActiveCycle(c), driver_->nextWake(c));
    if (tf_) next = c + 1;
    if (next == kNever) {
        next_trigger(wake_ev_);
    } else {
        next_trigger(timeOf(next) - now, wake_ev_);
    }
}

void NocShell::traceRouters(const std::string& vcd_path, const Network& net,
                            const std::vector<uint32_t>& routers) {
    std::string base = vcd_path;
    if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
    tf_ = sc_create_vcd_trace_file(base.c_str());
    if (!tf_) throw std::runtime_error("cannot create VCD file " + vcd_path);
    tf_->set_time_unit(1, SC_PS);
    traced_net_ = &net;
    const Topology& t = net.topology();
    for (uint32_t r : routers) {
        if (r >= t.routers())
            throw std::invalid_argument(
                fmt::format("--trace: router {} does not exist (mesh has {})", r, t.routers()));
        auto p = std::make_unique<Probe>();
        const Router& rt = net.router(r);
        p->router = r;
        p->occupancy.assign(rt.ports(), 0);
        p->valid.assign(rt.ports(), false);
        p->vc.assign(rt.ports(), 0);
        p->credits.assign(rt.ports() * rt.vcs(), 0);
        std::string rn = fmt::format("r{}_{}", t.x(r), t.y(r));
        for (uint32_t port = 0; port < rt.ports(); ++port) {
            std::string pn = Topology::portName(static_cast<uint8_t>(port));
            sc_trace(tf_, p->occupancy[port], fmt::format("{}.in_{}.occupancy", rn, pn), 16);
            if (rt.outLink(static_cast<uint8_t>(port)) == Router::kNoLink) continue;
            sc_trace(tf_, p->valid[port], fmt::format("{}.out_{}.flit_valid", rn, pn), 1);
            sc_trace(tf_, p->vc[port], fmt::format("{}.out_{}.vc", rn, pn), 8);
            for (uint32_t v = 0; v < rt.vcs(); ++v)
                sc_trace(tf_, p->credits[port * rt.vcs() + v],
                         fmt::format("{}.out_{}.credits_vc{}", rn, pn, v), 8);
        }
        probes_.push_back(std::move(p));
    }
}

void NocShell::updateProbes(uint64_t c) {
    for (auto& p : probes_) {
        const Router& rt = traced_net_->router(p->router);
        for (uint32_t port = 0; port < rt.ports(); ++port) {
            p->occupancy[port] = rt.occupancy(static_cast<uint8_t>(port));
            bool v = rt.lastSendCycle(static_cast<uint8_t>(port)) == c;
            p->valid[port] = v ? 1 : 0;
            p->vc[port] = v ? rt.lastSendVc(static_cast<uint8_t>(port)) : 0;
            for (uint32_t k = 0; k < rt.vcs(); ++k)
                p->credits[port * rt.vcs() + k] =
                    rt.credits(static_cast<uint8_t>(port), static_cast<uint8_t>(k));
        }
    }
}

}  // namespace wsc::noc
