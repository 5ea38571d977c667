#include "testbench/LlmTestbench.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "core/CoreArray.h"
#include "core/CoreTraceSink.h"
#include "core/PeArray.h"
#include "firmware/moe/FtdAnalysis.h"
#include "firmware/placement/ExplicitPlacement.h"
#include "firmware/placement/MoePlacement.h"
#include "firmware/placement/TcmePlacement.h"
#include "firmware/plan/RankGrid.h"
#include "firmware/watos/LinkAllocator.h"
#include "firmware/watos/WatosPlacement.h"
#include "hw/EnergyModel.h"
#include "hw/StatsKey.h"
#include "testbench/CoreTimelineRecorder.h"
#include "testbench/KernelTestbench.h"
#include "testbench/ObservedDriver.h"

namespace wsc::tb {

using firmware::llm::StepBuilder;
using firmware::llm::StepProgram;
using firmware::llm::StepSpec;

namespace {

// Watches every die: wait spans of the compute stream (exposed communication by kind) and the
// spans of every collective's instructions (how long each ran).
class StepTraceSink : public core::CoreTraceSink {
  public:
    // `next`: a sink that also watches the cores it `traces` (the Perfetto recorder): spans and
    // charges are passed on to it.
    explicit StepTraceSink(const StepProgram& sp, const CoreTimelineRecorder* next = nullptr)
        : next_(next) {
        for (size_t i = 0; i < sp.comms.size(); ++i) {
            const auto& c = sp.comms[i];
            by_die_[c.die].push_back({c.pc_begin, c.pc_end, i});
        }
        for (auto& [d, v] : by_die_) std::sort(v.begin(), v.end());
        for (const auto& w : sp.waits) waits_[{w.die, w.pc}] = w.kind;
        spans_.assign(sp.comms.size(), {noc::kNever, 0});
    }
    void onSpan(const core::TraceSpan& s) override {
        if (next_ && next_->traces(s.core)) const_cast<CoreTimelineRecorder*>(next_)->onSpan(s);
        if (s.unit == core::TraceUnit::Wait) {
            auto it = waits_.find({s.core, s.pc});
            if (it != waits_.end()) exposed_[s.core][it->second] += s.end - s.begin;
            return;
        }
        auto d = by_die_.find(s.core);
        if (d == by_die_.end()) return;
        const auto& v = d->second;
        auto it = std::upper_bound(v.begin(), v.end(), Range{s.pc, ~0u, ~size_t{0}});
        if (it == v.begin()) return;
        --it;
        if (s.pc >= it->end) return;
        auto& sp = spans_[it->index];
        sp.first = std::min(sp.first, s.begin);
        sp.second = std::max(sp.second, s.end);
    }
    void onCharge(uint32_t c, core::CoreState st, core::StallCause why, uint64_t b,
                  uint64_t e) override {
        if (next_ && next_->traces(c))
            const_cast<CoreTimelineRecorder*>(next_)->onCharge(c, st, why, b, e);
    }
    std::vector<LlmRun::CommSpan> spans(const StepProgram& sp) const {
        std::vector<LlmRun::CommSpan> out;
        for (size_t i = 0; i < sp.comms.size(); ++i)
            if (spans_[i].first != noc::kNever)
                out.push_back({sp.comms[i].die, sp.comms[i].kind, sp.comms[i].label,
                               spans_[i].first, spans_[i].second});
        return out;
    }

    std::map<std::string, uint64_t> exposed(uint32_t die) const {
        auto it = exposed_.find(die);
        return it == exposed_.end() ? std::map<std::string, uint64_t>{} : it->second;
    }
    std::map<std::string, uint64_t> comm(const StepProgram& sp, uint32_t die) const {
        std::map<std::string, uint64_t> out;
        for (size_t i = 0; i < sp.comms.size(); ++i)
            if (sp.comms[i].die == die && spans_[i].first != noc::kNever)
                out[sp.comms[i].kind] += spans_[i].second - spans_[i].first;
        return out;
    }

