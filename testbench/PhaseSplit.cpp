#include "testbench/PhaseSplit.h"

#include <algorithm>

namespace wsc::tb {

PhaseSplit::PhaseSplit(core::CoreArray& cores, const firmware::KernelPlan& plan)
    : cores_(cores),
      names_(plan.phases),
      row_(cores.cores(), kNone),
      starts_(plan.phase_starts.size()),
      end_(plan.phases.size(), 0),
      ids_(plan.cores) {
    // Kept core by core (each core's starts contiguous for the search in onSpan).
    const size_t k = names_.size(), nc = ids_.size();
    for (size_t p = 0; p < k; ++p)
        for (size_t c = 0; c < nc; ++c) starts_[c * k + p] = plan.phase_starts[p * nc + c];
    for (uint32_t r = 0; r < ids_.size(); ++r) {
        row_[ids_[r]] = r;
        next_.push_back(cores.traceSink(ids_[r]));
        cores.setTraceSink(ids_[r], this);
    }
}

PhaseSplit::~PhaseSplit() {
    for (uint32_t r = 0; r < ids_.size(); ++r)
        if (cores_.traceSink(ids_[r]) == this) cores_.setTraceSink(ids_[r], next_[r]);
}

void PhaseSplit::onSpan(const core::TraceSpan& s) {
    const uint32_t r = row_[s.core];
    const size_t k = names_.size();
    if (r != kNone && k) {
        const auto b = starts_.begin() + size_t(r) * k, e = b + k;
        const size_t phase = size_t(std::upper_bound(b, e, s.pc) - b);
        if (phase > 0) end_[phase - 1] = std::max(end_[phase - 1], s.end);
    }
    if (r != kNone && next_[r]) next_[r]->onSpan(s);
}

void PhaseSplit::onCharge(uint32_t core, core::CoreState state, core::StallCause cause,
                          uint64_t begin, uint64_t end) {
    const uint32_t r = row_[core];
    if (r != kNone && next_[r]) next_[r]->onCharge(core, state, cause, begin, end);
}

std::vector<std::pair<std::string, uint64_t>> PhaseSplit::split(uint64_t cycles) const {
    std::vector<std::pair<std::string, uint64_t>> out;
    auto add = [&](const std::string& name, uint64_t c) {
        for (auto& [n, v] : out)
            if (n == name) return void(v += c);
        out.emplace_back(name, c);
    };
    uint64_t f = 0;
    for (size_t k = 0; k < names_.size(); ++k) {
        const uint64_t e = std::max(f, end_[k]);
        add(names_[k], e - f);
        f = e;
    }
    if (!names_.empty() && cycles > f) add(names_.back(), cycles - f);
    return out;
}

}  // namespace wsc::tb
