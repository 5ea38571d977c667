#include "firmware/llm/RecomputePlanner.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "firmware/llm/Gcmr.h"
#include "firmware/llm/MemoryLedger.h"
#include "firmware/llm/OpShard.h"
#include "firmware/llm/RecomputeBlock.h"

namespace wsc::firmware::llm {

using model::Block;
using model::Operator;
using model::OpKind;

RecomputePlanner::Policy RecomputePlanner::parse(const std::string& s) {
    if (s == "none") return Policy::None;
    if (s == "uniform") return Policy::Uniform;
    if (s == "gcmr") return Policy::Gcmr;
    throw std::invalid_argument(
        fmt::format("--recompute: '{}' is not a policy (expected none, uniform or gcmr)", s));
}

const char* RecomputePlanner::name(Policy p) {
    switch (p) {
        case Policy::None:
            return "none";
        case Policy::Uniform:
            return "uniform";
        case Policy::Gcmr:
            return "gcmr";
    }
    return "?";
}

std::vector<RecomputeOption> RecomputePlanner::menu(const model::LayerGraph& g,
                                                    const plan::ParallelPlan& p, const DieSpec& die,
                                                    DType dtype) {
    const auto& blocks = g.blocks();
    // Embedding first, head last: the transformer blocks lie between.
    if (blocks.size() != 3)
        throw std::invalid_argument(fmt::format(
            "--recompute: {} has {} kinds of transformer layers; recomputation is chosen per "
            "block kind and supports models whose layers are all of one kind",
            g.model().name, blocks.size() - 2));
    const Block& b = blocks[1];
    const RecomputeBlock rb(b);
    const uint64_t e = dtypeBytes(dtype);
    const double peak = double(2 * die.peak_macs_per_cycle);
    const double bw = die.hbm_bytes_per_cycle;
    std::vector<uint64_t> saved(b.ops.size());
    std::vector<uint64_t> flops(b.ops.size());
    std::vector<double> cycles(b.ops.size());
    for (size_t i = 0; i < b.ops.size(); ++i) {
        const Operator& o = b.ops[i];
        const OpShard sh = shardOf(o, p);
        saved[i] = savedElemsOnDie(o, sh) * e;
        flops[i] = sh.flops_fwd;
        // Fused attention keeps its scores in SRAM (as StepBuilder's scratch sizing does): it
        // reads Q and K (the score's input, twice) and V and writes its output (the context's
        // output, twice); the score matrix never reaches HBM.
        uint64_t elems = sh.in_elems + sh.out_elems + sh.weight_elems;
        if (o.kind == OpKind::AttnScore) elems = 2 * sh.in_elems;
        if (o.kind == OpKind::Softmax) elems = 0;
        if (o.kind == OpKind::AttnContext) elems = 2 * sh.out_elems;
        const double bytes = double(elems) * e;
        cycles[i] = std::max(peak > 0 ? double(flops[i]) / peak : 0.0, bw > 0 ? bytes / bw : 0.0);
    }
    std::vector<RecomputeOption> all;
    for (uint64_t mask = 0; mask <= rb.fullMask(); ++mask) {
        RecomputeOption o;
        o.mask = mask;
        for (size_t i = 0; i < b.ops.size(); ++i)
            if (!rb.drops(mask, i)) o.kept_bytes += saved[i];
        for (const auto& r : rb.reruns(mask))
            for (size_t i = r.first; i < r.last; ++i)
                o.rerun_flops += flops[i], o.rerun_cycles += cycles[i];
        o.name = rb.describe(mask);
        all.push_back(std::move(o));
    }
    // Pareto front: by re-run cost, keeping an option only if it keeps strictly less than every
    // cheaper one.
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        return a.rerun_cycles != b.rerun_cycles ? a.rerun_cycles < b.rerun_cycles
                                                : a.kept_bytes < b.kept_bytes;
    });
    std::vector<RecomputeOption> front;
    for (auto& o : all)
        if (front.empty() || o.kept_bytes < front.back().kept_bytes) front.push_back(std::move(o));
    return front;
}

RecomputePlanner::Plan RecomputePlanner::plan(Policy policy,
                                              const std::vector<RecomputeOption>& menu,
                                              const Accounting& account,
                                              const std::vector<uint64_t>& stage_layers,
                                              uint32_t micro_batches, const DieSpec& die,
                                              bool pooled, uint64_t pooled_cut) {
    const uint32_t stages = static_cast<uint32_t>(stage_layers.size());
    Plan out;
    out.policy = policy;
    if (menu.empty()) throw std::invalid_argument("recompute: empty menu");
    // Every option applied to every stage: the stages' peaks and FLOPs under it (stages are
    // independent in memory, so one build per option gives every stage's figure).
    std::vector<StageFigures> per;
    const size_t n = policy == Policy::None ? 1 : menu.size();
    for (size_t o = 0; o < n; ++o)
        per.push_back(account(std::vector<uint64_t>(stages, menu[o].mask)));
    const double peak = double(2 * die.peak_macs_per_cycle);
    // Pre-screen step time of a stage: its busiest die's FLOPs without recomputation at peak,
    // plus the option's re-run estimate for every layer and micro-batch.
    std::vector<std::vector<double>> time(stages, std::vector<double>(n));
    std::vector<std::vector<uint64_t>> mem(stages, std::vector<uint64_t>(n));
    for (uint32_t s = 0; s < stages; ++s)
        for (size_t o = 0; o < n; ++o) {
            time[s][o] = double(per[0].flops[s]) / peak +
                         double(stage_layers[s]) * micro_batches * menu[o].rerun_cycles;
            mem[s][o] = per[o].peak[s];
        }
    std::vector<size_t> choice(stages, 0);
    const uint64_t cap = die.hbm_bytes;
    if (policy == Policy::Uniform) {
        size_t o = 0;
        auto fits = [&](size_t k) {
            for (uint32_t s = 0; s < stages; ++s)
                if (mem[s][k] > cap) return false;
            return true;
        };
        while (o < n && !fits(o)) ++o;
        if (o == n) {
            out.feasible = false;
            o = n - 1;
        }
        choice.assign(stages, o);
    } else if (policy == Policy::Gcmr) {
        // Grain: 1/1024 of a die's memory (the programme has stages x 1024 x stages cells).
        const uint64_t grain = std::max<uint64_t>(1, cap / 1024);
        std::vector<uint64_t> caps(stages, cap);
        // The pooled programme sums the capacities: the cut comes off the last ones.
        for (uint32_t s = stages; pooled && pooled_cut && s-- > 0;) {
            const uint64_t take = std::min(pooled_cut, caps[s]);
            caps[s] -= take, pooled_cut -= take;
        }
        const Gcmr::Result r = Gcmr::solve(time, mem, caps, pooled, grain);
        if (r.feasible)
            choice = r.choice;
        else
            out.feasible = false, choice.assign(stages, n - 1);
    }
    for (uint32_t s = 0; s < stages; ++s) {
        out.masks.push_back(menu[choice[s]].mask);
        out.names.push_back(menu[choice[s]].name);
        out.peak.push_back(mem[s][choice[s]]);
        out.est_cycles.push_back(time[s][choice[s]]);
        if (mem[s][choice[s]] > cap && out.why.empty() && !(pooled && out.feasible))
            out.why = fmt::format(
                "stage {} needs {} per die with the most recomputation (dropping {}), the die "
                "has {}",
                s, MemoryLedger::size(mem[s][choice[s]]), menu[choice[s]].name,
                MemoryLedger::size(cap));
    }
    return out;
}

}  // namespace wsc::firmware::llm