  private:
    struct Range {
        uint32_t begin, end;
        size_t index;
        bool operator<(const Range& o) const { return begin < o.begin; }
    };
    std::map<uint32_t, std::vector<Range>> by_die_;
    std::map<std::pair<uint32_t, uint32_t>, std::string> waits_;
    std::map<uint32_t, std::map<std::string, uint64_t>> exposed_;
    std::vector<std::pair<uint64_t, uint64_t>> spans_;
    const CoreTimelineRecorder* next_;
};

// Takes the program's firmware: moved into the cores, not copied (the instructions are most of
// a TATP step's memory).
LlmRun simulate(hw::Wafer& wafer, StepProgram& sp, const std::string& phase, uint64_t seed,
                const std::vector<RunObserver*>& observers,
                const std::vector<firmware::temp::TrafficMap::PairRoute>& pair_routes) {
    const auto t0 = std::chrono::steady_clock::now();
    LlmRun r;
    r.phase = phase;
    r.layers = sp.layers_per_stage;
    r.model_flops = sp.model_flops;
    noc::Network& net = wafer.buildNetwork(seed);
    // A die's router, core and node share its index at die level (LlmTestbench::place).
    for (const auto& pr : pair_routes) net.addPairRoute(pr.src, pr.dst, pr.path);
    core::CoreParams cp = wafer.config().core;
    cp.functional = false;
    core::CoreArray& cores = wafer.buildCores(cp);
    cores.load(std::move(sp.fw));
    wafer.attachMemory(false, false, 16, 32, true, std::max<uint64_t>(cp.dma.burst_bytes, 256));
    // The observers attach first (the Perfetto recorder installs itself as the cores' sink);
    // then this run's sink takes the cores and passes their spans on to the recorder.
    ObservedDriver observed(cores, observers, net, &cores);
    const CoreTimelineRecorder* rec = nullptr;
    for (RunObserver* o : observers)
        if (auto* c = dynamic_cast<CoreTimelineRecorder*>(o)) rec = c;
    StepTraceSink sink(sp, rec);
    for (uint32_t d : sp.rank_die) cores.setTraceSink(d, &sink);
    const uint64_t last =
        observers.empty() ? wafer.shell().run(net, cores) : wafer.shell().run(net, observed);
    cores.finish(last);
    observed.finish(last);
    net.checkConservation();
    r.cycles = last + 1;
    uint64_t worst = 0;
    for (uint32_t d : sp.rank_die) {
        const auto& st = cores.core(d).stats();
        if (st.finish_cycle >= worst) worst = st.finish_cycle, r.critical_die = d;
        r.hbm_bytes += st.dma_bytes;
        r.rx_refusals += st.rx_refusals;
        r.rx_held_peak = std::max(r.rx_held_peak, st.rx_held_peak);
    }
    const auto& cs = cores.core(r.critical_die).stats();
    r.hbm_bytes_critical = cs.dma_bytes;
    if (auto it = sp.hbm_by_op.find(r.critical_die); it != sp.hbm_by_op.end())
        r.hbm_by_op = it->second;
    r.compute_busy = cs.pe_busy + cs.vector_busy;
    r.exposed = sink.exposed(r.critical_die);
    r.comm = sink.comm(sp, r.critical_die);
    if (!observers.empty()) r.comm_spans = sink.spans(sp);
    r.events.cycles = r.cycles;
    hw::EnergyModel::countNetwork(r.events, net);
    for (uint32_t d : sp.rank_die) hw::EnergyModel::countCore(r.events, cores.core(d).stats());
    r.flits = net.flitsInjected();
    r.pair_route_flits = net.pairRouteFlits();
    for (uint32_t d : sp.rank_die) cores.setTraceSink(d, nullptr);
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

// Which layer counts a phase simulates and each run's weight in the composed sum
// (docs/LLM.md, "Composition"): T(L) = T(1) + sum over layers i = 1 .. L-1 of the increment of
// i's kind, the increment of a kind measured as T(j + 1) - T(j) at the first layer j >= 1 of that
// kind. One kind: T(1) + (L - 1) (T(2) - T(1)).
struct Composition {
    std::vector<uint64_t> builds;
    std::vector<double> weight;
    std::string rule;
};

Composition compositionFor(const firmware::model::ModelConfig& m, uint64_t L, uint32_t pp,
                           bool full, uint64_t offloaded = 0) {
    Composition c;
    if (full || L <= 2) {
        c.builds = {L}, c.weight = {1.0};
        c.rule = "every layer simulated";
        return c;
    }
    bool mixed = false;
    for (uint64_t l = 1; l < m.layers; ++l) mixed |= m.moeLayer(l) != m.moeLayer(0);
    if (offloaded) {
        // Checkpoint offload moves the first `offloaded` layers of a Sender stage: builds of
        // a = offloaded + 1 and a + 1 layers hold all of them, and the layers after them are
        // identical: T(L) = T(a) + (L - a) (T(a + 1) - T(a)).
        const uint64_t a = offloaded + 1;
        if (mixed || a + 1 >= L) {
            c.builds = {L}, c.weight = {1.0};
            c.rule = "every layer simulated (checkpoint offload)";
            return c;
        }
        c.builds = {a, a + 1};
        c.weight = {1.0 - double(L - a), double(L - a)};
        c.rule = fmt::format(
            "T(L) = T({}) + {} (T({}) - T({})) per stage (the first {} layers "
            "offload)",
            a, L - a, a + 1, a, offloaded);
        return c;
    }
    // Layer kinds of the stage (a dense layer and an MoE layer cost differently; DeepSeek-V3
    // starts with 3 dense layers, so T(2) - T(1) alone would never see an expert).
    if (mixed && pp > 1)
        throw std::invalid_argument(fmt::format(
            "composition: {} mixes dense and MoE layers and pp={} gives its stages different "
            "layers; composing needs identical stages: give --full",
            m.name, pp));
    std::map<uint64_t, double> w{{1, 1.0}};
    std::vector<std::string> terms{"T(1)"};
    for (bool moe : {false, true}) {
        uint64_t first = 0, count = 0;
        for (uint64_t i = 1; i < L; ++i)
            if (m.moeLayer(i) == moe) {
                if (!count) first = i;
                ++count;
            }
        if (!count) continue;
        w[first + 1] += double(count);
        w[first] -= double(count);
        std::string t = fmt::format("{} (T({}) - T({}))", count, first + 1, first);
        if (mixed) t += moe ? " [MoE layers]" : " [dense layers]";
        terms.push_back(t);
    }
    for (const auto& [n, x] : w) c.builds.push_back(n), c.weight.push_back(x);
    c.rule = "T(L) = " + terms[0];
    for (size_t i = 1; i < terms.size(); ++i) c.rule += " + " + terms[i];
    c.rule += " per stage";
    return c;
}

LlmPhase composePhase(const std::string& name, const std::vector<const LlmRun*>& rs,
                      const std::vector<double>& w) {
    LlmPhase p;
    p.name = name;
    // Sum over runs of weight x value, for one figure of every run.
    auto mix = [&](auto get) {
        double v = 0;
        for (size_t i = 0; i < rs.size(); ++i) v += w[i] * double(get(*rs[i]));
        return v;
    };
    auto mapMix = [&](auto field, std::map<std::string, double>& out) {
        for (const LlmRun* r : rs)
            for (const auto& kv : field(*r)) out[kv.first] = 0;
        for (auto& [k, v] : out) {
            const std::string key = k;
            v = std::max(0.0, mix([&](const LlmRun& r) {
                             const auto& m = field(r);
                             auto it = m.find(key);
                             return it == m.end() ? uint64_t{0} : it->second;
                         }));
        }
    };
    p.cycles = mix([](const LlmRun& r) { return r.cycles; });
    mapMix(
        [](const LlmRun& r) -> const auto& { return r.exposed; }, p.exposed);
    mapMix(
        [](const LlmRun& r) -> const auto& { return r.comm; }, p.comm);
    mapMix(
        [](const LlmRun& r) -> const auto& { return r.hbm_by_op; }, p.hbm_by_op);
    p.compute_busy = mix([](const LlmRun& r) { return r.compute_busy; });
    p.model_flops = mix([](const LlmRun& r) { return r.model_flops; });
    p.hbm_bytes = mix([](const LlmRun& r) { return r.hbm_bytes_critical; });
    auto ev = [&](auto get) { return uint64_t(std::max(0.0, mix(get)) + 0.5); };
    p.events.cycles = uint64_t(p.cycles + 0.5);
    p.events.flops = ev([](const LlmRun& r) { return r.events.flops; });
    p.events.sram_bytes = ev([](const LlmRun& r) { return r.events.sram_bytes; });
    p.events.link_bits = ev([](const LlmRun& r) { return r.events.link_bits; });
    p.events.local_bits = ev([](const LlmRun& r) { return r.events.local_bits; });
    p.events.d2d_bits = ev([](const LlmRun& r) { return r.events.d2d_bits; });
    p.events.w2w_bits = ev([](const LlmRun& r) { return r.events.w2w_bits; });
    p.events.hbm_read_bits = ev([](const LlmRun& r) { return r.events.hbm_read_bits; });
    p.events.hbm_write_bits = ev([](const LlmRun& r) { return r.events.hbm_write_bits; });
    return p;
}

// The report's view of a routed phase: rows per die of the first MoE layer's first micro-batch
// (the busiest die against the mean) and the worst such ratio over the MoE layers.
std::string routedRows(const std::string& phase, const LlmSpec& spec,
                       const firmware::llm::ExpertRouting& rt) {
    const firmware::llm::ExpertRouter router(spec.plan, spec.model.moe.experts);
    double worst = 0, mean0 = 0;
    uint64_t max0 = 0;
    for (size_t j = 0; j < rt.layers.size(); ++j) {
        const auto rl =
            router.route(0, 0, rt.layers[j],
                         j < rt.hosts.size() ? rt.hosts[j] : std::vector<std::vector<uint32_t>>{});
        uint64_t total = 0;
        for (const auto& r : rl.rows)
            for (const auto& er : r) total += er.second;
        const double mean = double(total) / double(rl.rows.size());
        if (j == 0) max0 = rl.maxRows(), mean0 = mean;
        if (mean > 0) worst = std::max(worst, double(rl.maxRows()) / mean);
    }
    return fmt::format(
        "{}: expert rows per die in MoE layer 0 max {} / mean {:.1f} ({:.2f}x), worst layer "
        "{:.2f}x",
        phase, max0, mean0, mean0 > 0 ? double(max0) / mean0 : 0.0, worst);
}

}  // namespace

firmware::llm::DieSpec LlmTestbench::dieSpec(const hw::HardwareConfig& hw) {
    firmware::llm::DieSpec d;
    const core::CoreParams& c = hw.core;
    d.sram_bytes = c.sram.capacity_bytes;
    d.hbm_bytes = hw.hbm ? hw.hbm->capacityBytes() : c.memory.capacity_bytes * c.memory.ports;
    d.clock_hz = hw.noc.clock_hz;
    const double bw = hw.hbm ? hw.hbm->peakBandwidthBytesPerSec() * hw::Wafer::kStreamEfficiency
                             : c.memory.bytes_per_ns * 1e9 * c.memory.ports;
    d.hbm_bytes_per_cycle = bw / d.clock_hz;
    // fp16 operands on the PE array: narrower than its native width pack (PeArray's fold model).
    d.peak_macs_per_cycle =
        core::PeArray(c.pe).peakMacsPerCycle() * std::max<uint32_t>(1, c.pe.data_bits / 16);
    d.vector_lanes = c.vector.lanes;
    d.dma_burst = c.dma.burst_bytes;
    return d;
}

double LlmResult::stepSeconds() const {
    double s = 0;
    for (const auto& p : phases) s += seconds(p);
    return s;
}

double LlmResult::tokensPerSecond() const {
    if (phases.empty()) return 0;
    const LlmPhase& p = phases.back();
    if (p.name == "decode") return double(spec.batch * spec.generate) / seconds(p);
    return double(step_tokens) / seconds(p);
}

double LlmResult::mfu() const {
    if (phases.empty()) return 0;
    const LlmPhase& p = phases.front();  // train, or prefill
    return p.model_flops / (double(dies) * double(peak_flops_per_cycle) * p.cycles);
}

namespace {

// Hierarchical ER's wafers: the system's wafers side by side along x.
uint32_t herWafers(const hw::HardwareConfig& hwc) {
    if (hwc.wafer.wafers_y != 1 || hwc.wafer.wafers_x < 2)
        throw std::invalid_argument(fmt::format(
            "placement her: hierarchical ER needs wafers side by side along x (wafer.wafers: "
            "{{x: 2 or more, y: 1}}); the hardware has {} x {}",
            hwc.wafer.wafers_x, hwc.wafer.wafers_y));
    return hwc.wafer.wafers_x;
}

// The placement policy a spec names (tcme aside, which LlmTestbench::place runs with its cost).
std::unique_ptr<firmware::placement::Placement> placementOf(const hw::HardwareConfig& hwc,
                                                            const LlmSpec& spec) {
    if (spec.placement == "list")
        return std::make_unique<firmware::placement::ExplicitPlacement>(spec.placement_list);
    // WATOS Eq. 2 needs the memory plan's pairs (run() places again once it has them); the
    // memory plan is placed on the Eq. 2 search without pairs meanwhile.
    if (spec.placement == "watos")
        return std::make_unique<firmware::watos::WatosPlacement>(
            std::vector<firmware::watos::MemPair>{});
    if (spec.placement == "her")
        return std::make_unique<firmware::placement::MoePlacement>(
            firmware::moe::MappingKind::Hierarchical, herWafers(hwc));
    return firmware::placement::Placement::byName(spec.placement);
}

}  // namespace

LlmTestbench::Placed LlmTestbench::place(const hw::HardwareConfig& hwc, const LlmSpec& spec) {
    const noc::Topology topo(hwc.noc.topology);
    if (topo.dieWidth() != 1 || topo.dieHeight() != 1 || topo.localPorts() != 1)
        throw std::invalid_argument(fmt::format(
            "wsc llm runs at die level (one router and one core per die): this hardware has {} x "
            "{} cores per die; use a die-level config (wafer.cores_per_die 1 x 1)",
            topo.dieWidth(), topo.dieHeight()));
    if (!hwc.hbm)
        throw std::invalid_argument(
            "wsc llm needs each die's memory: the hardware has no hbm: section");
    Placed p;
    p.dies = firmware::placement::DieArray{topo.diesX(), topo.diesY()};
    if (spec.plan.dies() != p.dies.dies())
        throw std::invalid_argument(
            fmt::format("plan {} does not fit the wafer: it has {} dies ({} x {})",
                        spec.plan.arithmetic(), p.dies.dies(), p.dies.x, p.dies.y));
    const firmware::plan::RankGrid grid(spec.plan);
    if (spec.placement != "tcme") {
        p.rank_die = placementOf(hwc, spec)->place(grid, p.dies);
        return p;
    }
    // TCME places with the run's cost (flows or bytes) and reroutes within the route limit;
    // the report and the pair routes go with the placement they describe.
    using firmware::placement::TcmePlacement;
    if (spec.tcme_bytes && spec.plan.tp * spec.plan.sp == 1)
        throw std::invalid_argument(fmt::format(
            "--tcme-cost bytes: plan {} has only TATP groups, whose flows all carry the same "
            "block and are judged by flows per round; bytes weigh TATP against TP or SP rings "
            "(tp or sp > 1)",
            spec.plan.str()));
    p.tcme_xy = hwc.noc.routing == noc::RoutingAlgo::XY && !hwc.noc.faults.any();
    const TcmePlacement::Weights w = TcmePlacement::bytesPerFlow(
        spec.model, spec.plan, spec.batch * spec.seq, firmware::dtypeBytes(spec.dtype), spec.train);
    p.rank_die = TcmePlacement::placeWithReport(
        grid, p.dies, p.tcme, spec.tcme_reroute && p.tcme_xy ? hwc.noc.route_limit : 0,
        spec.tcme_bytes ? &w : nullptr);
    return p;
}

namespace {

// Peak memory of each pipeline stage: the highest of its dies' peaks.
std::vector<uint64_t> stagePeaks(const LlmResult& r) {
    const firmware::plan::RankGrid grid(r.spec.plan);
    std::vector<uint64_t> out;
    for (uint32_t st = 0; st < r.spec.plan.pp; ++st) {
        uint64_t m = 0;
        for (uint32_t rank : grid.stage(st))
            if (r.rank_die[rank] < r.peak.size()) m = std::max(m, r.peak[r.rank_die[rank]]);
        out.push_back(m);
    }
    return out;
}

// A step built for its memory only (no instructions), as the recomputation and offload planners
// price their candidates.
StepProgram accountingBuild(const LlmSpec& spec, const std::vector<uint32_t>& rank_die,
                            const firmware::placement::DieArray& dies,
                            const firmware::llm::DieSpec& die, const StepSpec& s) {
    return StepBuilder(spec.model, spec.plan, rank_die, dies, die, s).build(0, /*emit=*/false);
}

// The recomputation of every stage for a training step (RecomputePlanner): the menu of the
// model's block, one accounting build per option for every stage's peak; throws
// OutOfMemoryError when even the most recomputation leaves a stage above its dies' memory.
// The training step's spec as the memory planners' accounting builds start it.
StepSpec trainSpec(const LlmSpec& spec) {
    StepSpec s;
    s.mode = StepSpec::Mode::Train;
    s.batch = spec.batch;
    s.seq = spec.seq;
    s.dtype = spec.dtype;
    return s;
}
// Transformer layers of every pipeline stage.
std::vector<uint64_t> stageLayersOf(const LlmSpec& spec) {
    std::vector<uint64_t> layers;
    for (uint32_t st = 0; st < spec.plan.pp; ++st)
        layers.push_back(StepBuilder::stageLayers(spec.model, spec.plan.pp, st));
    return layers;
}

firmware::llm::RecomputePlanner::Plan planRecompute(const LlmSpec& spec,
                                                    const std::vector<uint32_t>& rank_die,
                                                    const firmware::placement::DieArray& dies,
                                                    const firmware::llm::DieSpec& die, bool pooled,
                                                    uint64_t pooled_cut = 0) {
    using firmware::llm::RecomputePlanner;
    RecomputePlanner::Plan none;
    if (!spec.train || spec.recompute == RecomputePlanner::Policy::None) return none;
    StepSpec s = trainSpec(spec);
    const StepBuilder base(spec.model, spec.plan, rank_die, dies, die, s);
    const auto menu = RecomputePlanner::menu(base.graph(), spec.plan, die, spec.dtype);
    const firmware::plan::RankGrid grid(spec.plan);
    auto account = [&](const std::vector<uint64_t>& masks) {
        StepSpec t = s;
        t.recompute = masks;
        const StepProgram sp = accountingBuild(spec, rank_die, dies, die, t);
        RecomputePlanner::StageFigures f;
        for (uint32_t st = 0; st < spec.plan.pp; ++st) {
            uint64_t peak = 0, flops = 0;
            for (uint32_t r : grid.stage(st)) {
                peak = std::max(peak, sp.ledger.peak(rank_die[r]));
                flops = std::max(flops, sp.die_flops[r]);
            }
            f.peak.push_back(peak), f.flops.push_back(flops);
        }
        return f;
    };
    const std::vector<uint64_t> layers = stageLayersOf(spec);
    RecomputePlanner::Plan plan = RecomputePlanner::plan(
        spec.recompute, menu, account, layers, spec.plan.microBatches(), die, pooled, pooled_cut);
    if (!plan.feasible)
        throw firmware::llm::OutOfMemoryError(fmt::format(
            "even with --recompute {}: {}", RecomputePlanner::name(spec.recompute), plan.why));
    return plan;
}

// The checkpoint offload of a training step under the recomputation chosen (empty without
// --offload or when every stage fits). A Sender's path cost to a Helper is the mesh hops between
// their dies, summed over the stage's ranks (rank t sends to rank t).
firmware::watos::OffloadPlanner::Plan planOffload(const LlmSpec& spec,
                                                  const std::vector<uint32_t>& rank_die,
                                                  const firmware::placement::DieArray& dies,
                                                  const firmware::llm::DieSpec& die,
                                                  const std::vector<uint64_t>& masks) {
    using firmware::watos::OffloadPlanner;
    if (!spec.train || !spec.offload) return {};
    StepSpec s = trainSpec(spec);
    s.recompute = masks;
    const firmware::plan::RankGrid grid(spec.plan);
    auto account = [&](const firmware::llm::OffloadSpec& o) {
        StepSpec t = s;
        t.offload = o;
        const StepProgram sp = accountingBuild(spec, rank_die, dies, die, t);
        OffloadPlanner::Figures f;
        for (uint32_t st = 0; st < spec.plan.pp; ++st) {
            uint64_t ext = 0;
            for (uint32_t r : grid.stage(st)) ext = std::max(ext, sp.ledger.extent(rank_die[r]));
            f.extent.push_back(ext);
            f.held.push_back(sp.offload_held.empty() ? 0 : sp.offload_held[st]);
        }
        return f;
    };
    auto cost = [&](uint32_t snd, uint32_t hlp) {
        const auto a = grid.stage(snd), b = grid.stage(hlp);
        double hops = 0;
        for (size_t t = 0; t < a.size(); ++t) hops += dies.hops(rank_die[a[t]], rank_die[b[t]]);
        return hops;
    };
    const std::vector<uint64_t> layers = stageLayersOf(spec);
    return OffloadPlanner::plan(account, layers, die.hbm_bytes, cost);
}

// Recomputation and offload together. With --offload and gcmr, the programme pools the stages'
// memory (WATOS Algorithm 2 as printed) and the offload moves the overflow. The programme counts
// a Sender's overflow at its peak, but its Helpers hold every in-flight micro-batch's offloaded
// layers (whole layers): when they cannot, the pooled budget is cut by the shortfall (at least
// 1/16 of a die) and the programme runs again, up to 8 times; then the per-die programme's
// choice (which needs no offload) is used. The note says which.
struct MemoryPlan {
    firmware::llm::RecomputePlanner::Plan recompute;
    firmware::watos::OffloadPlanner::Plan offload;
    std::string note;
};
MemoryPlan planMemory(const LlmSpec& spec, const std::vector<uint32_t>& rank_die,
                      const firmware::placement::DieArray& dies,
                      const firmware::llm::DieSpec& die) {
    using firmware::llm::RecomputePlanner;
    MemoryPlan m;
    if (spec.offload && spec.recompute == RecomputePlanner::Policy::Gcmr) {
        uint64_t cut = 0;
        std::string why;
        for (int attempt = 0; attempt < 8; ++attempt) {
            try {
                m.recompute = planRecompute(spec, rank_die, dies, die, true, cut);
            } catch (const firmware::llm::OutOfMemoryError& e) {
                why = e.what();
                break;
            }
            m.offload = planOffload(spec, rank_die, dies, die, m.recompute.masks);
            if (m.offload.feasible) {
                m.note = cut ? fmt::format("gcmr over pooled memory less {}",
                                           firmware::llm::MemoryLedger::size(cut))
                             : "gcmr over pooled memory";
                return m;
            }
            why = m.offload.why;
            cut += std::max(m.offload.balance.shortfall, die.hbm_bytes / 16);
        }
        m.note = fmt::format(
            "gcmr over pooled memory could not be balanced ({}); gcmr per die used", why);
    }
    m.recompute = planRecompute(spec, rank_die, dies, die, false);
    m.offload = planOffload(spec, rank_die, dies, die, m.recompute.masks);
    if (!m.offload.feasible)
        throw firmware::llm::OutOfMemoryError(
            fmt::format("checkpoint offload cannot fit the plan: {}", m.offload.why));
    return m;
}

// WATOS Eq. 2 for a training step with its offload pairs: Comm_PP of a stage boundary is what
// crosses it per step and rank (each micro-batch's activations forward and gradients back),
// Comm_pair what a pair moves (each micro-batch's share out and back), both in bytes.
struct WatosInputs {
    std::vector<firmware::watos::MemPair> pairs;
    std::vector<double> comm_pp;
};
WatosInputs watosInputs(const LlmSpec& spec, const firmware::watos::OffloadPlanner::Plan& off) {
    const uint32_t mb = spec.plan.microBatches();
    const double e = firmware::dtypeBytes(spec.dtype);
    const double tokens = double(spec.batch) / double(spec.plan.dp * spec.plan.fsdp * mb) *
                          double(spec.seq) / (spec.plan.seqpar ? spec.plan.tp : 1);
    WatosInputs w;
    w.comm_pp.assign(spec.plan.pp > 1 ? spec.plan.pp - 1 : 0,
                     2.0 * mb * tokens * double(spec.model.hidden) * e);
    for (const auto& q : off.spec.pairs) {
        const uint64_t slots = std::min<uint64_t>(spec.plan.pp - q.sender, mb);
        w.pairs.push_back(
            {q.sender, q.helper, 2.0 * mb * double(off.held[q.sender]) * q.share / double(slots)});
    }
    return w;
}
std::vector<uint32_t> watosPlace(const LlmSpec& spec,
                                 const firmware::watos::OffloadPlanner::Plan& off,
                                 const firmware::placement::DieArray& dies) {
    const WatosInputs w = watosInputs(spec, off);
    return firmware::watos::WatosPlacement(w.pairs, w.comm_pp)
        .place(firmware::plan::RankGrid(spec.plan), dies);
}
// The report line: Eq. 2's terms for the final placement and pairs.
std::string watosReport(const LlmSpec& spec, const firmware::watos::OffloadPlanner::Plan& off,
                        const firmware::placement::DieArray& dies,
                        const std::vector<uint32_t>& rank_die, uint32_t rounds) {
    const WatosInputs w = watosInputs(spec, off);
    const firmware::watos::PipelinePlacement pp(dies, spec.plan.pp, spec.plan.tp, w.comm_pp,
                                                w.pairs);
    const auto c = pp.cost(rank_die);  // rank s * tp + t is the grid's rank for tp x pp
    std::string gam;
    for (size_t i = 0; i < w.pairs.size(); ++i)
        gam += fmt::format("{}{}->{}: {:.1f} hops, {} shared links", i ? "; " : "",
                           w.pairs[i].sender, w.pairs[i].helper, c.pair_dist[i], c.pair_gamma[i]);
    return fmt::format(
        "WATOS Eq. 2 ({} placement round{}): pipeline {:.1f} hops between stage "
        "centres{}{}",
        rounds, rounds == 1 ? "" : "s", c.pipelineHops(), w.pairs.empty() ? "" : "; pairs ", gam);
}

// WATOS's PP-engine link allocation (Fig. 13) for the step's inter-stage transfers: per rank,
// activations to the next stage and gradients back (Comm_PP each way), offload and reload to and
// from the same rank of each Helper stage (Comm_pair each way). Fills `routes` with the pairs
// moved off the routing's path and returns the report line.
std::string ppLinks(const hw::HardwareConfig& hwc, const LlmSpec& spec,
                    const firmware::watos::OffloadPlanner::Plan& off,
                    const firmware::placement::DieArray& dies,
                    const std::vector<uint32_t>& rank_die,
                    std::vector<firmware::temp::TrafficMap::PairRoute>& routes) {
    if (!spec.train || spec.plan.pp < 2)
        throw std::invalid_argument(fmt::format(
            "--pp-links watos: allocates the links of a pipeline's inter-stage transfers; plan "
            "{} has pp={}",
            spec.plan.str(), spec.plan.pp));
    if (hwc.noc.routing != noc::RoutingAlgo::XY || hwc.noc.faults.any())
        throw std::invalid_argument(
            "--pp-links watos: the allocation starts from X-first paths; the --hw network must "
            "route xy with no faults");
    if (hwc.wafer.wafers_x * hwc.wafer.wafers_y > 1)
        throw std::invalid_argument(
            "--pp-links watos: one wafer (the allocation treats the dies as one mesh)");
    const WatosInputs w = watosInputs(spec, off);
    const firmware::plan::RankGrid g(spec.plan);
    std::vector<firmware::watos::LinkAllocator::Transfer> ts;
    for (uint32_t r = 0; r < g.ranks(); ++r) {
        const firmware::plan::RankCoord c = g.coord(r);
        if (c.pp + 1 < spec.plan.pp) {
            firmware::plan::RankCoord n = c;
            n.pp = c.pp + 1;
            const double half = w.comm_pp[c.pp] / 2;
            ts.push_back({rank_die[r], rank_die[g.rank(n)], half});
            ts.push_back({rank_die[g.rank(n)], rank_die[r], half});
        }
        for (const auto& q : w.pairs)
            if (c.pp == q.sender) {
                firmware::plan::RankCoord h = c;
                h.pp = q.helper;
                ts.push_back({rank_die[r], rank_die[g.rank(h)], q.bytes / 2});
                ts.push_back({rank_die[g.rank(h)], rank_die[r], q.bytes / 2});
            }
    }
    firmware::watos::LinkAllocator::Options o;
    o.route_limit = hwc.noc.route_limit;
    const auto a = firmware::watos::LinkAllocator(dies, o).allocate(ts);
    routes.clear();
    for (size_t i = 0; i < a.pairs.size(); ++i)
        if (a.moved[i]) routes.push_back({a.pairs[i].src, a.pairs[i].dst, a.paths[i]});
    const bool gb = a.max_link_xy >= 1e9;
    return fmt::format(
        "WATOS inter-stage links (Fig. 13): {} die pairs, {} moved off X-first paths{}{}; busiest "
        "link {:.2f} -> {:.2f} {} per step, links shared by two or more pairs {} -> {}",
        a.pairs.size(), a.movedCount(), a.kept_xy ? " (no allocation did better than them)" : "",
        a.kept_by_limit ? fmt::format(" ({} kept by the route limit)", a.kept_by_limit) : "",
        a.max_link_xy / (gb ? 1e9 : 1e6), a.max_link / (gb ? 1e9 : 1e6), gb ? "GB" : "MB",
        a.shared_xy, a.shared);
}

}  // namespace

namespace {

// The spec's routing options with the placement's name (NI-Balancer needs MoEntwine's mapping).
firmware::llm::RoutingOptions routingOf(const LlmSpec& spec) {
    firmware::llm::RoutingOptions ro = spec.routing;
    ro.mapping = spec.placement;
    return ro;
}

}  // namespace

void LlmTestbench::check(const hw::HardwareConfig& hwc, const LlmSpec& spec) {
    const Placed placed = place(hwc, spec);
    StepSpec s;
    s.mode = spec.train ? StepSpec::Mode::Train : StepSpec::Mode::Prefill;
    s.batch = spec.batch;
    s.seq = spec.seq;
    s.dtype = spec.dtype;
    const firmware::llm::RoutingSource src(routingOf(spec), spec.model, spec.plan, placed.rank_die,
                                           placed.dies, spec.batch * spec.seq);
    s.routing = src.forTokens(spec.batch * spec.seq);
    s.overlap = spec.overlap;
    if (spec.placement == "her") s.her_wafers = herWafers(hwc);
    const MemoryPlan mp = planMemory(spec, placed.rank_die, placed.dies, dieSpec(hwc));
    s.recompute = mp.recompute.masks;
    s.offload = mp.offload.spec;
    const StepBuilder b(spec.model, spec.plan, placed.rank_die, placed.dies, dieSpec(hwc), s);
    b.build(0, /*emit=*/false).ledger.check();
    if (!spec.train && spec.generate > 0) {
        s.mode = StepSpec::Mode::Decode;
        s.seq = spec.seq + spec.generate - 1;
        s.routing = src.forTokens(spec.batch, /*prefill=*/false);
        const StepBuilder d(spec.model, spec.plan, placed.rank_die, placed.dies, dieSpec(hwc), s);
        d.build(0, /*emit=*/false).ledger.check();
    }
}

LlmResult LlmTestbench::run(hw::Wafer& wafer, const LlmSpec& spec, const LlmRunOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    const hw::HardwareConfig& hwc = wafer.config();
    LlmResult res;
    res.spec = spec;
    const Placed placed = place(hwc, spec);
    const firmware::placement::DieArray dies = placed.dies;
    const std::unique_ptr<firmware::placement::Placement> pl = placementOf(hwc, spec);
    res.placement = pl->name();
    res.rank_die = placed.rank_die;
    if (res.placement == "tcme") {
        const firmware::placement::TcmePlacement::Report& rep = placed.tcme;
        const bool xy = placed.tcme_xy;
        res.pair_routes = rep.routes;
        auto count = [](uint64_t n, const char* one, const char* many) {
            return fmt::format("{} {}", n, n == 1 ? one : many);
        };
        // A load as the cost counts it: flows per (round, link), or bytes per link.
        auto load = [&](const firmware::temp::TrafficMap::Load& l) {
            return rep.bytes ? fmt::format("{:.1f} MB ({}, mean {:.1f} MB)", double(l.max) / 1e6,
                                           count(l.at_max, "such link", "such links"), l.mean / 1e6)
                             : fmt::format("{} ({}, mean {:.2f})", count(l.max, "flow", "flows"),
                                           count(l.at_max, "such pair", "such pairs"), l.mean);
        };
        const char* busiest = rep.bytes ? "busiest link" : "busiest (round, link)";
        if (rep.mixed && !rep.tatp_tried)
            res.mapping = fmt::format(
                "TCME over {} TATP, TP and TATP x SP rings: {} innermost ({} {}); no ring block "
                "of tatp dies tiles the array, so TATP innermost was not tried",
                rep.groups, rep.other, busiest, load(rep.before));
        else if (rep.mixed)
            res.mapping = fmt::format(
                "TCME over {} TATP, TP and TATP x SP rings streaming at once: {} {} innermost "
                "{}, TATP innermost {}; kept {} innermost",
                rep.groups, busiest, rep.other, load(rep.before), load(rep.after),
                rep.tatp_inner ? "TATP" : rep.other);
        else
            res.mapping = fmt::format(
                "TCME over {} TATP groups: busiest (round, link) {} -> {}, {} chain reorders",
                rep.groups, load(rep.before), load(rep.after), rep.moves.size());
        if (!spec.tcme_reroute)
            res.mapping += "; pair reroutes off (--tcme-moves reorder)";
        else if (!xy)
            res.mapping += "; no pair reroutes (they assume XY routing on an intact network)";
        else if (rep.routes.empty())
            res.mapping += "; no pair reroute lowers the busiest link";
        else
            res.mapping += fmt::format(
                "; {} rerouted Y first (at most {} per router, limit {}): {} {} -> {}",
                count(rep.routes.size(), "pair", "pairs"),
                count(
                    [&] {
                        uint32_t m = 0;
                        std::map<uint32_t, uint32_t> n;
                        for (const auto& r : rep.routes)
                            for (uint32_t d : r.path) m = std::max(m, ++n[d]);
                        return m;
                    }(),
                    "route entry", "route entries"),
                hwc.noc.route_limit, busiest, load(rep.route_before), load(rep.route_after));
    }
    if (res.placement == "er" || res.placement == "moe-baseline" || res.placement == "her") {
        const auto& mp = static_cast<const firmware::placement::MoePlacement&>(*pl);
        const firmware::moe::FtdAnalysis fa(mp.mapping(firmware::plan::RankGrid(spec.plan), dies));
        uint32_t overlaps = 0;
        for (uint32_t a = 0; a < fa.ftds().size(); ++a)
            for (uint32_t b = a + 1; b < fa.ftds().size(); ++b) overlaps += fa.overlap(a, b) > 0;
        const auto& f0 = fa.ftds().front();
        res.mapping = fmt::format(
            "{}: {} FTDs of {} dies ({}x{} boxes), all-to-all {:.3f} hops on average ({:.3f} "
            "to the other FTD dies), {} overlapping FTD pairs, longest all-reduce ring hop {}",
            res.placement == "er"    ? "ER-Mapping"
            : res.placement == "her" ? "Hierarchical ER-Mapping"
                                     : "MoEntwine baseline",
            fa.ftds().size(), f0.dies.size(), f0.boxCols(), f0.boxRows(), fa.a2aHops(),
            fa.hopsToOthers(), overlaps, fa.maxRingHop(0));
        if (res.placement == "her" && fa.ringHops().size() > 1)
            res.mapping +=
                fmt::format(", longest inter-wafer all-gather ring hop {}", fa.maxRingHop(1));
    }
    if (spec.train && spec.routing.source != firmware::llm::RoutingOptions::Source::None)
        throw std::invalid_argument("expert routing (--gating, --trace) is for wsc llm infer");
    const firmware::llm::RoutingSource routing(routingOf(spec), spec.model, spec.plan, res.rank_die,
                                               dies, spec.batch * spec.seq);
    if (routing.enabled()) res.routing = routing.describe();
    const firmware::llm::DieSpec die = dieSpec(hwc);
    res.clock_hz = hwc.noc.clock_hz;
    res.dies = dies.dies();
    res.peak_flops_per_cycle = 2 * die.peak_macs_per_cycle;
    res.hbm_bytes_per_cycle = die.hbm_bytes_per_cycle;
    res.sram_capacity = die.sram_bytes;
    res.hbm_capacity = die.hbm_bytes;
    {
        MemoryPlan mp = planMemory(spec, res.rank_die, dies, die);
        if (spec.placement == "watos" && spec.train) {
            // WATOS Eq. 2: the stages placed with the pipeline's and the pairs' traffic, then
            // the memory plan again (the Helpers are chosen by path cost on this placement),
            // until the pairs stop changing (at most 3 rounds).
            auto same = [](const firmware::llm::OffloadSpec& a,
                           const firmware::llm::OffloadSpec& b) {
                if (a.pairs.size() != b.pairs.size()) return false;
                for (size_t i = 0; i < a.pairs.size(); ++i)
                    if (a.pairs[i].sender != b.pairs[i].sender ||
                        a.pairs[i].helper != b.pairs[i].helper)
                        return false;
                return true;
            };
            uint32_t rounds = 0;
            while (rounds < 3) {
                ++rounds;
                res.rank_die = watosPlace(spec, mp.offload, dies);
                MemoryPlan again = planMemory(spec, res.rank_die, dies, die);
                const bool done = same(again.offload.spec, mp.offload.spec);
                mp = std::move(again);
                if (done) break;
            }
            res.mapping = watosReport(spec, mp.offload, dies, res.rank_die, rounds);
        }
        res.recompute = std::move(mp.recompute);
        res.offload = std::move(mp.offload);
        res.offload_note = std::move(mp.note);
    }
    if (spec.pp_links) {
        const std::string line =
            ppLinks(hwc, spec, res.offload, dies, res.rank_die, res.pair_routes);
        res.mapping += (res.mapping.empty() ? "" : "; ") + line;
    }

    auto phase = [&](StepSpec::Mode mode, uint64_t seq, const std::string& name,
                     bool observe) -> LlmPhase {
        StepSpec s;
        s.mode = mode;
        s.batch = spec.batch;
        s.seq = seq;
        s.dtype = spec.dtype;
        s.routing = mode == StepSpec::Mode::Decode
                        ? routing.forTokens(spec.batch, /*prefill=*/false)
                        : routing.forTokens(spec.batch * spec.seq);
        s.overlap = spec.overlap && mode != StepSpec::Mode::Train;
        if (spec.placement == "her") s.her_wafers = herWafers(hwc);
        const bool migrating = s.routing && !s.routing->migrations.empty();
        if (s.routing) res.routing += "; " + routedRows(name, spec, *s.routing);
        if (mode == StepSpec::Mode::Train) {
            s.recompute = res.recompute.masks;
            s.offload = res.offload.spec;
        }
        StepBuilder b(spec.model, spec.plan, res.rank_die, dies, die, s);
        const uint64_t L = b.stageLayers();
        // Memory: the whole stage, every layer (a build, not simulated).
        {
            const StepProgram whole = b.build(0, /*emit=*/false);
            whole.ledger.check();
            // Per die, the larger of the phases' peaks (the decode's KV cache is longer, the
            // prefill may hold the next iteration's expert copies on their way).
            res.peak.resize(whole.ledger.dies(), 0);
            res.at_peak.resize(whole.ledger.dies());
            for (uint32_t d = 0; d < whole.ledger.dies(); ++d)
                if (whole.ledger.peak(d) >= res.peak[d]) {
                    res.peak[d] = whole.ledger.peak(d);
                    res.at_peak[d] = whole.ledger.peakBreakdown(d);
                }
            if (res.step_tokens == 0) res.step_tokens = b.stepTokens();
        }
        if (spec.memory_only) {
            LlmPhase none;
            none.name = name;
            return none;
        }
        uint64_t offloaded = 0;
        for (uint64_t k : s.offload.layers) offloaded = std::max(offloaded, k);
        // Migrations are spread over the MoE layers a build holds (StepBuilder), so builds of
        // 1 and 2 layers would squeeze them into too few phases: simulate every layer.
        const Composition comp =
            compositionFor(spec.model, L, spec.plan.pp, spec.full || migrating, offloaded);
        const std::vector<uint64_t>& ks = comp.builds;
        res.composition = comp.rule;
        if (migrating && !spec.full) res.composition += " (expert migration needs every layer)";
        if (spec.model.layers % spec.plan.pp && !spec.full && comp.builds.size() > 1)
            res.composition += fmt::format(
                " (stages of {} layers composed as {}: an upper bound, --full is exact)", L - 1, L);
        std::vector<const LlmRun*> rs;
        const size_t first = res.runs.size();
        for (size_t i = 0; i < ks.size(); ++i) {
            // The previous run's cores own its firmware: drop them before building this one.
            wafer.releaseCores();
            StepProgram sp = b.build(ks[i]);
            for (uint64_t x : sp.sram_bytes) res.sram_max = std::max(res.sram_max, x);
            const bool last = i + 1 == ks.size();
            res.runs.push_back(simulate(
                wafer, sp, name, spec.seed,
                observe && last ? opt.observers : std::vector<RunObserver*>{}, res.pair_routes));
        }
        for (size_t i = first; i < res.runs.size(); ++i) rs.push_back(&res.runs[i]);
        LlmPhase p = composePhase(name, rs, comp.weight);
        // The model's FLOPs of the whole phase (closed form from the graph), not composed.
        p.model_flops = double(b.stepModelFlops());
        return p;
    };

    if (spec.train) {
        res.phases.push_back(phase(StepSpec::Mode::Train, spec.seq, "train", true));
    } else {
        res.phases.push_back(phase(StepSpec::Mode::Prefill, spec.seq, "prefill", true));
        if (spec.generate > 0) {
            const LlmPhase a = phase(StepSpec::Mode::Decode, spec.seq, "decode", false);
            LlmPhase d = a;
            if (spec.generate > 1) {
                // Decode time grows with the context: the mean of the first and last token's
                // (exact when linear in the context) times the tokens.
                const LlmPhase b =
                    phase(StepSpec::Mode::Decode, spec.seq + spec.generate - 1, "decode", false);
                d.cycles = (a.cycles + b.cycles) / 2.0;
                for (const auto& [k, v] : b.exposed) d.exposed[k] += v;
                for (auto& [k, v] : d.exposed) v /= 2.0;
                for (const auto& [k, v] : b.comm) d.comm[k] += v;
                for (auto& [k, v] : d.comm) v /= 2.0;
                d.compute_busy = (a.compute_busy + b.compute_busy) / 2.0;
                d.model_flops = (a.model_flops + b.model_flops) / 2.0;
                d.hbm_bytes = (a.hbm_bytes + b.hbm_bytes) / 2.0;
                for (const auto& [k, v] : b.hbm_by_op) d.hbm_by_op[k] += v;
                for (auto& [k, v] : d.hbm_by_op) v /= 2.0;
            }
            const double g = double(spec.generate);
            d.cycles *= g;
            for (auto& [k, v] : d.exposed) v *= g;
            for (auto& [k, v] : d.comm) v *= g;
            d.compute_busy *= g;
            d.model_flops *= g;
            d.hbm_bytes *= g;
            for (auto& [k, v] : d.hbm_by_op) v *= g;
            d.events.cycles = uint64_t(d.cycles);
            auto sc = [&](uint64_t& x) { x = uint64_t(double(x) * g); };
            sc(d.events.flops), sc(d.events.sram_bytes), sc(d.events.link_bits);
            sc(d.events.local_bits), sc(d.events.d2d_bits), sc(d.events.w2w_bits);
            sc(d.events.hbm_read_bits);
            sc(d.events.hbm_write_bits);
            res.phases.push_back(d);
        }
    }
    for (auto& p : res.phases)
        p.energy = hw::EnergyModel(hwc.noc, opt.energy, hwc.hbm).evaluate(p.events);
    res.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.peak_rss_kb = KernelTestbench::peakRssKb();
    if (opt.stats) toJson(res, *opt.stats);
    return res;
}

void LlmTestbench::printReport(std::ostream& os, const LlmResult& r) {
    const LlmSpec& s = r.spec;
    fmt::print(os, "llm {}: {} ({}), plan {} on {} dies, placement {}\n",
               s.train ? "train" : "infer", s.model.name, s.model.architecture, s.plan.str(),
               r.dies, r.placement);
    fmt::print(os, "  batch {} x seq {}{}, {}, micro-batches {}\n", s.batch, s.seq,
               s.train ? "" : fmt::format(", generate {}", s.generate),
               firmware::dtypeName(s.dtype), s.plan.microBatches());
    if (!r.mapping.empty()) fmt::print(os, "  {}\n", r.mapping);
    if (!r.pair_routes.empty() && !r.runs.empty()) {
        uint64_t flits = 0, all = 0;
        for (const auto& run : r.runs) flits += run.pair_route_flits, all += run.flits;
        fmt::print(os, "  pair routes carried {} of the {} flits the simulated runs sent\n", flits,
                   all);
    }
    if (!r.routing.empty()) fmt::print(os, "  routing: {}\n", r.routing);
    if (!r.recompute.masks.empty()) {
        fmt::print(os, "  recompute {}: dropped (re-run before the backward) per stage:\n",
                   firmware::llm::RecomputePlanner::name(r.recompute.policy));
        for (size_t st = 0; st < r.recompute.masks.size(); ++st)
            fmt::print(os, "    stage {}: {} (peak {} per die)\n", st, r.recompute.names[st],
                       firmware::llm::MemoryLedger::size(r.recompute.peak[st]));
    }
    if (r.spec.offload) {
        const auto& o = r.offload;
        fmt::print(
            os, "  checkpoint offload{}: {}\n",
            r.offload_note.empty() ? "" : " (" + r.offload_note + ")",
            o.spec.empty() ? "nothing to move, every stage fits its dies" : o.balance.summary());
        for (const std::string& line : firmware::watos::OffloadPlanner::describe(o))
            fmt::print(os, "    {}\n", line);
        if (!o.spec.empty())
            for (size_t st = 0; st < o.before.size(); ++st)
                if (o.before[st] != o.after[st])
                    fmt::print(os, "    stage {}: {} -> {} per die (highest address in use)\n", st,
                               firmware::llm::MemoryLedger::size(o.before[st]),
                               firmware::llm::MemoryLedger::size(o.after[st]));
    }
    for (const auto& p : r.phases) {
        if (p.cycles <= 0) {
            fmt::print(os, "  {:<8} not simulated (--memory-only)\n", p.name);
            continue;
        }
        const double sec = r.seconds(p);
        fmt::print(os, "  {:<8} {:.4g} s ({:.4g} cycles)", p.name, sec, p.cycles);
        if (p.name == "decode")
            fmt::print(os, ", {:.4g} tokens/s, {:.4g} ms per token",
                       double(s.batch * s.generate) / sec, 1e3 * sec / double(s.generate));
        else
            fmt::print(os, ", {:.4g} tokens/s, {:.4g} samples/s, MFU {:.1f}%",
                       double(r.step_tokens) / sec, double(s.batch) / sec,
                       100.0 * p.model_flops /
                           (double(r.dies) * double(r.peak_flops_per_cycle) * p.cycles));
        fmt::print(os, "\n");
        fmt::print(os, "    compute busy (critical die) {:.1f}% of the phase\n",
                   100.0 * p.compute_busy / p.cycles);
        fmt::print(os,
                   "    HBM traffic (critical die) {}, {:.1f}% of its bandwidth over the phase\n",
                   firmware::llm::MemoryLedger::size(uint64_t(p.hbm_bytes)),
                   100.0 * p.hbm_bytes / (r.hbm_bytes_per_cycle * p.cycles));
        {  // the operators moving the most bytes
            std::vector<std::pair<double, std::string>> v;
            for (const auto& [k, b] : p.hbm_by_op) v.push_back({b, k});
            std::sort(v.rbegin(), v.rend());
            std::string top;
            for (size_t i = 0; i < v.size() && i < 6; ++i)
                top += fmt::format("{}{} {:.1f}%", i ? ", " : "", v[i].second,
                                   100.0 * v[i].first / std::max(1.0, p.hbm_bytes));
            if (!top.empty()) fmt::print(os, "      by operator: {}\n", top);
        }
        if (p.comm.count("recompute"))
            fmt::print(os,
                       "    recomputation (critical die) {:.4g} cycles, {:.1f}% of the phase (its "
                       "re-run collectives are counted with their kind)\n",
                       p.comm.at("recompute"), 100.0 * p.comm.at("recompute") / p.cycles);
        for (const auto& [k, v] : p.comm) {
            if (k == "recompute") continue;
            const double ex = p.exposed.count(k) ? p.exposed.at(k) : 0.0;
            if (v < 0.5 && ex < 0.5) continue;  // composed to nothing (present in 1 layer only)
            fmt::print(
                os,
                "    {:<22} {:>12.4g} cycles running, {:>12.4g} exposed ({:.1f}% of the phase)\n",
                k, v, ex, 100.0 * ex / p.cycles);
        }
        for (const auto& [k, v] : p.exposed)
            if (!p.comm.count(k) && v >= 0.5)
                fmt::print(os, "    {:<22} {:>12} {:>12.4g} exposed ({:.1f}% of the phase)\n", k,
                           "", v, 100.0 * v / p.cycles);
        fmt::print(os, "    energy {:.4g} J, average power {:.4g} W\n", p.energy.total_pj * 1e-12,
                   p.energy.total_pj * 1e-12 / sec);
    }
    // Memory: the die with the highest peak, and the spread.
    if (!r.peak.empty()) {
        size_t hi = 0, lo = 0;
        for (size_t d = 1; d < r.peak.size(); ++d) {
            if (r.peak[d] > r.peak[hi]) hi = d;
            if (r.peak[d] < r.peak[lo]) lo = d;
        }
        std::string parts;
        for (size_t k = 0; k < firmware::llm::MemoryLedger::kKinds; ++k)
            if (r.at_peak[hi][k])
                parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ",
                                     firmware::llm::memKindName(firmware::llm::MemKind(k)),
                                     firmware::llm::MemoryLedger::size(r.at_peak[hi][k]));
        fmt::print(os, "  memory per die: peak {} on die {} of {} ({}); lowest peak {} on die {}\n",
                   firmware::llm::MemoryLedger::size(r.peak[hi]), hi,
                   firmware::llm::MemoryLedger::size(r.hbm_capacity), parts,
                   firmware::llm::MemoryLedger::size(r.peak[lo]), lo);
        if (!r.runs.empty())
            fmt::print(os, "  SRAM staging per die {} of {}\n",
                       firmware::llm::MemoryLedger::size(r.sram_max),
                       firmware::llm::MemoryLedger::size(r.sram_capacity));
    }
    if (r.spec.plan.pp > 1 && !r.peak.empty()) {
        std::string v;
        for (uint64_t b : stagePeaks(r))
            v += (v.empty() ? "" : ", ") + firmware::llm::MemoryLedger::size(b);
        fmt::print(os, "  memory per stage (peak of its dies, stage 0 first): {}\n", v);
    }
    if (r.runs.empty())
        fmt::print(os, "  {:.2f} s wall, peak RSS {} MB\n", r.wall_seconds, r.peak_rss_kb / 1024);
    else
        fmt::print(os, "  composition: {}; {} simulated runs, {:.2f} s wall, peak RSS {} MB\n",
                   r.composition, r.runs.size(), r.wall_seconds, r.peak_rss_kb / 1024);
}

void LlmTestbench::printCompareHeader(std::ostream& os) {
    fmt::print(os,
               "| plan | placement | step s | tokens/s | MFU % | compute busy % | HBM busy % | "
               "exposed comm % (largest) | peak mem GB (die) | energy J |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n");
}

void LlmTestbench::printCompareRow(std::ostream& os, const LlmResult& r) {
    const LlmPhase& p = r.phases.front();
    double ex = 0;
    std::string top;
    double top_v = -1;
    for (auto& [k, v] : p.exposed) {
        ex += v;
        if (v > top_v) top_v = v, top = k;
    }
    size_t hi = 0;
    for (size_t d = 1; d < r.peak.size(); ++d)
        if (r.peak[d] > r.peak[hi]) hi = d;
    double energy = 0;
    for (auto& ph : r.phases) energy += ph.energy.total_pj * 1e-12;
    fmt::print(os,
               "| {} | {} | {:.4g} | {:.4g} | {:.1f} | {:.1f} | {:.1f} | {:.1f}{} | {:.2f} ({}) | "
               "{:.4g} |\n",
               r.spec.plan.str(), r.placement, r.stepSeconds(), r.tokensPerSecond(),
               100.0 * p.model_flops / (double(r.dies) * double(r.peak_flops_per_cycle) * p.cycles),
               100.0 * p.compute_busy / p.cycles,
               100.0 * p.hbm_bytes / (r.hbm_bytes_per_cycle * p.cycles), 100.0 * ex / p.cycles,
               top_v > 0 ? fmt::format(" ({} {:.1f})", top, 100.0 * top_v / p.cycles) : "",
               r.peak.empty() ? 0.0 : double(r.peak[hi]) / double(1ull << 30), hi, energy);
}

void LlmTestbench::toJson(const LlmResult& r, nlohmann::json& out) {
    nlohmann::json& j = out["llm"];
    j["model"] = r.spec.model.name;
    j["plan"] = r.spec.plan.str();
    j["placement"] = r.placement;
    j["rank_die"] = r.rank_die;
    if (!r.mapping.empty()) j["mapping"] = r.mapping;
    if (r.placement == "tcme") {
        nlohmann::json routes = nlohmann::json::array();
        for (const auto& pr : r.pair_routes)
            routes.push_back({{"src", pr.src}, {"dst", pr.dst}, {"path", pr.path}});
        j["pair_routes"] = routes;
        uint64_t flits = 0;
        for (const auto& run : r.runs) flits += run.pair_route_flits;
        j["pair_route_flits"] = flits;
    }
    if (!r.routing.empty()) j["routing"] = r.routing;
    j["batch"] = r.spec.batch;
    j["seq"] = r.spec.seq;
    j["generate"] = r.spec.generate;
    j["composition"] = r.composition;
    for (const auto& p : r.phases) {
        if (p.cycles <= 0) continue;  // --memory-only
        nlohmann::json& q = j["phases"][p.name];
        q["cycles"] = p.cycles;
        q["seconds"] = r.seconds(p);
        q["model_flops"] = p.model_flops;
        q["mfu"] = p.model_flops / (double(r.dies) * double(r.peak_flops_per_cycle) * p.cycles);
        q["compute_busy_cycles"] = p.compute_busy;
        q["hbm_bytes_critical_die"] = p.hbm_bytes;
        // Operator and collective names as keys: "attn.qkv fwd" -> attn_qkv_fwd (hw/StatsKey).
        for (auto& [k, v] : p.hbm_by_op) q["hbm_bytes_by_op"][hw::statsKey(k)] = v;
        for (auto& [k, v] : p.exposed) q["exposed_cycles"][hw::statsKey(k)] = v;
        for (auto& [k, v] : p.comm) q["comm_cycles"][hw::statsKey(k)] = v;
        q["energy_pj"] = p.energy.total_pj;
    }
    for (size_t d = 0; d < r.peak.size(); ++d) {
        nlohmann::json m;
        m["peak_bytes"] = r.peak[d];
        for (size_t k = 0; k < firmware::llm::MemoryLedger::kKinds; ++k)
            m[hw::statsKey(firmware::llm::memKindName(firmware::llm::MemKind(k))) + "_bytes"] =
                r.at_peak[d][k];
        j["memory"]["die_" + std::to_string(d)] = m;
    }
    if (r.spec.plan.pp > 1)
        for (uint64_t b : stagePeaks(r)) j["memory"]["stage_peak_bytes"].push_back(b);
    if (r.spec.offload) {
        nlohmann::json& oj = j["offload"];
        oj["note"] = r.offload_note;
        oj["layers"] = r.offload.spec.layers;
        oj["pairs"] = nlohmann::json::array();
        for (const auto& q : r.offload.spec.pairs)
            oj["pairs"].push_back({{"sender_stage", q.sender},
                                   {"helper_stage", q.helper},
                                   {"share", q.share},
                                   {"held_bytes_per_die",
                                    uint64_t(double(r.offload.held[q.sender]) * q.share + 0.5)}});
        oj["extent_before_bytes"] = r.offload.before;
        oj["extent_after_bytes"] = r.offload.after;
    }
    if (!r.recompute.masks.empty()) {
        nlohmann::json& rc = j["recompute"];
        rc["policy"] = firmware::llm::RecomputePlanner::name(r.recompute.policy);
        for (size_t st = 0; st < r.recompute.masks.size(); ++st)
            rc["stages"].push_back({{"dropped", r.recompute.names[st]},
                                    {"peak_bytes", r.recompute.peak[st]},
                                    {"estimated_cycles", r.recompute.est_cycles[st]}});
    }
    for (const auto& run : r.runs) {
        nlohmann::json x;
        x["phase"] = run.phase;
        x["layers_per_stage"] = run.layers;
        x["cycles"] = run.cycles;
        x["critical_die"] = run.critical_die;
        x["wall_seconds"] = run.wall_seconds;
        x["flits"] = run.flits;
        x["rx_refusals"] = run.rx_refusals;
        x["rx_held_peak_bytes"] = run.rx_held_peak;
        x["hbm_bytes"] = run.hbm_bytes;
        x["hbm_bytes_critical_die"] = run.hbm_bytes_critical;
        j["runs"].push_back(x);
    }
    j["wall_seconds"] = r.wall_seconds;
    j["peak_rss_kb"] = r.peak_rss_kb;
}

}  // namespace wsc::tb
