#include "noc/NocShell.h"

#include <fmt/format.h>

#include <stdexcept>

#include "noc/GtkwSaveFile.h"

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

void NocShell::traceRouters(const std::string& vcd_path, Network& net,
                            const std::vector<uint32_t>& routers) {
    std::string base = vcd_path;
    if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
    tf_ = sc_create_vcd_trace_file(base.c_str());
    if (!tf_) throw std::runtime_error("cannot create VCD file " + vcd_path);
    tf_->set_time_unit(1, SC_PS);
    traced_net_ = &net;
    const Topology& t = net.topology();
    sc_trace(tf_, cycle_signal_, "cycle", 64);
    const double period_ps = period_.to_seconds() * 1e12;
    // The save file names the VCD as written next to it (GTKWave also looks beside the save file).
    const std::string vcd_name = base.substr(base.find_last_of('/') + 1) + ".vcd";
    GtkwSaveFile gtkw(vcd_name, period_ps);
    // 100 cycles across the waves pane of a 1600-pixel GTKWave window.
    gtkw.window(0, 100);
    gtkw.signal("SystemC.cycle", 64, GtkwSaveFile::Radix::Decimal);
    for (uint32_t r : routers) {
        if (r >= t.routers())
            throw std::invalid_argument(
                fmt::format("--trace: router {} does not exist (mesh has {})", r, t.routers()));
        std::string rn = fmt::format("r{}_{}", t.x(r), t.y(r));
        // Comment rows are kept short: GTKWave widens the signal column to the longest one.
        if (net.isExternal(r)) {
            // The C++ Router at an RTL position sees no traffic: its probes would read 0.
            gtkw.comment(fmt::format("router {} = {}: RTL, see --rtl-fst", r, rn));
            continue;
        }
        net.observeRouter(r);  // exact occupancy and last sends, cycle by cycle
        auto p = std::make_unique<Probe>();
        const Router& rt = net.router(r);
        p->router = r;
        p->occupancy.assign(rt.ports(), 0);
        p->valid.assign(rt.ports(), false);
        p->vc.assign(rt.ports(), 0);
        p->credits.assign(rt.ports() * rt.vcs(), 0);
        for (auto* v : {&p->packet, &p->flit, &p->src, &p->dst, &p->tail}) v->assign(rt.ports(), 0);
        const std::string scope = "SystemC." + rn;
        using R = GtkwSaveFile::Radix;
        gtkw.comment(fmt::format("router {} = {}", r, rn));
        std::vector<std::string> ins;
        for (uint32_t port = 0; port < rt.ports(); ++port) {
            std::string pn = Topology::portName(static_cast<uint8_t>(port));
            sc_trace(tf_, p->occupancy[port], fmt::format("{}.in_{}.occupancy", rn, pn), 16);
            ins.push_back("in_" + pn);
            if (rt.outLink(static_cast<uint8_t>(port)) == Router::kNoLink) continue;
            const std::string o = fmt::format("{}.out_{}", rn, pn);
            sc_trace(tf_, p->valid[port], o + ".flit_valid", 1);
            sc_trace(tf_, p->vc[port], o + ".vc", 8);
            sc_trace(tf_, p->packet[port], o + ".packet", 32);
            sc_trace(tf_, p->flit[port], o + ".flit", 16);
            sc_trace(tf_, p->src[port], o + ".src", 32);
            sc_trace(tf_, p->dst[port], o + ".dst", 32);
            sc_trace(tf_, p->tail[port], o + ".tail", 1);
            for (uint32_t v = 0; v < rt.vcs(); ++v)
                sc_trace(tf_, p->credits[port * rt.vcs() + v], fmt::format("{}.credits_vc{}", o, v),
                         8);
            const std::string g = "SystemC." + o;
            gtkw.comment(fmt::format("{} out_{}", rn, pn));
            gtkw.signal(g + ".flit_valid", 1, R::Binary);
            gtkw.signal(g + ".packet", 32, R::Decimal);
            gtkw.signal(g + ".flit", 16, R::Decimal);
            gtkw.signal(g + ".src", 32, R::Decimal);
            gtkw.signal(g + ".dst", 32, R::Decimal);
            gtkw.signal(g + ".tail", 1, R::Binary);
            gtkw.signal(g + ".vc", 8, R::Decimal);
        }
        // Every buffer row would read "occupancy": named by its port instead.
        gtkw.comment(fmt::format("{} input buffers", rn));
        for (const auto& in : ins)
            gtkw.signal(scope + "." + in + ".occupancy", 16, R::Decimal, in + " occupancy");
        probes_.push_back(std::move(p));
    }
    gtkw.write(base + ".gtkw");
}

void NocShell::updateProbes(uint64_t c) {
    cycle_signal_ = c;
    for (auto& p : probes_) {
        const Router& rt = traced_net_->router(p->router);
        for (uint32_t port = 0; port < rt.ports(); ++port) {
            p->occupancy[port] = rt.occupancy(static_cast<uint8_t>(port));
            bool v = rt.lastSendCycle(static_cast<uint8_t>(port)) == c;
            p->valid[port] = v ? 1 : 0;
            if (v) {
                p->vc[port] = rt.lastSendVc(static_cast<uint8_t>(port));
                // The flit is on its way: its packet is live until its tail is delivered.
                const Flit& f = rt.lastSendFlit(static_cast<uint8_t>(port));
                const PacketInfo& pk = traced_net_->packet(f.packet);
                p->packet[port] = static_cast<uint32_t>(pk.id);
                p->flit[port] = f.seq;
                p->src[port] = pk.src;
                p->dst[port] = pk.dst;
                p->tail[port] = f.tail() ? 1 : 0;
            }
            // Otherwise the last flit's VC and identity are held (flit_valid says when it left),
            // so the values stay wide enough to read in GTKWave.
            for (uint32_t k = 0; k < rt.vcs(); ++k)
                p->credits[port * rt.vcs() + k] =
                    rt.credits(static_cast<uint8_t>(port), static_cast<uint8_t>(k));
        }
    }
}

}  // namespace wsc::noc
