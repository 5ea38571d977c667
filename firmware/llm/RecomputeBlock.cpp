#include "firmware/llm/RecomputeBlock.h"

#include <stdexcept>

namespace wsc::firmware::llm {

using model::FfnRole;
using model::Operator;
using model::OpKind;

namespace {

// The saved-tensor chain (item j saves what item j - 1 produced) holds for the attention and
// dense FFN operators; an MoE layer's experts save the dispatched tokens and the shared experts
// the norm's output, so their items are kept (not droppable) rather than re-run wrongly.
bool chainOperator(const Operator& o) {
    return (o.ffn == FfnRole::None || o.ffn == FfnRole::Dense) && o.kind != OpKind::Router &&
           o.kind != OpKind::Embedding && o.kind != OpKind::Loss;
}

}  // namespace

RecomputeBlock::RecomputeBlock(const model::Block& b) {
    const auto& ops = b.ops;
    op_item_.assign(ops.size(), 0);
    size_t seg = 0;
    bool seen_norm = false;
    for (size_t i = 0; i < ops.size();) {
        Item it;
        it.first = i;
        if (ops[i].kind == OpKind::Norm) {
            if (seen_norm) ++seg;
            seen_norm = true;
        }
        // Fused attention: score, softmax and context run as one kernel.
        if (ops[i].kind == OpKind::AttnScore) {
            size_t j = i + 1;
            while (j < ops.size() &&
                   (ops[j].kind == OpKind::Softmax || ops[j].kind == OpKind::AttnContext))
                ++j;
            it.last = j;
            it.name = "attention";
        } else {
            it.last = i + 1;
            it.name = ops[i].name;
        }
        it.segment = seg;
        uint64_t saved = 0;
        bool chain = true;
        for (size_t k = it.first; k < it.last; ++k) {
            saved += ops[k].saved_elems + ops[k].saved_mask_elems;
            chain = chain && chainOperator(ops[k]);
        }
        const bool head =
            ops[i].kind == OpKind::Norm || items_.empty() || items_.back().segment != seg;
        const bool prev_chain = !items_.empty() && items_.back().segment == seg &&
                                chainOperator(ops[items_.back().first]) &&
                                chainOperator(ops[items_.back().last - 1]);
        it.droppable = !head && saved > 0 && chain && prev_chain;
        for (size_t k = it.first; k < it.last; ++k) op_item_[k] = items_.size();
        if (it.droppable) droppable_.push_back(items_.size());
        i = it.last;
        items_.push_back(std::move(it));
    }
    segments_ = items_.empty() ? 0 : seg + 1;
    if (droppable_.size() > 63)
        throw std::invalid_argument("recomputation: more than 63 droppable operators in a block");
}

uint64_t RecomputeBlock::fullMask() const {
    return droppable_.empty() ? 0 : (uint64_t{1} << droppable_.size()) - 1;
}

bool RecomputeBlock::drops(uint64_t mask, size_t op) const {
    const size_t item = op_item_.at(op);
    for (size_t b = 0; b < droppable_.size(); ++b)
        if (droppable_[b] == item) return (mask >> b) & 1;
    return false;
}

std::vector<RecomputeBlock::Rerun> RecomputeBlock::reruns(uint64_t mask) const {
    std::vector<bool> dropped(items_.size(), false);
    for (size_t b = 0; b < droppable_.size(); ++b)
        if ((mask >> b) & 1) dropped[droppable_[b]] = true;
    std::vector<Rerun> out;
    // A run of dropped items [p, q] re-runs items [p - 1, q - 1]: the kept item p - 1 has its
    // input, and each re-run item produces what the next one saves. Adjacent runs in a
    // segment merge into one range.
    for (size_t j = 0; j < items_.size(); ++j) {
        if (!dropped[j]) continue;
        size_t q = j;
        while (q + 1 < items_.size() && dropped[q + 1]) ++q;
        Rerun r;
        r.first = items_[j - 1].first;  // j > 0: a dropped item is never a segment's first
        r.last = items_[q - 1].last;
        r.segment = items_[j].segment;
        if (!out.empty() && out.back().segment == r.segment && out.back().last == r.first)
            out.back().last = r.last;
        else
            out.push_back(r);
        j = q;
    }
    return out;
}

size_t RecomputeBlock::segmentOf(size_t op) const {
    return items_.at(op_item_.at(op)).segment;
}

std::string RecomputeBlock::describe(uint64_t mask) const {
    std::string s;
    for (size_t b = 0; b < droppable_.size(); ++b)
        if ((mask >> b) & 1) s += (s.empty() ? "" : "+") + items_[droppable_[b]].name;
    return s.empty() ? "none" : s;
}

}  // namespace wsc::firmware::llm
