#pragma once
// Records, per phase of a run, how busy every router-to-router link was (for heatmaps), and at
// the end the bits every link carried by kind (for energy). Phases are given by their start
// cycles; a phase ends where the next one starts or at the last cycle of the run. Snapshots are
// taken at the start of a phase's first cycle, so phase busy counts add up to the run's.
#include <string>
#include <vector>

#include "hw/EnergyEvents.h"
#include "hw/LinkUse.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

struct LinkPhase {
    std::string name;
    uint64_t begin = 0, end = 0;     // cycles [begin, end)
    std::vector<hw::LinkUse> links;  // router-to-router links, utilization over the phase
};

class LinkRecorder : public RunObserver {
  public:
    struct PhaseStart {
        std::string name;
        uint64_t begin;
    };
    // Phases in order; the first should begin at 0.
    explicit LinkRecorder(std::vector<PhaseStart> phases);

    void attach(const noc::Network& net, core::CoreArray* cores) override;
    void beforeStep(uint64_t cycle) override;
    void finish(uint64_t last_cycle) override;

    // Phases that have at least one cycle, after finish().
    const std::vector<LinkPhase>& phases() const { return done_; }
    // The whole run as one phase, after finish().
    const LinkPhase& whole() const { return whole_; }
    // Link bits by kind (cycles left 0: the caller knows the run length).
    const hw::EnergyEvents& linkEvents() const { return events_; }

  private:
    std::vector<uint64_t> busyNow() const;

    std::vector<PhaseStart> starts_;
    const noc::Network* net_ = nullptr;
    std::vector<uint32_t> ids_;                // router-to-router link ids
    std::vector<std::vector<uint64_t>> snap_;  // busy cycles at each phase start
    std::vector<uint64_t> snap_cycle_;
    std::vector<LinkPhase> done_;
    LinkPhase whole_;
    hw::EnergyEvents events_;
};

}  // namespace wsc::tb
