#include "firmware/llm/OpShard.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::llm {

using model::FfnRole;
using model::OpKind;
using model::TpSplit;

namespace {

uint64_t split(uint64_t v, uint32_t by, const model::Operator& op, const char* dim,
               const char* deg) {
    if (by <= 1) return v;
    if (v % by)
        throw std::invalid_argument(fmt::format("operator '{}': {}={} does not divide its {} ({})",
                                                op.name, deg, by, dim, v));
    return v / by;
}

}  // namespace

OpShard shardOf(const model::Operator& o, const plan::ParallelPlan& p) {
    OpShard s;
    s.op = o;
    model::Operator& x = s.op;
    const bool expert = o.ffn == FfnRole::RoutedExpert;
    // The LM head's vocabulary is split over tp even when tp does not divide it (GPT-2/3's
    // 50257): each rank holds ceil(V / tp) rows of the table, the last one padded, as
    // Megatron pads the vocabulary to a multiple of tp; the padded logits are computed and
    // dropped. The model's FLOPs (MFU) stay the unpadded graph's.
    const bool lm_head = o.name == "head.lm";
    const bool ep = expert && p.ep > 1;
    // Tokens: every token-wise dimension is split by sp; experts under EP instead receive the
    // tokens their EP group routes to them.
    const uint64_t tokens_scale_num = ep ? p.ep : 1;
    const uint64_t tokens_scale_den = ep ? uint64_t(p.tp) * p.sp : p.tokenWays();
    auto tokens = [&](uint64_t v, const char* dim) {
        if (ep) {
            const uint64_t t = v * tokens_scale_num;
            if (t % tokens_scale_den)
                throw std::invalid_argument(fmt::format(
                    "operator '{}': ep={} with tp={} x sp={} routes a fraction of a token to each "
                    "expert ({} x {} / {})",
                    o.name, p.ep, p.tp, p.sp, v, tokens_scale_num, tokens_scale_den));
            return t / tokens_scale_den;
        }
        return split(v, p.tokenWays(), o, dim, p.tatp > 1 ? "sp x tatp" : "sp");
    };
    // TATP streams the weights of linear operators that own them; a tied LM head reads the
    // embedding table every die of the group holds whole, so it is computed locally.
    const bool tatp = p.tatp > 1 && !ep && o.kind == OpKind::Linear && o.params > 0;
    if (ep) {
        // Experts per die: E / ep; with more dies than experts (Mixtral's 8 on 16) one expert
        // whole, whose ep / E replicas split its tokens evenly; when ep does not divide E (128
        // on 36) the larger of floor and ceil (memory is an upper bound; routed steps compute
        // each die's own rows, ExpertRouter).
        const bool replicated = p.ep > o.instances && p.ep % o.instances == 0;
        const uint32_t replicas = replicated ? uint32_t(p.ep / o.instances) : 1;
        x.instances = replicated                ? 1
                      : o.instances % p.ep != 0 ? (o.instances + p.ep - 1) / p.ep
                                                : split(o.instances, p.ep, o, "experts", "ep");
        x.rows = split(tokens(o.rows, "tokens"), replicas, o, "tokens routed to an expert",
                       "its replicas (ep / experts)");
        if (!o.isMatrix())  // the expert's activation
            x.elems = split(tokens(o.elems, "elements"), replicas, o,
                            "elements routed to an expert", "its replicas (ep / experts)");
    } else {
        switch (o.kind) {
            case OpKind::Linear:
                x.rows = tokens(o.rows, "tokens");
                if (o.tp == TpSplit::Column && lm_head)  // padded like Megatron's vocabulary
                    x.out = (o.out + p.tp - 1) / p.tp;
                else if (o.tp == TpSplit::Column)
                    x.out = split(o.out, p.tp, o, "output features", "tp");
                if (o.tp == TpSplit::Row) x.in = split(o.in, p.tp, o, "input features", "tp");
                // TATP streams column blocks of the die's tensor-parallel shard: its group is
                // the ranks sharing a tp index, which hold the same shard.
                if (tatp)
                    s.tatp_cols =
                        lm_head ? (x.out + p.tatp - 1) / p.tatp
                                : split(x.out, p.tatp, o,
                                        p.tp > 1 ? "tp shard's output features" : "output features",
                                        "tatp");
                break;
            case OpKind::AttnScore:
            case OpKind::AttnContext:
                // Heads split by tp; query rows by sp; keys stay whole (gathered across sp).
                x.batch = split(o.batch, p.tp, o, "attention heads x sequences", "tp");
                x.rows = tokens(o.rows, "query positions");
                break;
            case OpKind::Embedding:
                // Vocabulary-parallel: each TP rank looks up the tokens of its share of the
                // table and writes a partial output of every token (summed by an all-reduce).
                x.elems = tokens(o.elems, "elements");
                break;
            default: {
                // Element-wise: split by sp always, by tp when the operator sits in a TP region
                // (activation between column and row splits, softmax of split heads) or when
                // Megatron sequence parallelism splits the replicated ones.
                uint64_t e = tokens(o.elems, "elements");
                if (o.tp != TpSplit::Replicated || p.seqpar)
                    e = split(e, p.tp, o, "elements", "tp");
                x.elems = e;
            }
        }
    }
    const bool tp_split = !ep && (o.tp == TpSplit::Column || o.tp == TpSplit::Row);
    s.tatp = tatp;
    s.weight_elems = (tatp && lm_head       ? x.in * s.tatp_cols
                      : tatp && tp_split    ? o.params / (uint64_t(p.tp) * p.tatp)
                      : tatp                ? o.params / p.tatp
                      : lm_head && tp_split ? x.in * x.out
                      : tp_split            ? o.params / p.tp
                                            : o.params) *
                     x.instances;
    // Work scales with the shapes: the FLOP counts of the whole operator times the die's share.
    const double whole =
        double(o.isMatrix() ? o.batch * o.rows * o.in * o.out : o.elems) * double(o.instances);
    const double part =
        double(x.isMatrix() ? x.batch * x.rows * x.in * x.out : x.elems) * double(x.instances);
    const double f = whole > 0 ? part / whole : 0.0;
    s.flops_fwd = uint64_t(double(o.fwd_flops) * double(o.instances) * f + 0.5);
    s.flops_bwd = uint64_t(double(o.bwd_dx_flops + o.bwd_dw_flops) * double(o.instances) * f + 0.5);
    s.in_elems = x.isMatrix() ? x.batch * x.rows * x.in * x.instances : x.elems;
    s.out_elems = x.outputElems() * x.instances;
    return s;
}

uint64_t savedElemsOnDie(const model::Operator& o, const OpShard& sh) {
    const double f = o.isMatrix() || o.elems == 0
                         ? double(sh.in_elems) /
                               double(std::max<uint64_t>(1, o.batch * o.rows * o.in * o.instances))
                         : double(sh.op.elems) / double(o.elems);
    return uint64_t(double(o.saved_elems * o.instances) * f + 0.5);
}

}  // namespace wsc::firmware::llm
