#pragma once
// One core as plain C++ (no sc_module: a wafer has 10^5 of them): the Controller running its
// firmware, its SRAM, DMA engine and receive mailbox, and its counters. The PE array and vector
// unit timing models are shared by all cores of a CoreArray (they hold no per-core state; the
// controller keeps which unit is busy until when).
#include <cstdint>
#include <string>

#include "core/Controller.h"
#include "core/CoreEnvironment.h"
#include "core/CoreParams.h"
#include "core/CoreStats.h"
#include "core/CoreTraceSink.h"
#include "core/DmaEngine.h"
#include "core/Mailbox.h"
#include "core/PeArray.h"
#include "core/Sram.h"
#include "core/VectorUnit.h"
#include "firmware/Program.h"

namespace wsc::core {

class Core {
  public:
    Core(uint32_t id, const CoreParams& p, const PeArray& pe, const VectorUnit& vu,
         CoreEnvironment& env);
    Core(const Core&) = delete;
    Core& operator=(const Core&) = delete;

    uint32_t id() const { return id_; }
    // Allocates the program's buffers (SramOverflowError names `who`) and resets the controller.
    void load(const firmware::Program& prog, const std::string& who);
    bool evaluate(uint64_t now) { return ctrl_.evaluate(now); }
    void onMessage(const noc::Message& m, uint64_t cycle) { ctrl_.onMessage(m, cycle); }
    noc::Admission admit(const noc::Message& m, uint32_t bytes) { return ctrl_.admit(m, bytes); }
    uint64_t rxCapacity() const { return ctrl_.rxCapacity(); }
    const Mailbox& mailbox() const { return mb_; }
    void onMemory(MemoryRequest& r) { ctrl_.onMemory(r); }
    bool done() const { return ctrl_.done(); }
    // CoreArray's look-ahead (Controller::prefetchObject / prefetchState / prefetchCode).
    WSC_PREFETCH void prefetchObject() const {
        ctrl_.prefetchObject();
        noc::prefetchLine(&stats_);
    }
    WSC_PREFETCH void prefetchState() const { ctrl_.prefetchState(); }
    WSC_PREFETCH void prefetchCode(int stage) const { ctrl_.prefetchCode(stage); }
    bool progressed() const { return ctrl_.progressed(); }
    void finish(uint64_t end) { ctrl_.finish(end); }
    std::string status() const { return ctrl_.status(); }
    void setTraceSink(CoreTraceSink* sink) { ctrl_.setTraceSink(sink); }
    CoreTraceSink* traceSink() const { return ctrl_.traceSink(); }

    Sram& sram() { return sram_; }
    const Sram& sram() const { return sram_; }
    const CoreStats& stats() const { return stats_; }
    // Values of buffer `name` (functional mode), or nullptr.
    const float* buffer(const std::string& name) const;
    float* buffer(const std::string& name);

  private:
    uint32_t id_;
    const CoreParams& p_;
    const firmware::Program* prog_ = nullptr;
    Sram sram_;
    DmaEngine dma_;
    Mailbox mb_;
    CoreStats stats_;
    Controller ctrl_;
};

}  // namespace wsc::core
