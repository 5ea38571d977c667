#include "testbench/RunOutputs.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "hw/EnergyModel.h"
#include "hw/LinkHeatmap.h"
#include "testbench/CommPhaseSplit.h"

namespace wsc::tb {

namespace {
// Counter samples in a trace: about this many over a run, whatever its length.
constexpr uint64_t kTraceSamples = 2000;
}  // namespace

RunOutputs::RunOutputs(const hw::ScenarioConfig& sc, std::string heatmap_path,
                       std::string perfetto_path, CoreTimelineRecorder::Options trace)
    : sc_(sc), heatmap_(std::move(heatmap_path)), perfetto_(std::move(perfetto_path)) {
    uint64_t expected = 0;
    if (sc_.workload_type == "traffic") {
        const auto& tp = sc_.traffic;
        phases_ = {{"warm-up", 0},
                   {"measure", tp.warmup_cycles},
                   {"drain", tp.warmup_cycles + tp.measure_cycles}};
        expected = tp.warmup_cycles + tp.measure_cycles;
    } else {
        phases_ = {{"run", 0}};
        expected = 20000;  // unknown in advance; a guess that keeps short runs finely sampled
    }
    links_ = std::make_unique<LinkRecorder>(phases_);
    if (sc_.workload_type == "llm" && !heatmap_.empty())
        timeline_ = std::make_unique<LinkTimeline>();
    if (!perfetto_.empty()) {
        trace_ = std::make_unique<hw::PerfettoTrace>(sc_.noc.clock_hz);
        noc_timeline_ =
            std::make_unique<NocTimelineRecorder>(*trace_, phases_, expected / kTraceSamples);
        if (sc_.workload_type != "traffic")
            core_timeline_ = std::make_unique<CoreTimelineRecorder>(*trace_, std::move(trace));
    }
}

std::vector<RunObserver*> RunOutputs::observers() {
    std::vector<RunObserver*> o{links_.get()};
    if (timeline_) o.push_back(timeline_.get());
    if (noc_timeline_) o.push_back(noc_timeline_.get());
    if (core_timeline_) o.push_back(core_timeline_.get());
    return o;
}

std::string RunOutputs::phasePath(const std::string& path, const std::string& phase) {
    const auto dot = path.rfind('.');
    const auto slash = path.find_last_of('/');
    const bool hasExt = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    return hasExt ? path.substr(0, dot) + "." + phase + path.substr(dot) : path + "." + phase;
}

void RunOutputs::finishTraffic(const TrafficResult& r, std::ostream& os, nlohmann::json* stats) {
    hw::EnergyEvents ev = links_->linkEvents();
    ev.cycles = r.total_cycles;
    finish(ev, os, stats, "measure");
}

void RunOutputs::finishGemm(const GemmResult& r, std::ostream& os, nlohmann::json* stats) {
    hw::EnergyEvents ev = links_->linkEvents();
    ev.cycles = r.cycles;
    for (const core::CoreStats& s : r.stats) hw::EnergyModel::countCore(ev, s);
    finish(ev, os, stats, "run");
}

void RunOutputs::finishKernel(const KernelResult& r, std::ostream& os, nlohmann::json* stats) {
    // The kernel report has printed r.energy (EnergyModel over the same counts); keep it as is.
    finishRun(r.events, r.energy, os, stats);
}

void RunOutputs::finishRun(const hw::EnergyEvents& ev, const hw::EnergyReport& energy,
                           std::ostream& os, nlohmann::json* stats) {
    energy_ = energy;
    energyJson(ev, stats);
    writeFiles(os, "run");
}

void RunOutputs::finishLlm(const LlmResult& r, std::ostream& os, nlohmann::json* stats) {
    if (!r.phases.empty()) energy_ = r.phases.front().energy;
    if (!r.runs.empty()) energyJson(r.runs.back().events, stats);
    // A track per kind of collective in each die's process: one slice per instance (first to
    // last instruction), named by its label ("mb 2 layer 0 attn.out").
    // The observers watched one run (the last build of the first phase: a decode after a
    // prefill runs unobserved): the one whose collectives were recorded.
    const LlmRun* watched = nullptr;
    for (const auto& run : r.runs)
        if (!run.comm_spans.empty()) watched = &run;
    if (trace_ && core_timeline_ && watched) {
        std::map<std::pair<uint32_t, std::string>, uint32_t> tid;
        int64_t order = 100;
        for (const auto& c : watched->comm_spans) {
            const uint32_t pid = core_timeline_->pidOf(c.die);
            if (pid == ~0u) continue;
            auto [it, fresh] = tid.try_emplace({c.die, c.kind}, 0);
            if (fresh) it->second = trace_->track(pid, c.kind, order++);
            trace_->span(pid, it->second, c.label, c.begin, c.end);
        }
    }
    writeFiles(os, "run");
    if (timeline_ && watched) phaseHeatmaps(*watched, os);
}

double RunOutputs::writeHeatmap(const std::string& path, const std::string& title,
                                const std::vector<hw::LinkUse>& links) const {
    hw::LinkHeatmap hm(sc_.noc.topology, title);
    hm.setScale(heatmap_scale_);
    if (sc_.hbm) hm.setHbm(sc_.hbm_attach);
    hm.writeFile(path, links);
    return hm.scaleFor(links);
}

void RunOutputs::phaseHeatmaps(const LlmRun& run, std::ostream& os) const {
    std::vector<CommPhaseSplit::Span> spans;
    for (const auto& c : run.comm_spans) spans.push_back({c.die, c.kind, c.begin, c.end});
    const auto phases = CommPhaseSplit::split(timeline_->windows(), timeline_->links(), spans);
    uint64_t total = 0;
    for (const auto& p : phases) total += p.cycles;
    const auto& t = sc_.noc.topology;
    std::vector<const CommPhaseSplit::Phase*> comm;
    for (const auto& p : phases) {
        const std::string path = phasePath(heatmap_, "phase-" + CommPhaseSplit::slug(p.name));
        const double share = total ? 100.0 * double(p.cycles) / double(total) : 0.0;
        writeHeatmap(path,
                     fmt::format("{}: link utilization while the dies run {} ({:.1f}% of the run, "
                                 "{}x{} routers)",
                                 sc_.name, p.name, share, t.x, t.y),
                     p.links);
        fmt::print(os,
                   "  phase heatmap       {} ({}: {:.1f}% of the run, busiest link {:.3f}, {} "
                   "links hot (>= 50% of it), {} cold (< 10%))\n",
                   path, p.name, share, p.busiest(), p.hot().size(), p.cold().size());
        if (p.name != "compute" && share >= 1.0) comm.push_back(&p);
    }
    for (size_t a = 0; a < comm.size(); ++a)
        for (size_t b = a + 1; b < comm.size(); ++b)
            fmt::print(os, "  hot in both         {} and {}: {} of {} links\n", comm[a]->name,
                       comm[b]->name, CommPhaseSplit::hotInBoth(*comm[a], *comm[b]).size(),
                       comm[a]->links.size());
}

void RunOutputs::finish(const hw::EnergyEvents& ev, std::ostream& os, nlohmann::json* stats,
                        const std::string& main_phase) {
    energy_ = hw::EnergyModel(sc_.noc, sc_.energy, sc_.hbm).evaluate(ev);
    energy_.print(os);
    energyJson(ev, stats);
    writeFiles(os, main_phase);
}

void RunOutputs::energyJson(const hw::EnergyEvents& ev, nlohmann::json* stats) const {
    if (!stats) return;
    energy_.toJson((*stats)["energy"]);
    (*stats)["energy"]["events"] = {{"cycles", ev.cycles},
                                    {"flops", ev.flops},
                                    {"sram_bytes", ev.sram_bytes},
                                    {"link_bits", ev.link_bits},
                                    {"local_bits", ev.local_bits},
                                    {"d2d_bits", ev.d2d_bits},
                                    {"w2w_bits", ev.w2w_bits},
                                    {"hbm_read_bits", ev.hbm_read_bits},
                                    {"hbm_write_bits", ev.hbm_write_bits}};
}

void RunOutputs::writeFiles(std::ostream& os, const std::string& main_phase) {
    if (!heatmap_.empty()) {
        const auto& t = sc_.noc.topology;
        for (const LinkPhase& p : links_->phases()) {
            const std::string path = p.name == main_phase ? heatmap_ : phasePath(heatmap_, p.name);
            const std::string title =
                fmt::format("{}: link utilization, {} phase, cycles {}..{} ({}x{} routers)",
                            sc_.name, p.name, p.begin, p.end, t.x, t.y);
            const double scale = writeHeatmap(path, title, p.links);
            fmt::print(os,
                       "  heatmap             {} ({} phase, {} links, colour scale 0 .. {:g}{})\n",
                       path, p.name, p.links.size(), scale, heatmap_scale_ > 0 ? "" : " auto");
        }
    }
    if (trace_) {
        trace_->writeFile(perfetto_);
        fmt::print(os,
                   "  perfetto trace      {} ({} cores, {} core tracks, {} spans; open in "
                   "ui.perfetto.dev)\n",
                   perfetto_, core_timeline_ ? core_timeline_->tracedCores() : 0,
                   core_timeline_ ? core_timeline_->tracks() : 0, trace_->spans());
        if (core_timeline_ && core_timeline_->truncatedAt() != noc::kNever)
            fmt::print(os,
                       "  perfetto trace      core tracks stop at cycle {}: the span cap was "
                       "reached (--perfetto-max-spans, --perfetto-cores)\n",
                       core_timeline_->truncatedAt());
    }
}

}  // namespace wsc::tb
