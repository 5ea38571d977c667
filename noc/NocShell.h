#pragma once
// The SystemC face of the NoC: one SC_METHOD that steps the plain C++ Network on clock edges
// while it has work and otherwise sleeps until the next scheduled event or an injection wakes it.
// No clock signal and no process per router: an idle mesh costs no kernel activations at all.
// The same shell can run several networks one after another (a sweep in one process), since
// SystemC elaborates only once per process.
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "noc/CycleDriver.h"
#include "noc/Network.h"

namespace wsc::noc {

class NocShell : public sc_core::sc_module {
  public:
    SC_HAS_PROCESS(NocShell);
    NocShell(sc_core::sc_module_name name, double clock_hz);

    // Runs `net` under `driver` from cycle 0 until the driver is done and returns the last cycle.
    // Rethrows anything the network threw (deadlock, integrity) with its original type.
    uint64_t run(Network& net, CycleDriver& driver);
    // Wakes the shell after an injection from outside a step (e.g. a core module).
    void wake() { wake_ev_.notify(sc_core::SC_ZERO_TIME); }
    uint64_t cycle() const;  // the NoC cycle containing the current time (floor)
    // The first NoC edge at or after the current time: cycle(), or cycle() + 1 between edges.
    uint64_t edgeAtOrAfterNow() const;
    uint64_t activations() const { return activations_; }

    // VCD of chosen routers: a cycle counter; per port buffer occupancy; per output flit valid,
    // VC and the last flit's identity (packet id, flit index, source and destination node, tail);
    // per output VC credits. Writes a GTKWave save file beside it (FILE.gtkw). Must be called
    // before run(); forces a step every cycle so "valid" drops to 0.
    void traceRouters(const std::string& vcd_path, Network& net,
                      const std::vector<uint32_t>& routers);

  private:
    void tick();
    sc_core::sc_time timeOf(uint64_t c) const { return base_ + period_ * static_cast<double>(c); }
    void updateProbes(uint64_t cycle);

    sc_core::sc_time period_;
    sc_core::sc_time base_;
    sc_core::sc_event wake_ev_;
    Network* net_ = nullptr;
    CycleDriver* driver_ = nullptr;
    bool stepped_ = false, running_ = false;
    uint64_t last_ = 0;
    uint64_t activations_ = 0;
    std::exception_ptr error_;

    struct Probe {
        uint32_t router;
        std::vector<uint32_t> occupancy;  // per input port
        std::vector<uint32_t> valid;      // per output port: a flit left this cycle (1 bit)
        std::vector<uint32_t> vc;         // per output port: its VC
        std::vector<uint32_t> credits;    // per output port x VC
        // Per output port, the last flit that left (held until the next one).
        std::vector<uint32_t> packet, flit, src, dst, tail;
    };
    uint64_t cycle_signal_ = 0;  // "cycle" in the VCD
    sc_core::sc_trace_file* tf_ = nullptr;
    std::vector<std::unique_ptr<Probe>> probes_;
    const Network* traced_net_ = nullptr;
};

}  // namespace wsc::noc
