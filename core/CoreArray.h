#pragma once
// All cores of a chip as one plain C++ object that NocShell drives with the network in a single
// SC_METHOD (it is a noc::CycleDriver and the network's observer). It keeps an active set:
// a core is evaluated only in cycles where something can have changed for it (it issued last
// cycle, a unit finishes, a message or memory answer arrives, or it polls for egress credits),
// so idle and waiting cores cost nothing and a cycle's cost scales with the work, not the chip.
#include <cstdint>
#include <deque>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/Core.h"
#include "core/CoreEnvironment.h"
#include "core/CoreParams.h"
#include "core/MemoryPort.h"
#include "core/NocAgent.h"
#include "core/PeArray.h"
#include "core/VectorUnit.h"
#include "firmware/Firmware.h"
#include "noc/CycleCalendar.h"
#include "noc/CycleDriver.h"
#include "noc/EjectionGate.h"
#include "noc/Network.h"
#include "noc/NetworkObserver.h"

namespace wsc::core {

class CoreArray : public noc::CycleDriver,
                  public noc::NetworkObserver,
                  public noc::EjectionGate,
                  public CoreEnvironment {
  public:
    // One core per NoC node; becomes the network's observer.
    CoreArray(noc::Network& net, const CoreParams& p);

    // Validates the firmware, keeps it, allocates every core's buffers and resets the cores.
    void load(firmware::Firmware fw);
    const firmware::Firmware& firmware() const { return fw_; }
    // Memory ports in order; core c uses port c % ports unless setPortOfCore says otherwise.
    void attachMemoryPort(MemoryPort& port) { ports_.push_back(&port); }
    // Core c uses memory port map[c] (an index into the attached ports; one entry per core).
    void setPortOfCore(std::vector<uint32_t> map) { port_of_core_ = std::move(map); }
    // A memory port answered (called by the bridge; r.ready is the cycle it becomes visible).
    void memoryDone(MemoryRequest&& r);
    // An agent that exchanges messages over the NoC (a NocMemoryPort); returns its index, which
    // its messages carry in their tag (MessageTag::memory).
    uint16_t attachAgent(NocAgent& a) {
        agents_.push_back(&a);
        return static_cast<uint16_t>(agents_.size() - 1);
    }
    uint64_t now() const { return now_; }

    // noc::CycleDriver
    void beforeStep(uint64_t cycle) override;
    void afterStep(uint64_t cycle) override;
    uint64_t nextWake(uint64_t cycle) const override;
    bool done(uint64_t cycle) const override;
    // noc::NetworkObserver
    void onMessageDelivered(const noc::Message& m, uint32_t node, uint64_t cycle) override;
    // noc::EjectionGate: a core takes a flit when its receive is posted or its receive buffer
    // (core.rx_buffer, in SRAM) has room; memory-port traffic is never refused.
    noc::Admission admitFlit(const noc::Message& m, uint32_t node, uint32_t bytes,
                             uint64_t cycle) override;
    // CoreEnvironment
    void send(const noc::Message& m, uint64_t now) override { net_.send(m, now); }
    size_t egressQueued(uint32_t core) const override { return net_.ni(core).queued(); }
    void wakeAt(uint32_t core, uint64_t cycle) override;
    void ejectionReady(uint32_t core) override { net_.wakeEjection(core); }
    void memoryRequest(MemoryRequest&& r) override;
    uint32_t cores() const override { return static_cast<uint32_t>(cores_.size()); }

    // Runs cores and network without SystemC (no memory ports); returns the last cycle.
    // `on_step` (optional) is called after every step, e.g. for a progress line.
    uint64_t run(uint64_t limit = noc::kNever, const std::function<void(uint64_t)>& on_step = {});
    // The same loop through `driver`, which must drive this array (it or a wrapper that passes
    // every call on, such as the testbench's observed driver): what steps and when is unchanged,
    // the wrapper only gets to look around each step.
    uint64_t run(uint64_t limit, noc::CycleDriver& driver,
                 const std::function<void(uint64_t)>& on_step = {});
    uint32_t finishedCores() const { return finished_; }
    // The cycle in which the last core to finish retired its last instruction (0 if all were
    // empty). A run's loop goes on until the network is idle, which also waits for the credits
    // of the last flits to travel back (a D2D link's full latency): that drain is not work.
    uint64_t lastFinish() const { return last_finish_; }
    // Charges every core's cycles up to `end` (the run's last cycle).
    void finish(uint64_t end);

    // Core `c` reports its exact timeline to `sink` (null: stops); set before the run starts so
    // the charges begin at cycle 0.
    void setTraceSink(uint32_t c, CoreTraceSink* sink) { cores_[c].setTraceSink(sink); }
    CoreTraceSink* traceSink(uint32_t c) const { return cores_[c].traceSink(); }
    Core& core(uint32_t i) { return cores_[i]; }
    const Core& core(uint32_t i) const { return cores_[i]; }
    const CoreParams& params() const { return p_; }
    const PeArray& peArray() const { return pe_; }
    uint64_t peakMacsPerCycle() const { return pe_.peakMacsPerCycle(); }
    uint64_t evaluations() const { return evaluations_; }
    void dumpStats(nlohmann::json& out) const;
    std::string name(uint32_t core) const;  // "core 5 (1,1)"

  private:
    void mark(uint32_t core) {
        if (!queued_[core]) queued_[core] = 1, active_.push_back(core);
    }
    std::string stuckReport(uint64_t cycle) const;

    noc::Network& net_;
    CoreParams p_;
    PeArray pe_;
    VectorUnit vu_;
    firmware::Firmware fw_;
    std::deque<Core> cores_;  // deque: cores are not movable and are never re-seated
    std::vector<MemoryPort*> ports_;
    std::vector<uint32_t> port_of_core_;  // empty: core c % ports
    std::vector<NocAgent*> agents_;
    std::vector<uint32_t> active_, next_;
    std::vector<uint8_t> queued_;
    // Cores asked to be woken, by (cycle, core): the order they are marked active in.
    noc::CycleCalendar timers_;
    std::vector<uint32_t> due_timers_;
    std::deque<MemoryRequest> mem_done_;  // answered, ordered by ready cycle
    uint64_t mem_outstanding_ = 0;
    uint32_t finished_ = 0;
    uint64_t now_ = 0, evaluations_ = 0, last_finish_ = 0;
    bool loaded_ = false;
    bool progress_ = false;  // some core issued in the last beforeStep
};

}  // namespace wsc::core
