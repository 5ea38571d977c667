#pragma once
// The outputs of one `wsc run` / `wsc traffic` / `wsc kernel` beyond the testbench's own summary:
// the energy breakdown (always printed, and put into the stats JSON), link-utilization heatmaps per
// phase
// (--heatmap FILE.svg) and the Perfetto trace (--perfetto FILE.json). It owns the observers it
// hands to the testbench and writes the files when the run is over.
#include <iosfwd>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "hw/EnergyReport.h"
#include "hw/PerfettoTrace.h"
#include "hw/ScenarioConfig.h"
#include "testbench/CoreTimelineRecorder.h"
#include "testbench/GemmTestbench.h"
#include "testbench/KernelTestbench.h"
#include "testbench/LinkRecorder.h"
#include "testbench/LinkTimeline.h"
#include "testbench/LlmTestbench.h"
#include "testbench/NocTimelineRecorder.h"
#include "testbench/TrafficResult.h"

namespace wsc::tb {

class RunOutputs {
  public:
    // Traffic runs have warm-up / measure / drain phases; other runs one phase, "run".
    // `trace` selects the traced cores and caps the core spans (CoreTimelineRecorder).
    RunOutputs(const hw::ScenarioConfig& sc, std::string heatmap_path, std::string perfetto_path,
               CoreTimelineRecorder::Options trace = {});
    // --heatmap-scale: the utilization drawn red (0: auto, the busiest link).
    void setHeatmapScale(double max_utilization) { heatmap_scale_ = max_utilization; }
    // --perfetto-unit: times of the trace in cycles or real time (hw::PerfettoTrace::Unit).
    void setPerfettoUnit(const std::string& unit) {
        if (trace_) trace_->setUnit(hw::PerfettoTrace::parseUnit(unit));
    }

    std::vector<RunObserver*> observers();
    // After the run: compute energy, write heatmaps and trace, print their summary to `os` and
    // add "energy" to `stats` (if not null).
    void finishTraffic(const TrafficResult& r, std::ostream& os, nlohmann::json* stats);
    void finishGemm(const GemmResult& r, std::ostream& os, nlohmann::json* stats);
    // A kernel run (`wsc kernel`): its report already printed r.energy, so this only adds the
    // energy and its events to `stats` and writes the heatmap and trace.
    void finishKernel(const KernelResult& r, std::ostream& os, nlohmann::json* stats);
    // Any other run with one phase (`wsc tatp`): its energy counts and report; writes the files.
    void finishRun(const hw::EnergyEvents& ev, const hw::EnergyReport& energy, std::ostream& os,
                   nlohmann::json* stats);
    // An LLM step (`wsc llm`): the observers watched its last simulated run; writes their files,
    // and with --heatmap one heatmap per phase of the step (CommPhaseSplit: out.<kind>.svg) and
    // which links each phase keeps hot or leaves cold.
    void finishLlm(const LlmResult& r, std::ostream& os, nlohmann::json* stats);

    const hw::EnergyReport& energy() const { return energy_; }
    const LinkRecorder& links() const { return *links_; }
    // The core timeline (null without --perfetto or without cores).
    const CoreTimelineRecorder* coreTimeline() const { return core_timeline_.get(); }
    // "out.svg" + "drain" -> "out.drain.svg": one heatmap file per phase beside the named one.
    static std::string phasePath(const std::string& path, const std::string& phase);

  private:
    void finish(const hw::EnergyEvents& ev, std::ostream& os, nlohmann::json* stats,
                const std::string& main_phase);
    void energyJson(const hw::EnergyEvents& ev, nlohmann::json* stats) const;
    void writeFiles(std::ostream& os, const std::string& main_phase);
    void phaseHeatmaps(const LlmRun& run, std::ostream& os) const;
    // One heatmap with this run's colour scale and HBM stacks; returns the scale drawn.
    double writeHeatmap(const std::string& path, const std::string& title,
                        const std::vector<hw::LinkUse>& links) const;

    hw::ScenarioConfig sc_;
    std::string heatmap_, perfetto_;
    double heatmap_scale_ = 0;  // 0: auto (hw::LinkHeatmap::setScale)
    std::vector<LinkRecorder::PhaseStart> phases_;
    std::unique_ptr<LinkRecorder> links_;
    std::unique_ptr<LinkTimeline> timeline_;  // llm runs with --heatmap: per-phase heatmaps
    std::unique_ptr<hw::PerfettoTrace> trace_;
    std::unique_ptr<NocTimelineRecorder> noc_timeline_;
    std::unique_ptr<CoreTimelineRecorder> core_timeline_;
    hw::EnergyReport energy_;
};

}  // namespace wsc::tb
