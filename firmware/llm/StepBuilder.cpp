#include "firmware/llm/StepBuilder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "firmware/collectives/Collectives.h"
#include "firmware/llm/DieEmitter.h"
#include "firmware/llm/OpShard.h"
#include "firmware/llm/RecomputeBlock.h"
#include "firmware/llm/TatpLowering.h"
#include "firmware/plan/RankGrid.h"

namespace wsc::firmware::llm {

using model::Activation;
using model::Block;
using model::FfnRole;
using model::NormKind;
using model::Operator;
using model::OpKind;
using model::TpSplit;
using plan::Dim;

const char* modeName(StepSpec::Mode m) {
    switch (m) {
        case StepSpec::Mode::Train:
            return "train";
        case StepSpec::Mode::Prefill:
            return "prefill";
        case StepSpec::Mode::Decode:
            return "decode";
    }
    return "?";
}

namespace {

model::GraphShape shapeOf(const StepSpec& s, uint64_t mb_sequences) {
    model::GraphShape g;
    g.sequences = mb_sequences;
    g.dtype = s.dtype;
    g.flash_attention = true;  // the die lowering fuses attention (DieEmitter::attention)
    g.dropout = false;         // no dropout masks: the papers' training runs use none
    if (s.mode == StepSpec::Mode::Decode) {
        g.seq_len = 1;
        g.past_len = s.seq;
    } else {
        g.seq_len = s.seq;
    }
    return g;
}

}  // namespace

StepBuilder::StepBuilder(const model::ModelConfig& m, const plan::ParallelPlan& p,
                         std::vector<uint32_t> rank_die, const placement::DieArray& dies,
                         const DieSpec& die, const StepSpec& s)
    : model_(m), plan_(p), rank_die_(std::move(rank_die)), dies_(dies), die_(die), spec_(s) {
    if (p.dies() != dies.dies())
        throw std::invalid_argument(
            fmt::format("plan {} does not fit the wafer of {} dies ({} x {})", p.arithmetic(),
                        dies.dies(), dies.x, dies.y));
    if (rank_die_.size() != p.dies())
        throw std::invalid_argument("step builder: one die per rank expected");
    if (m.layers < p.pp)
        throw std::invalid_argument(
            fmt::format("plan {}: pp={} stages for the model's {} layers (a stage needs a layer)",
                        p.str(), p.pp, m.layers));
    const uint64_t ways = uint64_t(p.dataWays()) * p.microBatches();
    if (s.batch == 0 || s.batch % ways)
        throw std::invalid_argument(
            fmt::format("batch {} does not split into dp={} x fsdp={} data-parallel groups x {} "
                        "micro-batches: it must be a multiple of {}",
                        s.batch, p.dp, p.fsdp, p.microBatches(), ways));
    mb_sequences_ = s.batch / ways;
    if (s.mode != StepSpec::Mode::Decode && s.seq % p.sp)
        throw std::invalid_argument(
            fmt::format("sequence length {} does not split over sp={}", s.seq, p.sp));
    if (s.mode == StepSpec::Mode::Decode && p.sp > 1)
        throw std::invalid_argument("decode generates one token per sequence: sp must be 1");
    if (s.overlap && (s.mode == StepSpec::Mode::Train || p.pp > 1 || p.microBatches() < 2 ||
                      p.tatp > 1 || p.microBatches() > 200))
        throw std::invalid_argument(fmt::format(
            "plan {}: overlapped micro-batches are for inference with pp = 1, no tatp and 2..200 "
            "micro-batches (mb=)",
            p.str()));
    if (s.her_wafers > 1) {
        const uint32_t W = s.her_wafers;
        auto refuse = [&](const std::string& why) {
            throw std::invalid_argument(
                fmt::format("plan {}: hierarchical ER over {} wafers {}", p.str(), W, why));
        };
        if (s.mode == StepSpec::Mode::Train) refuse("runs inference only (MoEntwine)");
        if (s.overlap) refuse("does not overlap micro-batches (--overlap)");
        if (s.routing) refuse("takes balanced routing only (no --gating or --trace)");
        if (p.pp > 1 || p.fsdp > 1 || !ExpertRouter::ftd(p))
            refuse("needs dp TP groups with ep = every die (no pp, fsdp, sp, tatp or seqpar)");
        if (p.dp % W) refuse(fmt::format("needs dp a multiple of {} (dp = {})", W, p.dp));
        if (W > p.tp)
            refuse(
                fmt::format("needs tp >= the wafer count (tp = {}): the gathered shares must "
                            "fit the activation scratch",
                            p.tp));
        if (m.moe.shared_experts > 0)
            refuse(
                fmt::format("is not built for shared experts ({} has {}: they would need the "
                            "TP group's tokens, which the wafer gather spreads)",
                            m.name, m.moe.shared_experts));
    }
    if (p.ep > 1) {
        if (!m.isMoe())
            throw std::invalid_argument(fmt::format(
                "plan {}: ep={} needs an MoE model ({} is dense)", p.str(), p.ep, m.name));
        if (p.ep % (uint64_t(p.tp) * p.sp))
            throw std::invalid_argument(fmt::format(
                "plan {}: ep={} must be a multiple of tp x sp = {} (an EP group spans whole "
                "TP/SP groups)",
                p.str(), p.ep, p.tp * p.sp));
        if (p.ep > m.moe.experts && p.ep % m.moe.experts)
            throw std::invalid_argument(fmt::format(
                "plan {}: ep={} is more than the {} experts and not a multiple of them (a die "
                "holds E / ep experts, or one of ep / E replicas of an expert)",
                p.str(), p.ep, m.moe.experts));
        // Fewer dies than experts but not a divisor (128 experts on 36 dies): dies hold 3 or 4,
        // which only routed tokens describe (the balanced path gives every die the same shard).
        if (p.ep < m.moe.experts && m.moe.experts % p.ep && !s.routing)
            throw std::invalid_argument(fmt::format(
                "plan {}: ep={} does not divide the {} experts, so dies hold {} or {} of them: "
                "route the tokens (wsc llm infer --gating uniform) to simulate that",
                p.str(), p.ep, m.moe.experts, m.moe.experts / p.ep, m.moe.experts / p.ep + 1));
    }
    if (p.tatp > 1) {
        if (p.pp > 1 || p.ep > 1 || p.seqpar)
            throw std::invalid_argument(fmt::format(
                "plan {}: tatp={} combines with dp, fsdp, tp and sp only (its rounds run on the "
                "pipeline's streams, it does not place experts, and Megatron's seqpar would split "
                "the tokens TATP already splits): drop pp, ep and seqpar",
                p.str(), p.tatp));
        if (s.mode == StepSpec::Mode::Decode)
            throw std::invalid_argument(
                "decode generates one token per sequence: tatp splits tokens, so it must be 1");
    }
    if (s.mode != StepSpec::Mode::Train && (p.fsdp > 1))
        throw std::invalid_argument("fsdp shards training state; inference plans use dp, tp, pp");
    if (!s.recompute.empty() && (s.mode != StepSpec::Mode::Train || s.recompute.size() != p.pp))
        throw std::invalid_argument(fmt::format(
            "recomputation is for training steps, one choice per pipeline stage ({} given, pp={})",
            s.recompute.size(), p.pp));
    if (p.tatp > 1 && std::any_of(s.recompute.begin(), s.recompute.end(),
                                  [](uint64_t mask) { return mask != 0; }))
        throw std::invalid_argument(fmt::format(
            "plan {}: recomputation with tatp={} is not supported (a re-run would repeat the "
            "TATP rounds, which is not built): drop --recompute or tatp",
            p.str(), p.tatp));
    graph_ = model::LayerGraph::build(m, shapeOf(s, mb_sequences_));
    // Every operator must split under the plan (throws naming the operator).
    for (const Block& b : graph_.blocks())
        for (const Operator& o : b.ops) shardOf(o, p);
}

uint64_t StepBuilder::stageLayers() const {
    return (model_.layers + plan_.pp - 1) / plan_.pp;
}

uint64_t StepBuilder::stageLayers(const model::ModelConfig& m, uint32_t pp, uint32_t st) {
    // When pp does not divide the layers, the last L mod pp stages take one more: the early
    // stages hold the most micro-batches' activations under 1F1B (docs/LLM.md, "Schedule").
    return m.layers / pp + (st >= pp - m.layers % pp ? 1 : 0);
}

uint64_t StepBuilder::firstLayer(const model::ModelConfig& m, uint32_t pp, uint32_t st) {
    uint64_t first = 0;
    for (uint32_t s = 0; s < st; ++s) first += stageLayers(m, pp, s);
    return first;
}

uint64_t StepBuilder::stepTokens() const {
    return spec_.batch * (spec_.mode == StepSpec::Mode::Decode ? 1 : spec_.seq);
}

uint64_t StepBuilder::stepModelFlops() const {
    const uint64_t per =
        spec_.mode == StepSpec::Mode::Train ? graph_.trainFlops() : graph_.fwdFlops();
    return per * plan_.microBatches() * plan_.dataWays();
}

namespace {

// One build: all the state of emitting a step.
class Build {
  public:
    Build(const model::ModelConfig& m, const plan::ParallelPlan& p,
          const std::vector<uint32_t>& rank_die, const DieSpec& die, const StepSpec& s,
          const model::LayerGraph& g, uint64_t layers, bool emit)
        : m_(m), p_(p), grid_(p), die_(die), s_(s), g_(g), layers_(layers), emit_(emit) {
        out_.rank_die = rank_die;
        out_.layers_per_stage = layers;
        uint32_t nodes = 0;
        for (uint32_t d : rank_die) nodes = std::max(nodes, d + 1);
        out_.fw = Firmware(nodes);
        out_.ledger = MemoryLedger(nodes, die.hbm_bytes);
        e_ = dtypeBytes(s.dtype);
        die_flops_.assign(grid_.ranks(), 0);
        if (s.routing) {
            if (s.mode == StepSpec::Mode::Train || p.ep < 2)
                throw std::invalid_argument(
                    fmt::format("expert routing is for inference with ep > 1 (plan {}, {})",
                                p.str(), modeName(s.mode)));
            router_ = std::make_unique<ExpertRouter>(p, m.moe.experts);
        }
        for (uint32_t r = 0; r < grid_.ranks(); ++r)
            em_.push_back(std::make_unique<DieEmitter>(out_.fw.program(rank_die[r]), rank_die[r],
                                                       die, s.dtype, p.tatp > 1));
        train_ = s.mode == StepSpec::Mode::Train;
    }

    StepProgram run() {
        mem_.resize(grid_.ranks());
        setupOffload();
        for (uint32_t st = 0; st < p_.pp; ++st) stage(st);
        for (const auto& ds : slot_need_)
            if (!slot_raised_.count(ds))
                throw std::logic_error(fmt::format(
                    "expert migration: die {} waits for phase slot {}, which the step never "
                    "reached",
                    ds.first, ds.second));
        // Convert per-stream indices to pcs and finish.
        for (auto& c : pending_comms_) {
            const Program& pr = out_.fw.program(c.rec.die);
            c.rec.pc_begin = pr.streamBegin(c.rec.stream) + c.begin;
            c.rec.pc_end = pr.streamBegin(c.rec.stream) + c.end;
            out_.comms.push_back(c.rec);
        }
        for (uint32_t r = 0; r < grid_.ranks(); ++r) {
            out_.sram_bytes.push_back(em_[r]->sramBytes());
            out_.hbm_by_op[die(r)] = em_[r]->hbmBytesByTag();
        }
        out_.die_flops = die_flops_;
        if (emit_ && !(capped_ && split_.empty())) out_.fw.validate();
        return std::move(out_);
    }

  private:
    // A unit of weights: the embedding, one transformer layer, or the head.
    struct Unit {
        const Block* block;
        uint64_t layer;    // global layer index (embedding / head: ~0)
        std::string name;  // "layer 3", "embedding", "head"
    };
    struct RankMem {
        std::vector<uint64_t> weights, grads, master;  // per unit
        std::vector<uint64_t> unit_params;             // stored parameters per unit
        std::vector<uint64_t> unit_repl;   // of them, replicated over the TATP group (norms, ...)
        std::vector<uint64_t> tatp_slots;  // HBM slots of streamed weight blocks
        uint64_t gather[2] = {0, 0};
        std::vector<uint64_t> scratch = std::vector<uint64_t>(2, 0);  // 2 per set (overlap: per mb)
        uint64_t pp_rx[2][2] = {{0, 0}, {0, 0}};  // pipeline receive slots per direction
        uint64_t pp_recvs[2] = {0, 0};            // pipeline receives posted so far
        uint64_t kv = 0;
        uint64_t copies = 0;  // expert copies (routing with a balancer's placement)
    };
    struct PendingComm {
        CommRecord rec;
        uint32_t begin, end;
    };

    uint32_t die(uint32_t r) const { return out_.rank_die[r]; }
    DieEmitter& em(uint32_t r) { return *em_[r]; }

    std::vector<Unit> units(uint32_t st) const {
        std::vector<Unit> u;
        if (st == 0) u.push_back({&g_.embedding(), ~0ull, "embedding"});
        const uint64_t first = StepBuilder::firstLayer(m_, p_.pp, st);
        const uint64_t n = std::min(layers_, StepBuilder::stageLayers(m_, p_.pp, st));
        for (uint64_t i = 0; i < n; ++i)
            u.push_back({&g_.layer(first + i), first + i, fmt::format("layer {}", first + i)});
        if (st + 1 == p_.pp) u.push_back({&g_.head(), ~0ull, "head"});
        return u;
    }

    // ---- communication ------------------------------------------------------------------
    // `staging`: the staging set to draw on, when not the kind's own (see below).
    void coll(const std::string& kind, coll::Collective c, const std::vector<uint32_t>& ranks,
              uint64_t elems, uint32_t stream, const std::vector<uint64_t>& in,
              const std::vector<uint64_t>& out, const std::string& label, DType dt = DType::FP16,
              const std::vector<uint64_t>* counts = nullptr, const std::string& staging = {}) {
        if (ranks.size() < 2 || elems == 0) return;
        coll::CollectiveSpec cs;
        if (counts)
            cs.counts = std::vector<uint64_t>(*counts);  // all-to-all-v: elems = largest row
        cs.kind = c;
        cs.algo = c == coll::Collective::AllToAll ? coll::Algorithm::Direct : coll::Algorithm::Ring;
        for (uint32_t r : ranks) cs.ranks.push_back(die(r));
        cs.elems = elems;
        cs.dtype = dt;
        cs.bidirectional = c != coll::Collective::AllToAll && ranks.size() > 2;
        cs.pieces = 2;
        // Each (kind, dtype, group size) on a stream has its own staging set (buffers reused by
        // name by the later collectives of that shape). A stream's share is split evenly over
        // the sets it carries when the first build found that they do not all fit (`split_`,
        // StepBuilder::build), and every set is capped at what the SRAM has left above the
        // receive buffer's reserve (DieSpec): early messages that find no room would block the
        // die's ejection port.
        // The set is named by the kind's text after its first word ("all-reduce" of "tp
        // all-reduce") unless the caller names another: collectives that run in turn where
        // another ran share its set (each set splits the stream's share).
        cs.prefix = fmt::format("s{}.{}.{}.n{}", stream,
                                staging.empty() ? kind.substr(kind.find(' ') + 1) : staging,
                                dtypeName(dt), ranks.size());
        sets_[stream].insert(cs.prefix);
        coll::Staging stg;
        auto sp = split_.find(stream);
        const uint64_t want = em(ranks[0]).commBudget() /
                              (sp == split_.end() ? 1 : std::max<uint32_t>(1, sp->second));
        uint64_t budget = want;
        const uint64_t limit = static_cast<uint64_t>(double(die_.sram_bytes) *
                                                     (die_.compute_share + 4 * die_.comm_share));
        for (uint32_t r : ranks) {
            uint64_t others = 0;
            for (const auto& b : out_.fw.program(die(r)).buffers())
                if (b.name.compare(0, cs.prefix.size() + 1, cs.prefix + ".") != 0)
                    others += b.allocBytes();
            budget = std::min(budget, limit > others ? limit - others : 0);
        }
        // First build: a set that does not fit marks the build for a second one with the
        // shares split, and keeps its share here (this program is discarded, and tiny segments
        // would only make it slow and large to emit).
        if (budget < want) {
            capped_ = true;
            if (split_.empty()) budget = want;
        }
        stg.budget_bytes = budget;
        stg.in_addr = in;
        stg.out_addr = out;
        std::vector<uint32_t> before;
        for (uint32_t r : ranks) {
            em(r).use(stream);
            before.push_back(em(r).streamSize(stream));
        }
        coll::Collectives::emitStaged(out_.fw, cs, stg);
        for (size_t i = 0; i < ranks.size(); ++i) {
            PendingComm pc;
            pc.rec.die = die(ranks[i]);
            pc.rec.stream = stream;
            pc.rec.kind = kind;
            pc.rec.label = label;
            pc.rec.bytes = elems * dtypeBytes(dt);
            if (counts) {
                pc.rec.bytes = 0;
                for (size_t j = 0; j < ranks.size(); ++j)
                    pc.rec.bytes += (*counts)[i * ranks.size() + j] * dtypeBytes(dt);
            }
            pc.begin = before[i];
            pc.end = em(ranks[i]).streamSize(stream);
            pending_comms_.push_back(pc);
        }
    }

    // A blocking collective on stream 1: compute signals, the stream runs it, compute waits.
    void blocking(const std::string& kind, coll::Collective c, const std::vector<uint32_t>& ranks,
                  uint64_t elems, const std::vector<uint64_t>& in, const std::vector<uint64_t>& out,
                  const std::string& label, DType dt = DType::FP16,
                  const std::vector<uint64_t>* counts = nullptr, const std::string& staging = {}) {
        if (ranks.size() < 2 || elems == 0) return;
        const uint32_t s = tensorStream();
        for (uint32_t r : ranks) {
            em(r).ready(s);
            em(r).awaitReady(s);
        }
        migrationPhase(kind, ranks);
        coll(kind, c, ranks, elems, s, in, out, label, dt, counts, staging);
        for (uint32_t r : ranks) {
            em(r).done(s);
            // Overlapped micro-batches: compute goes on with the next micro-batch and waits for
            // this result only before this micro-batch's next operator (flushWaits).
            if (defer_)
                pending_[{r, cur_mb_}].push_back(kind);
            else
                out_.waits.push_back({die(r), em(r).awaitDone(s), kind});
        }
    }

    std::vector<uint64_t> addrs(const std::vector<uint32_t>& ranks,
                                uint64_t (Build::*f)(uint32_t) const) const {
        std::vector<uint64_t> a;
        for (uint32_t r : ranks) a.push_back((this->*f)(r));
        return a;
    }
    uint64_t scratchIn(uint32_t r) const { return mem_[r].scratch[2 * set_ + (turn_ & 1)]; }
    uint64_t scratchOut(uint32_t r) const { return mem_[r].scratch[2 * set_ + ((turn_ + 1) & 1)]; }

    // ---- memory -------------------------------------------------------------------------
    void allocateStage(uint32_t st, const std::vector<Unit>& us) {
        for (uint32_t r : grid_.stage(st)) {
            RankMem& rm = mem_[r];
            uint64_t max_unit = 0, max_out = 0, max_item = 0;
            for (const Unit& u : us) {
                uint64_t w = 0, repl = 0;
                for (const Operator& o : u.block->ops) {
                    const OpShard sh = shardOf(o, p_);
                    w += sh.weight_elems;
                    if (!sh.tatp) repl += sh.weight_elems;
                    if (sh.tatp) max_item = std::max(max_item, sh.op.in * sh.tatp_cols);
                    // Fused attention keeps the scores and their softmax in SRAM (DieEmitter::
                    // attention): only its queries and its context output are tensors here.
                    if (o.kind == OpKind::AttnScore)
                        max_out = std::max(max_out, sh.in_elems);
                    else if (o.kind == OpKind::AttnContext)
                        max_out = std::max(max_out, sh.out_elems);
                    else if (o.kind != OpKind::Softmax)
                        max_out = std::max({max_out, sh.out_elems, sh.in_elems});
                }
                const uint64_t stored = (w + p_.fsdp - 1) / p_.fsdp;
                rm.unit_params.push_back(stored);
                rm.unit_repl.push_back(p_.tatp > 1 ? (repl + p_.fsdp - 1) / p_.fsdp : 0);
                max_unit = std::max(max_unit, w);
                const uint32_t d = die(r);
                rm.weights.push_back(
                    out_.ledger.alloc(d, MemKind::Weights, stored * e_, u.name + " weights"));
                if (train_) {
                    rm.grads.push_back(
                        out_.ledger.alloc(d, MemKind::Gradients, stored * e_, u.name + " grads"));
                    rm.master.push_back(out_.ledger.alloc(d, MemKind::Optimizer, stored * 12,
                                                          u.name + " Adam states"));
                }
            }
            const uint32_t d = die(r);
            if (router_) routedMemory(st, us, r, max_out);
            if (p_.fsdp > 1)
                for (auto& g : rm.gather)
                    g = out_.ledger.alloc(d, MemKind::Buffers, max_unit * e_,
                                          "FSDP gathered weights");
            // TATP: weight blocks received from the group (and dW partials on their way to their
            // owner) wait in HBM slots, as many as the schedules hold at once.
            if (max_item)
                for (uint32_t k = 0; k < TatpLowering::slots(p_.tatp); ++k)
                    rm.tatp_slots.push_back(
                        out_.ledger.alloc(d, MemKind::Buffers, max_item * e_, "TATP stream slot"));
            // Overlapped micro-batches are all in flight at once: a scratch pair each.
            rm.scratch.assign(2 * size_t(s_.overlap ? p_.microBatches() : 1), 0);
            for (auto& sc : rm.scratch)
                sc = out_.ledger.alloc(d, MemKind::Buffers, std::max<uint64_t>(max_out, 1) * e_,
                                       "activation scratch");
            // A tensor from a neighbour stage lands here while compute works (two slots per
            // direction: the next one is received while compute uses this one).
            for (int fwd = 0; fwd < 2; ++fwd)
                if (fwd ? st > 0 : st + 1 < p_.pp)
                    for (auto& rx : rm.pp_rx[fwd])
                        rx =
                            out_.ledger.alloc(d, MemKind::Buffers, pipeBytes(), "pipeline receive");
        }
    }

    // Routing: the scratch must hold the die's routed rows (sent, received, and through the
    // experts' widths), and every expert copy a balancer placed here needs its weights.
    void routedMemory(uint32_t st, const std::vector<Unit>& us, uint32_t r, uint64_t& max_out) {
        const uint32_t first = grid_.stage(st).front(), me = memberOf(r);
        uint64_t copy_elems = 0;
        for (const Unit& u : us) {
            uint64_t width = m_.hidden, expert_params = 0;
            for (const Operator& o : u.block->ops)
                if (o.ffn == FfnRole::RoutedExpert && o.kind == OpKind::Linear)
                    width = std::max({width, o.in, o.out}), expert_params += o.params;
            for (uint32_t mb = 0; mb < p_.microBatches(); ++mb) {
                const RoutedLayer* rl = routedFor(st, u.layer, mb);
                if (!rl) continue;
                for (size_t g = 0; g < rl->groups.size(); ++g) {
                    const auto& grp = rl->groups[g];
                    const size_t n = grp.size();
                    for (size_t q = 0; q < n; ++q) {
                        if (grp[q] != r) continue;
                        uint64_t sent = 0, recv = 0;
                        for (size_t j = 0; j < n; ++j)
                            sent += rl->pairs[g][q * n + j], recv += rl->pairs[g][j * n + q];
                        max_out = std::max(max_out, std::max(sent, recv) * m_.hidden);
                    }
                }
                uint64_t rows = 0;
                for (const auto& er : rl->rows[r - first]) rows += er.second;
                max_out = std::max(max_out, rows * width);
            }
            const uint64_t j =
                u.layer == ~0ull || u.layer >= moe_index_.size() ? ~0ull : moe_index_[u.layer];
            if (j == ~0ull || j >= s_.routing->hosts.size()) continue;
            uint64_t copies = 0;
            for (uint32_t e = 0; e < s_.routing->hosts[j].size(); ++e)
                for (uint32_t m : s_.routing->hosts[j][e])
                    if (m == me && !router_->hostsNatively(me, e)) ++copies;
            copy_elems += copies * expert_params;
        }
        if (copy_elems)
            mem_[r].copies =
                out_.ledger.alloc(die(r), MemKind::Weights, copy_elems * e_, "expert copies");
    }

    uint64_t pipeBytes() const { return tokensLocal() * m_.hidden / (p_.seqpar ? p_.tp : 1) * e_; }
    // The pipeline tensor of one item (forward: activations from stage st - 1 on stream
    // kPipeComm, backward: gradients from st + 1 on kPipeBack), posted as soon as one of the
    // direction's two receive slots is free (compute has finished the item that used it); the
    // compute stream waits for the data.
    void pipeRecv(uint32_t r, uint32_t peer_stage, bool forward) {
        auto c = grid_.coord(r);
        c.pp = peer_stage;
        const uint32_t s = forward ? kPipeComm : kPipeBack;
        const uint64_t n = mem_[r].pp_recvs[forward]++;
        if (n >= 2) em(r).waitEvent(s, slotEvent(forward));
        em(r).recvTensor(forward, die(grid_.rank(c)), mem_[r].pp_rx[forward][n & 1], pipeBytes());
        em(r).done(s);
        out_.waits.push_back({die(r), em(r).awaitDone(s), "pp recv"});
    }
    // After the item that used a receive slot: compute frees it.
    void pipeSlotFree(uint32_t r, bool forward) { em(r).signalEvent(kCompute, slotEvent(forward)); }
    // The item's output to the neighbour stage, once compute produced it.
    void pipeSend(uint32_t r, uint32_t peer_stage, bool forward) {
        const uint32_t s = forward ? kPipeComm : kPipeBack;
        em(r).ready(s);
        em(r).awaitReady(s);
        auto c = grid_.coord(r);
        c.pp = peer_stage;
        em(r).sendTensor(forward, die(grid_.rank(c)), scratchIn(r), pipeBytes());
    }

    // ---- one stage ----------------------------------------------------------------------
    void stage(uint32_t st) {
        const std::vector<Unit> us = units(st);
        mem_.resize(grid_.ranks());
        allocateStage(st, us);
        if (st == 0) setupMigration(us);  // pp = 1: after the stage's memory, before its work
        const uint32_t mb = p_.microBatches();
        std::vector<std::pair<bool, uint32_t>> order;  // (forward?, micro-batch)
        if (train_) {
            const uint32_t warm = std::min(p_.pp - st - 1, mb);
            for (uint32_t i = 0; i < warm; ++i) order.push_back({true, i});
            for (uint32_t i = 0; i + warm < mb; ++i) {
                order.push_back({true, warm + i});
                order.push_back({false, i});
            }
            for (uint32_t i = mb - warm; i < mb; ++i) order.push_back({false, i});
        } else {
            for (uint32_t i = 0; i < mb; ++i) order.push_back({true, i});
        }
        gather_uses_.assign(grid_.ranks(), 0);
        std::vector<std::vector<uint64_t>> act(grid_.ranks());  // per rank: (mb, unit) blocks
        for (auto& a : act) a.assign(size_t(mb) * us.size(), 0);
        if (!train_) kvCache(st, us);
        if (s_.overlap) {
            for (size_t ui = 0; ui < us.size(); ++ui) opsOverlapped(st, us[ui], ui);
            for (uint32_t i = 0; i < mb; ++i) flushWaits(grid_.stage(st), i);
        } else {
            for (const auto& [fwd, i] : order) {
                if (fwd)
                    forward(st, us, i, act);
                else
                    backward(st, us, i, act);
            }
        }
        if (train_ && s_.optimizer && emit_) optimizer(st, us);
    }

    void kvCache(uint32_t st, const std::vector<Unit>& us) {
        // The KV cache of every sequence the stage serves: K and V per layer, heads split by tp.
        for (uint32_t r : grid_.stage(st)) {
            uint64_t elems = 0;
            for (const Unit& u : us)
                if (u.layer != ~0ull)
                    if (const Operator* sc = u.block->find("attn.score")) {
                        const OpShard sh = shardOf(*sc, p_);
                        // keys x head_dim per (sequence, head) for K, and as much for V.
                        elems += 2 * sh.op.batch * sc->out * sc->in;
                    }
            elems *= p_.microBatches();
            if (elems)
                mem_[r].kv = out_.ledger.alloc(die(r), MemKind::KvCache, elems * e_, "KV cache");
        }
    }

    // FSDP: the weights of a unit are gathered before each use (prefetched two ahead on
    // stream 3) and the slot is released after it.
    void gatherBefore(uint32_t st, const Unit& u, size_t ui) {
        if (p_.fsdp < 2 || !emit_) return;
        for (const auto& grp : groupsOf(st, {Dim::FSDP})) {
            for (uint32_t r : grp) {
                const uint64_t use = gather_uses_[r]++;
                if (use >= 2) em(r).awaitReady(kGatherComm);
            }
            std::vector<uint64_t> in, out;
            for (uint32_t r : grp) {
                in.push_back(mem_[r].weights[ui]);
                out.push_back(mem_[r].gather[(gather_uses_[r] - 1) & 1]);
            }
            coll("fsdp all-gather", coll::Collective::AllGather, grp,
                 mem_[grp[0]].unit_params[ui] * p_.fsdp, kGatherComm, in, out, u.name);
            for (uint32_t r : grp) {
                em(r).done(kGatherComm);
                out_.waits.push_back({die(r), em(r).awaitDone(kGatherComm), "fsdp all-gather"});
            }
        }
    }
    void gatherAfter(uint32_t st) {
        if (p_.fsdp < 2 || !emit_) return;
        for (uint32_t r : grid_.stage(st)) em(r).ready(kGatherComm);
    }

    std::vector<std::vector<uint32_t>> groupsOf(uint32_t st,
                                                std::initializer_list<Dim> dims) const {
        std::vector<std::vector<uint32_t>> out;
        for (auto& g : grid_.groups(dims))
            if (grid_.coord(g[0]).pp == st) out.push_back(g);
        return out;
    }

    uint64_t tokensLocal() const { return g_.shape().tokens() / p_.tokenWays(); }

    // MoEntwine's full token domains (docs/LLM.md, "Expert parallelism"): when EP spans the
    // whole stage and every die of a TP group holds all of the group's tokens (all-reduce, no
    // sequence parallelism), a die dispatches its group's tokens only to the experts of its FTD,
    // the ranks sharing its tp index (one die of every TP group), and takes the results back from
    // them; the TP group then sums its dies' partial expert outputs.
    bool ftd() const { return ExpertRouter::ftd(p_); }
    // The all-to-all groups of the expert layer on stage st: the FTDs, or the EP groups.
    std::vector<std::vector<uint32_t>> a2aGroups(uint32_t st) const {
        if (her()) return herWafers(st);
        return ExpertRouter::groups(grid_, st);
    }
    // Hierarchical ER (StepSpec::her_wafers): the wafer of a rank, the ranks of each wafer (the
    // all-to-all groups), and the ranks at one place on every wafer (tp index and group within
    // the wafer), wafer 0 first.
    bool her() const { return s_.her_wafers > 1; }
    uint32_t waferOf(uint32_t rank) const { return grid_.coord(rank).dp / (p_.dp / s_.her_wafers); }
    std::vector<std::vector<uint32_t>> herWafers(uint32_t st) const {
        std::vector<std::vector<uint32_t>> out(s_.her_wafers);
        for (uint32_t r : grid_.stage(st)) out[waferOf(r)].push_back(r);
        return out;
    }
    std::vector<std::vector<uint32_t>> herAcross(uint32_t st) const {
        const uint32_t per = p_.dp / s_.her_wafers;
        std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> at;  // (tp, dp % per)
        for (uint32_t r : grid_.stage(st)) {
            const auto c = grid_.coord(r);
            at[{c.tp, c.dp % per}].push_back(r);
        }
        std::vector<std::vector<uint32_t>> out;
        for (auto& [k, v] : at) {
            std::sort(v.begin(), v.end(),
                      [&](uint32_t a, uint32_t b) { return waferOf(a) < waferOf(b); });
            out.push_back(std::move(v));
        }
        return out;
    }
    // Before the MoE layer: the TP group's partial sums reduce-scattered (each rank ends with a
    // tp-th of its group's tokens, summed), then gathered across the wafers (every wafer holds a
    // tp-th share of every group's tokens: one FTD per wafer).
    // HER's collectives run in turn on the stream where the all-reduce they replace ran and
    // share its staging sets (one per group size), not four sets of their own.
    static constexpr const char* kHerStaging = "all-reduce";
    void herGather(uint32_t st, uint64_t elems, const std::string& lbl) {
        for (const auto& grp : groupsOf(st, {Dim::TP}))
            blocking("her reduce-scatter (intra-wafer)", coll::Collective::ReduceScatter, grp,
                     elems, addrs(grp, &Build::scratchOut), {}, lbl, DType::FP16, nullptr,
                     kHerStaging);
        for (const auto& grp : herAcross(st))
            blocking("her all-gather (inter-wafer)", coll::Collective::AllGather, grp,
                     elems / p_.tp * s_.her_wafers, addrs(grp, &Build::scratchIn),
                     addrs(grp, &Build::scratchOut), lbl, DType::FP16, nullptr, kHerStaging);
    }
    // After the combine: each wafer's partial expert outputs for every wafer's shares summed
    // across the wafers (each rank keeps its own share), then gathered in the TP group.
    void herReturn(uint32_t st, const std::string& lbl) {
        const uint64_t share = tokensLocal() * m_.hidden / p_.tp;
        for (const auto& grp : herAcross(st))
            blocking("her reduce-scatter (inter-wafer)", coll::Collective::ReduceScatter, grp,
                     share * s_.her_wafers, addrs(grp, &Build::scratchOut), {}, lbl, DType::FP16,
                     nullptr, kHerStaging);
        for (const auto& grp : groupsOf(st, {Dim::TP}))
            blocking("her all-gather (intra-wafer)", coll::Collective::AllGather, grp,
                     tokensLocal() * m_.hidden, addrs(grp, &Build::scratchIn),
                     addrs(grp, &Build::scratchOut), lbl, DType::FP16, nullptr, kHerStaging);
    }
    // The attention output's all-reduce in a layer whose FFN is routed experts (HER replaces it).
    static bool feedsExperts(const Operator& o, const std::vector<Operator>& all) {
        if (o.name != "attn.out") return false;
        for (const Operator& x : all)
            if (x.ffn == FfnRole::RoutedExpert) return true;
        return false;
    }

    // Rows a die sends in an expert all-to-all (balanced routing): its TP rank's share of its
    // group's tokens times top-k, rounded up (a decode step has fewer tokens than ranks).
    uint64_t a2aRows() const {
        return (tokensLocal() * m_.moe.experts_per_token + p_.tp - 1) / p_.tp;
    }

    // The TP group's sum of its dies' partial expert outputs (FTD dispatch), forward after the
    // combine and backward after the dispatch's reverse.
    void moeReduce(uint32_t st, const std::string& lbl) {
        for (const auto& grp : groupsOf(st, {Dim::TP}))
            blocking("moe all-reduce", coll::Collective::AllReduce, grp, tokensLocal() * m_.hidden,
                     addrs(grp, &Build::scratchOut), {}, lbl);
    }

    // ---- expert routing (StepSpec::routing) -----------------------------------------------
    // The routed layer of model layer `layer` (its MoE index among the model's layers) for
    // micro-batch mb on stage st; null for a dense layer or without routing.
    const RoutedLayer* routedFor(uint32_t st, uint64_t layer, uint32_t mb) {
        if (!router_ || layer == ~0ull) return nullptr;
        while (moe_index_.size() <= layer) {
            const uint64_t i = moe_index_.size();
            bool moe = false;
            for (const Operator& o : g_.layer(i).ops) moe = moe || o.ffn == FfnRole::RoutedExpert;
            uint64_t before = 0;
            for (uint64_t j : moe_index_)
                if (j != ~0ull) ++before;
            moe_index_.push_back(moe ? before : ~0ull);
        }
        const uint64_t j = moe_index_[layer];
        if (j == ~0ull) return nullptr;
        const ExpertRouting& rt = *s_.routing;
        if (j >= rt.layers.size())
            throw std::invalid_argument(
                fmt::format("expert routing: model layer {} is MoE layer {}, the routing has {}",
                            layer, j, rt.layers.size()));
        const auto key = std::make_tuple(st, j, mb);
        auto it = routed_cache_.find(key);
        if (it == routed_cache_.end())
            it = routed_cache_
                     .emplace(key, router_->route(st, mb, rt.layers[j],
                                                  j < rt.hosts.size()
                                                      ? rt.hosts[j]
                                                      : std::vector<std::vector<uint32_t>>{}))
                     .first;
        return &it->second;
    }
    // Dispatch (or, reversed, combine) of the routed layer: an all-to-all-v per group with the
    // routed rows of `hidden` elements each; in/out per rank of the stage.
    void routedAllToAll(const std::string& kind, bool reverse, const std::vector<uint64_t>& in,
                        const std::vector<uint64_t>& out, const std::string& lbl) {
        const uint32_t first = grid_.stage(grid_.coord(routed_->groups[0][0]).pp).front();
        for (size_t g = 0; g < routed_->groups.size(); ++g) {
            const auto& grp = routed_->groups[g];
            const size_t n = grp.size();
            std::vector<uint64_t> counts(n * n);
            uint64_t most = 0;
            for (size_t q = 0; q < n; ++q) {
                uint64_t row = 0;
                for (size_t j = 0; j < n; ++j) {
                    const uint64_t c = routed_->pairs[g][reverse ? j * n + q : q * n + j];
                    counts[q * n + j] = c * m_.hidden;
                    row += c * m_.hidden;
                }
                most = std::max(most, row);
            }
            std::vector<uint64_t> gi, go;
            for (uint32_t r : grp) gi.push_back(in[r - first]), go.push_back(out[r - first]);
            blocking(kind, coll::Collective::AllToAll, grp, most, gi, go, lbl, DType::FP16,
                     &counts);
        }
    }

    // ---- forward ------------------------------------------------------------------------
    void forward(uint32_t st, const std::vector<Unit>& us, uint32_t i,
                 std::vector<std::vector<uint64_t>>& act) {
        const auto ranks = grid_.stage(st);
        releaseOffloaded(st, us, act);
        if (st > 0 && emit_)  // activations of micro-batch i from the previous stage
            for (uint32_t r : ranks) pipeRecv(r, st - 1, true);
        const std::vector<size_t> off = offloadedUnits(st, us);
        for (size_t ui = 0; ui < us.size(); ++ui) {
            const Unit& u = us[ui];
            const std::string lbl = fmt::format("mb {} {}", i, u.name);
            gatherBefore(st, u, ui);
            if (train_) {  // the activations this micro-batch keeps for its backward
                // Every rank of the stage holds the same shard.
                const uint64_t saved = keptElems(u, recomputeMask(st, u), 0, u.block->ops.size());
                for (uint32_t r : ranks) {
                    act[r][size_t(i) * us.size() + ui] =
                        out_.ledger.alloc(die(r), MemKind::Activations,
                                          std::max<uint64_t>(saved, 1) * e_, lbl + " activations");
                }
            }
            ops(st, u, ui, i, true);
            gatherAfter(st);
            if (std::find(off.begin(), off.end(), ui) != off.end())
                offloadUnit(st, us, ui, i, act, ui == off.back());
        }
        if (st > 0 && emit_)
            for (uint32_t r : ranks) pipeSlotFree(r, true);
        if (st + 1 < p_.pp && emit_)
            for (uint32_t r : ranks) pipeSend(r, st + 1, true);
    }

    // ---- backward -----------------------------------------------------------------------
    void backward(uint32_t st, const std::vector<Unit>& us, uint32_t i,
                  std::vector<std::vector<uint64_t>>& act) {
        const auto ranks = grid_.stage(st);
        releaseOffloaded(st, us, act);
        const std::vector<size_t> off = offloadedUnits(st, us);
        reload(st, us, i, act, off);
        if (st + 1 < p_.pp && emit_)  // gradients of micro-batch i from the next stage
            for (uint32_t r : ranks) pipeRecv(r, st + 1, false);
        for (size_t k = us.size(); k-- > 0;) {
            const Unit& u = us[k];
            if (!off.empty() && k == off.back() && emit_)  // the reloaded tensors are needed now
                for (const OffPair& op : off_)
                    if (op.p.sender == st)
                        for (uint32_t r : ranks)
                            out_.waits.push_back(
                                {die(r), em(r).awaitDone(op.s_rel), "checkpoint reload"});
            gatherBefore(st, u, k);
            const uint64_t mask = recomputeMask(st, u);
            if (!mask) {
                ops(st, u, k, i, false);
            } else {
                // Segment by segment from the last: re-run the forward ranges that regenerate
                // the segment's dropped tensors, then its backward (docs/LLM.md).
                const RecomputeBlock rb(*u.block);
                const auto reruns = rb.reruns(mask);
                const size_t nops = u.block->ops.size();
                for (size_t sg = rb.segments(); sg-- > 0;) {
                    size_t a = nops, b = 0;
                    for (size_t o = 0; o < nops; ++o)
                        if (rb.segmentOf(o) == sg) a = std::min(a, o), b = std::max(b, o + 1);
                    if (a >= b) continue;
                    // The regenerated tensors (what the segment keeps with everything, less
                    // what it keeps under the mask) live until the segment's backward is done.
                    std::vector<uint64_t> transient(grid_.ranks(), 0);
                    bool any = false;
                    for (const auto& rr : reruns) any = any || rr.segment == sg;
                    const uint64_t bytes = (keptElems(u, 0, a, b) - keptElems(u, mask, a, b)) * e_;
                    if (any)
                        for (uint32_t r : ranks)
                            transient[r] = out_.ledger.alloc(
                                die(r), MemKind::Activations, std::max<uint64_t>(bytes, 1),
                                fmt::format("mb {} {} recomputed activations", i, u.name));
                    for (const auto& rr : reruns)
                        if (rr.segment == sg) rerun(st, u, k, i, rr.first, rr.last);
                    ops(st, u, k, i, false, a, b);
                    if (any)
                        for (uint32_t r : ranks) out_.ledger.free(die(r), transient[r]);
                }
            }
            gatherAfter(st);
            for (uint32_t r : ranks) out_.ledger.free(die(r), act[r][size_t(i) * us.size() + k]);
            gradReduce(st, u, k, i);
        }
        if (st + 1 < p_.pp && emit_)
            for (uint32_t r : ranks) pipeSlotFree(r, false);
        if (st > 0 && emit_)
            for (uint32_t r : ranks) pipeSend(r, st - 1, false);
    }

    // Gradients of a unit after micro-batch i's backward: FSDP reduce-scatters every micro-
    // batch; replicas (dp, sp) all-reduce after the last one. Stream 4, overlapped.
    void gradReduce(uint32_t st, const Unit& u, size_t ui, uint32_t i) {
        const bool last = i + 1 == p_.microBatches();
        const bool rs = p_.fsdp > 1;
        const auto ranks = grid_.stage(st);
        // (nothing to all-reduce when TATP left the unit only replicated weights: the embedding)
        const bool ar = last && (p_.dp > 1 || p_.sp > 1) &&
                        mem_[ranks[0]].unit_params[ui] > mem_[ranks[0]].unit_repl[ui];
        // TATP shards the linear operators' weights over its group; the rest (norms, the
        // embedding) is replicated there and its gradients are summed over the group too.
        const bool tatp_ar = last && p_.tatp > 1 && mem_[ranks[0]].unit_repl[ui] > 0;
        if ((!rs && !ar && !tatp_ar) || !emit_) return;
        for (uint32_t r : ranks) em(r).ready(kGradComm);
        for (uint32_t r : ranks) em(r).awaitReady(kGradComm);
        if (rs)
            for (const auto& grp : groupsOf(st, {Dim::FSDP})) {
                std::vector<uint64_t> a;
                for (uint32_t r : grp) a.push_back(mem_[r].grads[ui]);
                coll("fsdp reduce-scatter", coll::Collective::ReduceScatter, grp,
                     mem_[grp[0]].unit_params[ui] * p_.fsdp, kGradComm, a, {},
                     fmt::format("mb {} {}", i, u.name));
            }
        if (ar)
            for (const auto& grp : groupsOf(st, {Dim::SP, Dim::DP})) {
                std::vector<uint64_t> a;
                for (uint32_t r : grp) a.push_back(mem_[r].grads[ui]);
                coll("dp all-reduce", coll::Collective::AllReduce, grp,
                     mem_[grp[0]].unit_params[ui] - mem_[grp[0]].unit_repl[ui], kGradComm, a, {},
                     u.name);
            }
        if (tatp_ar)
            for (const auto& grp : groupsOf(st, {Dim::TATP, Dim::SP, Dim::DP})) {
                std::vector<uint64_t> a;
                for (uint32_t r : grp) a.push_back(mem_[r].grads[ui]);
                coll("tatp all-reduce", coll::Collective::AllReduce, grp,
                     mem_[grp[0]].unit_repl[ui], kGradComm, a, {}, u.name);
            }
        for (uint32_t r : ranks) em(r).done(kGradComm);
        grad_signals_[ui]++;
    }

    void optimizer(uint32_t st, const std::vector<Unit>& us) {
        // In the order the gradients were reduced (last unit first).
        for (size_t k = us.size(); k-- > 0;)
            for (uint32_t r : grid_.stage(st)) {
                for (uint32_t n = 0; n < grad_signals_[k]; ++n)
                    out_.waits.push_back({die(r), em(r).awaitDone(kGradComm), "grad reduction"});
                em(r).optimizer(mem_[r].unit_params[k], mem_[r].master[k], mem_[r].grads[k],
                                mem_[r].weights[k]);
            }
        grad_signals_.clear();
    }

    // ---- expert migration (ExpertRouting::migrations) ---------------------------------------
    // Every part is a receiver-driven transfer (DieEmitter::sendOn / recvOn) on one migration
    // stream per die, HBM to HBM through two SRAM segments. Each die's stream holds its parts in
    // one global order (phase slot, then the balancer's order), sends and receives alike: the
    // first unfinished part is then always at the head of both its dies' streams, so the
    // streams cannot deadlock each other, and each part has its own clear-to-send event on its
    // sender. A phase part waits on its sender until compute starts that phase (an event raised
    // just before the collective; slot 2 j: MoE layer j's first tp all-reduce, 2 j + 1: its
    // dispatch, micro-batch 0). Slots are counted over the MoE layers this build holds and wrap
    // (steady state: a migration that began in an earlier iteration's last layers ends in this
    // one's first); a wrapped part does not wait for its predecessor. Parts of MoE layers the
    // build does not hold are left out (LlmTestbench simulates every layer when a step has
    // migrations). Invasive parts run first and the compute of every die taking part waits for
    // its stream to finish.
    static constexpr uint32_t kMigration = kStreams;
    static uint16_t phaseSlotEvent(uint32_t slot) { return static_cast<uint16_t>(32768 + slot); }

    void setupMigration(const std::vector<Unit>& us) {
        if (!s_.routing || s_.routing->migrations.empty()) return;
        if (train_ || p_.pp > 1)
            throw std::invalid_argument("expert migration: inference with pp = 1 only");
        // MoE layers built (stage 0 holds them all with pp = 1), and the unit of each.
        uint64_t built = 0;
        std::vector<size_t> unit_of;
        for (size_t ui = 0; ui < us.size(); ++ui) {
            const Unit& u = us[ui];
            if (u.layer == ~0ull) continue;
            bool moe = false;
            for (const Operator& o : u.block->ops) moe = moe || o.ffn == FfnRole::RoutedExpert;
            if (moe) moe_slot_of_layer_[u.layer] = built++, unit_of.push_back(ui);
        }
        if (built == 0) return;
        const uint64_t slots = 2 * built;
        const auto& all = s_.routing->migrations;
        struct Kept {
            size_t i;
            uint64_t abs, wslot;
            int64_t after;  // index into kept, -1: none
        };
        std::vector<Kept> kept;
        std::map<size_t, size_t> kept_of;
        for (size_t i = 0; i < all.size(); ++i) {
            const MigrationTransfer& t = all[i];
            if (t.moe_layer >= built) continue;
            Kept k{i, 0, 0, -1};
            if (t.when == MigrationTransfer::When::Phase) {
                k.abs = 2 * t.moe_layer + t.slot;
                k.wslot = k.abs % slots;
            }
            if (t.after >= 0) {
                auto it = kept_of.find(size_t(t.after));
                if (it != kept_of.end() && kept[it->second].abs / slots == k.abs / slots)
                    k.after = int64_t(it->second);
            }
            kept_of[i] = kept.size();
            kept.push_back(k);
        }
        if (kept.empty()) return;
        std::map<uint32_t, uint32_t> rank_of;
        for (uint32_t r = 0; r < grid_.ranks(); ++r) rank_of[die(r)] = r;
        auto rankOf = [&](uint32_t d) {
            auto it = rank_of.find(d);
            if (it == rank_of.end())
                throw std::invalid_argument(
                    fmt::format("expert migration: die {} holds no rank of the plan", d));
            return it->second;
        };
        // Memory: an invasive part lands in the expert-copy slots the step uses (already in the
        // ledger as "expert copies"); a non-invasive one is the next iteration's copy, or an
        // expert between two steps, kept in its own region for the whole step. The first part
        // of a migration reads the expert from the sender's weights of its layer.
        std::map<uint32_t, uint64_t> recv_bytes, copy_bytes;
        std::vector<uint64_t> at(kept.size(), 0);
        for (size_t n = 0; n < kept.size(); ++n) {
            const MigrationTransfer& t = all[kept[n].i];
            auto& b = t.when == MigrationTransfer::When::Start ? copy_bytes : recv_bytes;
            at[n] = b[rankOf(t.to)];
            b[rankOf(t.to)] += t.params * e_;
        }
        std::map<uint32_t, uint64_t> region;
        for (const auto& [r, b] : recv_bytes)
            region[r] = out_.ledger.alloc(die(r), MemKind::Buffers, b,
                                          "expert migration (next iteration's copies)");
        for (const auto& [r, b] : copy_bytes)
            if (!mem_[r].copies)
                throw std::logic_error(fmt::format(
                    "expert migration: {} B of copies for rank {}, which holds no copy slot", b,
                    r));
        auto dest = [&](size_t n, uint32_t r) {
            return all[kept[n].i].when == MigrationTransfer::When::Start ? mem_[r].copies + at[n]
                                                                         : region.at(r) + at[n];
        };
        out_.migration_parts = kept.size();
        for (const Kept& k : kept) out_.migration_bytes += all[k.i].params * e_;
        if (!emit_) return;
        std::vector<size_t> order(kept.size());
        for (size_t n = 0; n < order.size(); ++n) order[n] = n;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return kept[a].wslot < kept[b].wslot; });
        std::map<uint32_t, uint16_t> cts_next, arrived_next;
        std::vector<int32_t> arrived(kept.size(), -1);
        // Parts that wait for part n to land (a wait consumes one raise: raise once for each).
        std::vector<uint32_t> needed(kept.size(), 0);
        for (const Kept& k : kept)
            if (k.after >= 0) ++needed[size_t(k.after)];
        std::set<uint32_t> invasive;
        for (size_t n : order) {
            const Kept& k = kept[n];
            const MigrationTransfer& t = all[k.i];
            const uint32_t rf = rankOf(t.from), rt = rankOf(t.to);
            const uint64_t bytes = t.params * e_;
            auto next = [](std::map<uint32_t, uint16_t>& m, uint32_t r, uint16_t base) {
                const uint16_t v = m[r]++;
                if (v >= 8192)
                    throw std::invalid_argument(fmt::format(
                        "expert migration: more than 8192 parts on one die's stream (rank {})", r));
                return static_cast<uint16_t>(base + v);
            };
            const uint16_t cts = next(cts_next, rf, 8192);
            if (t.when == MigrationTransfer::When::Phase &&
                slot_need_.insert({die(rf), uint32_t(k.wslot)}).second)
                em(rf).waitEvent(kMigration, phaseSlotEvent(uint32_t(k.wslot)));
            if (t.when == MigrationTransfer::When::Start) invasive.insert(rf), invasive.insert(rt);
            uint64_t src = mem_[rf].weights[unit_of[t.moe_layer]];
            if (k.after >= 0) {
                // The predecessor is earlier in the order (its slot is not later): its arrival
                // event exists.
                if (arrived[size_t(k.after)] < 0)
                    throw std::logic_error(fmt::format(
                        "expert migration: part {} runs before the part it follows", k.i));
                em(rf).waitEvent(kMigration, static_cast<uint16_t>(arrived[size_t(k.after)]));
                src = dest(size_t(k.after), rf);
            }
            // Records from here: the waits for the phase and the predecessor are not transfer.
            const uint32_t sb = em(rf).streamSize(kMigration), rb = em(rt).streamSize(kMigration);
            // The receive first: both may be the same die's stream only for a part to itself,
            // which the balancers never make.
            em(rt).recvOn(migChan(rt), die(rf), dest(n, rt), bytes, "expert migration", cts);
            if (needed[n]) {
                arrived[n] = next(arrived_next, rt, 16384);
                for (uint32_t w = 0; w < needed[n]; ++w)
                    em(rt).signalEvent(kMigration, static_cast<uint16_t>(arrived[n]));
            }
            em(rf).sendOn(migChan(rf), die(rt), src, bytes, "expert migration", cts);
            streamRecord(rf, kMigration, sb, t.kind, t.label, bytes);
            streamRecord(rt, kMigration, rb, t.kind, t.label, bytes);
        }
        // Invasive: the dies taking part resume inference once their stream is done.
        for (uint32_t r : invasive) {
            em(r).done(kMigration);
            out_.waits.push_back(
                {die(r), em(r).awaitDone(kMigration), "expert migration (invasive)"});
        }
    }

    DieEmitter::Channel& migChan(uint32_t r) {
        auto it = chan_.find({r, kMigration});
        if (it == chan_.end())
            it = chan_.emplace(std::make_pair(r, kMigration), em(r).channel(kMigration, "mig."))
                     .first;
        return it->second;
    }

    // Before a blocking collective of the layer being emitted: the phase slot it opens (its
    // first tp all-reduce or reduce-scatter, its dispatch), raised on the dies whose migration
    // parts wait for it.
    void migrationPhase(const std::string& kind, const std::vector<uint32_t>& ranks) {
        if (slot_need_.empty() || cur_mb_ != 0) return;
        auto it = moe_slot_of_layer_.find(cur_layer_);
        if (it == moe_slot_of_layer_.end()) return;
        uint32_t slot;
        if (kind == "tp all-reduce" || kind == "tp reduce-scatter")
            slot = uint32_t(2 * it->second);
        else if (kind == "ep dispatch")
            slot = uint32_t(2 * it->second + 1);
        else
            return;
        for (uint32_t r : ranks) {
            const std::pair<uint32_t, uint32_t> ds{die(r), slot};
            if (slot_need_.count(ds) && slot_raised_.insert(ds).second)
                em(r).signalEvent(kCompute, phaseSlotEvent(slot));
        }
    }

    // ---- checkpoint offload (StepSpec::offload) -------------------------------------------
    struct OffPair {
        OffloadPair p;
        uint32_t s_off = 0, s_rel = 0;  // streams: sender -> helper, helper -> sender
        uint64_t slots = 0;             // micro-batches the helper holds at once
        uint64_t slot_bytes = 0;        // one micro-batch's pieces, per rank
        std::vector<uint64_t> piece;    // per unit of the sender stage: bytes this helper stores
        std::vector<uint64_t> at;       // per unit: offset of the piece in the tensor
        std::vector<uint64_t> in_slot;  // per unit: offset of the piece in a slot
        std::vector<uint64_t> region;   // per rank index in the stage: the helper's HBM region
    };
    // Events on the helper: its receive stream has stored micro-batch i's pieces (the reload
    // stream may send them back).
    static uint16_t storedEvent(uint32_t s) { return static_cast<uint16_t>(3072 + s); }

    // The units (indices into units(st)) whose kept tensors a Sender stage offloads: its first
    // `layers` transformer layers that this build holds.
    std::vector<size_t> offloadedUnits(uint32_t st, const std::vector<Unit>& us) const {
        std::vector<size_t> out;
        if (s_.offload.empty() || st >= s_.offload.layers.size()) return out;
        for (size_t ui = 0; ui < us.size() && out.size() < s_.offload.layers[st]; ++ui)
            if (us[ui].layer != ~0ull) out.push_back(ui);
        return out;
    }

    void setupOffload() {
        const OffloadSpec& o = s_.offload;
        off_pending_.assign(p_.pp, -1);
        if (o.empty()) return;
        if (!train_)
            throw std::invalid_argument("checkpoint offload is for training steps (wsc llm train)");
        if (o.layers.size() != p_.pp)
            throw std::invalid_argument(fmt::format(
                "checkpoint offload: {} per-stage layer counts for pp={}", o.layers.size(), p_.pp));
        std::vector<double> shares(p_.pp, 0.0);
        std::vector<bool> helper(p_.pp, false);
        for (const OffloadPair& q : o.pairs) {
            if (q.sender >= p_.pp || q.helper >= p_.pp || q.sender == q.helper)
                throw std::invalid_argument(fmt::format(
                    "checkpoint offload: pair {} -> {} needs two different stages below pp={}",
                    q.sender, q.helper, p_.pp));
            if (!(q.share > 0 && q.share <= 1))
                throw std::invalid_argument(
                    fmt::format("checkpoint offload: pair {} -> {} share {} is not in (0, 1]",
                                q.sender, q.helper, q.share));
            shares[q.sender] += q.share;
            helper[q.helper] = true;
        }
        for (uint32_t st = 0; st < p_.pp; ++st) {
            const bool sender = o.layers[st] > 0;
            if (sender != (shares[st] > 0) || (sender && std::abs(shares[st] - 1.0) > 1e-9))
                throw std::invalid_argument(fmt::format(
                    "checkpoint offload: stage {} offloads {} layers but its helpers' shares sum "
                    "to {}",
                    st, o.layers[st], shares[st]));
            if (sender && helper[st])
                throw std::invalid_argument(
                    fmt::format("checkpoint offload: stage {} is both a Sender and a Helper", st));
        }
        const uint32_t mb = p_.microBatches();
        for (size_t j = 0; j < o.pairs.size(); ++j) {
            OffPair op;
            op.p = o.pairs[j];
            op.s_off = kStreams + 2 * static_cast<uint32_t>(j);
            op.s_rel = op.s_off + 1;
            if (op.s_rel > 255)
                throw std::invalid_argument(fmt::format(
                    "checkpoint offload: {} pairs need more than 256 streams", o.pairs.size()));
            op.slots = std::min<uint64_t>(p_.pp - op.p.sender, mb);
            off_.push_back(std::move(op));
        }
        // Pieces: a Sender's tensor is cut in its pairs' order, each helper's share rounded down
        // to whole elements and the last helper taking the rest.
        for (uint32_t st = 0; st < p_.pp; ++st) {
            if (!o.layers[st]) continue;
            const std::vector<Unit> us = units(st);
            const std::vector<size_t> units_off = offloadedUnits(st, us);
            std::vector<uint64_t> cut(us.size(), 0);
            OffPair* last = nullptr;
            for (OffPair& op : off_)
                if (op.p.sender == st) last = &op;
            for (OffPair& op : off_) {
                if (op.p.sender != st) continue;
                op.piece.assign(us.size(), 0), op.at.assign(us.size(), 0);
                op.in_slot.assign(us.size(), 0);
                for (size_t ui : units_off) {
                    const uint64_t elems = std::max<uint64_t>(
                        keptElems(us[ui], recomputeMask(st, us[ui]), 0, us[ui].block->ops.size()),
                        1);
                    const uint64_t n = &op == last
                                           ? elems - cut[ui]
                                           : static_cast<uint64_t>(double(elems) * op.p.share);
                    op.at[ui] = cut[ui] * e_;
                    op.piece[ui] = n * e_;
                    op.in_slot[ui] = op.slot_bytes;
                    op.slot_bytes += n * e_;
                    cut[ui] += n;
                }
            }
        }
        out_.offload_held.assign(p_.pp, 0);
        for (const OffPair& op : off_) out_.offload_held[op.p.sender] += op.slots * op.slot_bytes;
        // Every Helper reserves its region for the whole step (WATOS Algorithm 3 gives it that
        // much of its free memory), before its own stage allocates anything.
        for (OffPair& op : off_) {
            const auto snd = grid_.stage(op.p.sender), hlp = grid_.stage(op.p.helper);
            for (size_t t = 0; t < snd.size(); ++t)
                op.region.push_back(out_.ledger.alloc(
                    die(hlp[t]), MemKind::Checkpoints,
                    std::max<uint64_t>(op.slots * op.slot_bytes, 1),
                    fmt::format("checkpoints offloaded from die {}", die(snd[t]))));
        }
    }

    DieEmitter::Channel& chan(uint32_t r, uint32_t stream) {
        auto it = chan_.find({r, stream});
        if (it == chan_.end())
            it = chan_
                     .emplace(std::make_pair(r, stream),
                              em(r).channel(stream, fmt::format("ckpt{}.", stream)))
                     .first;
        return it->second;
    }

    // After unit ui's forward of micro-batch i on a Sender stage: its kept tensors go to the
    // helpers (each pair on its own stream, once compute has produced them); after the last
    // offloaded unit, the micro-batch is pending release.
    void offloadUnit(uint32_t st, const std::vector<Unit>& us, size_t ui, uint32_t i,
                     const std::vector<std::vector<uint64_t>>& act, bool last) {
        const auto ranks = grid_.stage(st);
        for (OffPair& op : off_) {
            if (op.p.sender != st) continue;
            const auto hlp = grid_.stage(op.p.helper);
            for (size_t t = 0; emit_ && t < ranks.size(); ++t) {
                const uint32_t r = ranks[t], h = hlp[t];
                const uint64_t b = op.piece[ui];
                em(r).ready(op.s_off);
                em(r).awaitReady(op.s_off);
                const uint32_t sb = em(r).streamSize(op.s_off), hb = em(h).streamSize(op.s_off);
                if (b) {
                    em(r).sendOn(chan(r, op.s_off), die(h),
                                 act[r][size_t(i) * us.size() + ui] + op.at[ui], b,
                                 "checkpoint offload");
                    em(h).recvOn(chan(h, op.s_off), die(r),
                                 op.region[t] + (i % op.slots) * op.slot_bytes + op.in_slot[ui], b,
                                 "checkpoint offload");
                }
                if (last) {
                    em(r).done(op.s_off);
                    em(h).signalEvent(op.s_off, storedEvent(op.s_off));
                }
                const std::string lbl = fmt::format("mb {} {} to die {}", i, us[ui].name, die(h));
                streamRecord(r, op.s_off, sb, "checkpoint offload", lbl, b);
                streamRecord(h, op.s_off, hb, "checkpoint offload", lbl, b);
            }
        }
        if (last) off_pending_[st] = i;
    }
    // A transfer on a stream of its own (checkpoint offload, expert migration) as a CommRecord:
    // instructions [begin, now) of `stream` on rank r.
    void streamRecord(uint32_t r, uint32_t stream, uint32_t begin, const std::string& kind,
                      const std::string& lbl, uint64_t bytes) {
        PendingComm pc;
        pc.rec.die = die(r), pc.rec.stream = stream, pc.rec.kind = kind, pc.rec.label = lbl;
        pc.rec.bytes = bytes;
        pc.begin = begin, pc.end = em(r).streamSize(stream);
        if (pc.end > pc.begin) pending_comms_.push_back(pc);
    }

    // Before the item after an offloading forward: compute waits until the micro-batch's
    // tensors have left and frees them (so the ledger's free is true in time, not only in
    // program order).
    void releaseOffloaded(uint32_t st, const std::vector<Unit>& us,
                          std::vector<std::vector<uint64_t>>& act) {
        if (off_pending_.empty() || off_pending_[st] < 0) return;
        const uint32_t i = static_cast<uint32_t>(off_pending_[st]);
        off_pending_[st] = -1;
        const auto ranks = grid_.stage(st);
        if (emit_)
            for (const OffPair& op : off_)
                if (op.p.sender == st)
                    for (uint32_t r : ranks)
                        out_.waits.push_back(
                            {die(r), em(r).awaitDone(op.s_off), "checkpoint offload"});
        for (size_t ui : offloadedUnits(st, us))
            for (uint32_t r : ranks) out_.ledger.free(die(r), act[r][size_t(i) * us.size() + ui]);
    }

    // When micro-batch i's backward starts: its offloaded tensors get their memory back and
    // come home, last layer first (the order the backward needs them); each helper sends its
    // pieces once it has stored them.
    void reload(uint32_t st, const std::vector<Unit>& us, uint32_t i,
                std::vector<std::vector<uint64_t>>& act, const std::vector<size_t>& off) {
        if (off.empty()) return;
        const auto ranks = grid_.stage(st);
        for (size_t ui : off) {
            const uint64_t bytes =
                std::max<uint64_t>(
                    keptElems(us[ui], recomputeMask(st, us[ui]), 0, us[ui].block->ops.size()), 1) *
                e_;
            for (uint32_t r : ranks)
                act[r][size_t(i) * us.size() + ui] = out_.ledger.alloc(
                    die(r), MemKind::Activations, bytes,
                    fmt::format("mb {} {} activations (reloaded)", i, us[ui].name));
        }
        if (!emit_) return;
        for (OffPair& op : off_) {
            if (op.p.sender != st) continue;
            const auto hlp = grid_.stage(op.p.helper);
            for (size_t t = 0; t < ranks.size(); ++t) {
                const uint32_t r = ranks[t], h = hlp[t];
                em(r).ready(op.s_rel);
                em(r).awaitReady(op.s_rel);
                em(h).waitEvent(op.s_rel, storedEvent(op.s_off));
                const uint32_t sb = em(r).streamSize(op.s_rel), hb = em(h).streamSize(op.s_rel);
                uint64_t total = 0;
                for (size_t n = off.size(); n-- > 0;) {
                    const size_t ui = off[n];
                    const uint64_t b = op.piece[ui];
                    if (!b) continue;
                    total += b;
                    em(h).sendOn(chan(h, op.s_rel), die(r),
                                 op.region[t] + (i % op.slots) * op.slot_bytes + op.in_slot[ui], b,
                                 "checkpoint reload");
                    em(r).recvOn(chan(r, op.s_rel), die(h),
                                 act[r][size_t(i) * us.size() + ui] + op.at[ui], b,
                                 "checkpoint reload");
                }
                em(r).done(op.s_rel);
                const std::string lbl = fmt::format("mb {} from die {}", i, die(h));
                streamRecord(r, op.s_rel, sb, "checkpoint reload", lbl, total);
                streamRecord(h, op.s_rel, hb, "checkpoint reload", lbl, total);
            }
        }
    }

    // ---- recomputation --------------------------------------------------------------------
    uint64_t recomputeMask(uint32_t st, const Unit& u) const {
        if (!train_ || s_.recompute.empty() || u.layer == ~0ull) return 0;
        return s_.recompute[st];
    }
    // Saved elements a die keeps for the unit's operators [a, b) under a mask (0: all).
    uint64_t keptElems(const Unit& u, uint64_t mask, size_t a, size_t b) const {
        const auto& ops = u.block->ops;
        std::optional<RecomputeBlock> rb;
        if (mask) rb.emplace(*u.block);
        uint64_t n = 0;
        for (size_t k = a; k < b; ++k)
            if (!rb || !rb->drops(mask, k)) n += savedElemsOnDie(ops[k], shardOf(ops[k], p_));
        return n;
    }
    // Forward operators [first, last) of a unit re-run before a backward: compute tagged
    // "recompute", and one "recompute" record per die spanning the compute stream's
    // instructions (the report's recomputation time; re-run collectives are their own kind).
    void rerun(uint32_t st, const Unit& u, size_t ui, uint32_t mb, size_t first, size_t last) {
        const auto ranks = grid_.stage(st);
        std::vector<uint32_t> before;
        for (uint32_t r : ranks) before.push_back(em(r).streamSize(kCompute));
        rerun_ = true;
        ops(st, u, ui, mb, true, first, last);
        rerun_ = false;
        if (!emit_) return;
        for (size_t i = 0; i < ranks.size(); ++i) {
            PendingComm pc;
            pc.rec.die = die(ranks[i]);
            pc.rec.stream = kCompute;
            pc.rec.kind = "recompute";
            pc.rec.label = fmt::format("mb {} {} ops {}-{}", mb, u.name, first, last);
            pc.begin = before[i];
            pc.end = em(ranks[i]).streamSize(kCompute);
            if (pc.end > pc.begin) pending_comms_.push_back(pc);
        }
    }

    // ---- the operators of a unit, forward or backward ------------------------------------
    // The operators [from, to) of a unit (forward order), forward or backward.
    void ops(uint32_t st, const Unit& u, size_t ui, uint32_t mb, bool fwd, size_t from = 0,
             size_t to = ~size_t{0}) {
        const auto& all = u.block->ops;
        block_ = u.block;
        routed_ = routedFor(st, u.layer, mb);
        cur_layer_ = u.layer, cur_mb_ = mb;
        to = std::min(to, all.size());
        std::vector<size_t> idx;
        for (size_t j = from; j < to; ++j) idx.push_back(fwd ? j : to - 1 - (j - from));
        for (size_t n = 0; n < idx.size(); ++n) opAt(st, u, ui, mb, fwd, all[idx[n]], idx[n]);
        routed_ = nullptr;
    }

    // Inference with overlapped micro-batches (StepSpec::overlap, MoEntwine Fig. 11e): the
    // operators of a unit in order, each for every micro-batch in turn. Micro-batch i's
    // collectives run on its own stream (tensorStream) while compute goes on with micro-batch
    // i + 1; compute waits for them before micro-batch i's next operator. A collective before an
    // operator (the dispatch) is waited for at once: the operator needs its result.
    void opsOverlapped(uint32_t st, const Unit& u, size_t ui) {
        const auto& all = u.block->ops;
        block_ = u.block;
        const auto ranks = grid_.stage(st);
        const uint32_t mbs = p_.microBatches();
        if (turns_.size() != mbs) turns_.assign(mbs, 0);
        for (size_t n = 0; n < all.size(); ++n)
            for (uint32_t mb = 0; mb < mbs; ++mb) {
                routed_ = routedFor(st, u.layer, mb);
                cur_layer_ = u.layer, cur_mb_ = mb, set_ = mb, turn_ = turns_[mb];
                flushWaits(ranks, mb);
                opAt(st, u, ui, mb, true, all[n], n);
                turns_[mb] = turn_;
            }
        routed_ = nullptr;
        set_ = 0;
    }

    // Compute waits for micro-batch mb's deferred collectives, in the order they were issued
    // (each micro-batch's stream raises its done events in that order).
    void flushWaits(const std::vector<uint32_t>& ranks, uint32_t mb) {
        if (!emit_) return;
        for (uint32_t r : ranks) {
            auto it = pending_.find({r, mb});
            if (it == pending_.end()) continue;
            for (const std::string& kind : it->second)
                out_.waits.push_back({die(r), em(r).awaitDone(streamOfMb(mb)), kind});
            pending_.erase(it);
        }
    }

    // The stream of the blocking collectives: kTensorComm, or with overlapped micro-batches one
    // per micro-batch (micro-batch 0 on kTensorComm, i > 0 on kStreams + 1 + i: the migration
    // stream kStreams sits between).
    uint32_t streamOfMb(uint32_t mb) const {
        return s_.overlap && mb > 0 ? kStreams + 1 + mb : kTensorComm;
    }
    uint32_t tensorStream() const { return streamOfMb(cur_mb_); }

    // One operator `o` (index `at` in its block) of one micro-batch.
    void opAt(uint32_t st, const Unit& u, size_t ui, uint32_t mb, bool fwd, const Operator& o,
              size_t at) {
        const auto& all = u.block->ops;
        const auto ranks = grid_.stage(st);
        const std::string lbl = fmt::format("mb {} {} {}", mb, u.name, o.name);
        // Fused attention: score, softmax and context are one kernel.
        // (the graph lists score, softmax, context in forward order whichever way we walk)
        if (o.kind == OpKind::Softmax && at > 0 && all[at - 1].kind == OpKind::AttnScore) return;
        if ((fwd && o.kind == OpKind::AttnContext) || (!fwd && o.kind == OpKind::AttnScore)) return;
        if ((fwd && o.kind == OpKind::AttnScore) || (!fwd && o.kind == OpKind::AttnContext)) {
            attention(ranks, fwd ? o : *u.block->find("attn.score"), fwd, lbl);
            return;
        }
        const OpShard sh = shardOf(o, p_);
        if (emit_) {
            preComm(ranks, o, sh, fwd, lbl);
            if (sh.tatp)
                tatpLinear(ranks, o, sh, ui, fwd, mb, lbl);
            else
                for (uint32_t r : ranks) {
                    em(r).tag(o.name + (rerun_ ? " recompute" : fwd ? " fwd" : " bwd"));
                    compute(r, o, sh, ui, fwd, mb);
                }
            defer_ = s_.overlap;
            postComm(ranks, o, sh, fwd, lbl, all, at);
            defer_ = false;
        }
        flops(ranks, o, sh, fwd);
        ++turn_;
    }

    void flops(const std::vector<uint32_t>& ranks, const Operator& o, const OpShard& sh, bool fwd) {
        const uint64_t f = fwd ? sh.flops_fwd : sh.flops_bwd;
        for (uint32_t r : ranks) {
            uint64_t fr = f;
            if (routed_ && o.ffn == FfnRole::RoutedExpert) {
                // FLOPs are linear in the rows: the whole operator's per row, times this die's.
                const double per_row =
                    o.rows ? double(o.fwd_flops) / double(o.rows) : double(o.row_cost.fwd_flops);
                fr = uint64_t(per_row * double(routedRows(r)) + 0.5);
            }
            if (rerun_)
                out_.recompute_flops += fr;
            else
                out_.model_flops += fr;
            die_flops_[r] += fr;
            out_.die_flops_max = std::max(out_.die_flops_max, die_flops_[r]);
        }
    }
    // Rows the routed layer gives rank r (all its expert copies).
    uint64_t routedRows(uint32_t r) const {
        uint64_t n = 0;
        for (const auto& er : routed_->rows[r - grid_.stage(grid_.coord(r).pp).front()])
            n += er.second;
        return n;
    }

    void attention(const std::vector<uint32_t>& ranks, const Operator& score, bool fwd,
                   const std::string& lbl) {
        const OpShard sh = shardOf(score, p_);
        const uint64_t keys = score.out, d = score.in;
        // Context parallelism: K and V of the whole sequence are gathered before (and their
        // gradients reduce-scattered after) attention.
        const uint64_t kv_local = sh.op.batch * sh.op.rows * d * 2;
        // TATP splits tokens like sp: its group gathers K and V the same way.
        const uint32_t cp = p_.tokenWays();
        const std::string cp_name = p_.tatp > 1 && p_.sp > 1 ? "tatp x sp"
                                    : p_.tatp > 1            ? "tatp"
                                                             : "sp";
        if (emit_) {
            if (fwd && cp > 1)
                for (const auto& grp : groupsOf(grid_.coord(ranks[0]).pp, {Dim::TATP, Dim::SP}))
                    blocking(cp_name + " all-gather", coll::Collective::AllGather, grp,
                             kv_local * cp, addrs(grp, &Build::scratchIn),
                             addrs(grp, &Build::scratchOut), lbl);
            for (uint32_t r : ranks) {
                AttentionWork w;
                w.groups = sh.op.batch, w.q = sh.op.rows, w.kv = keys, w.head_dim = d;
                w.causal_fraction = score.causal_fraction;
                w.q_addr = scratchIn(r), w.k_addr = scratchOut(r), w.v_addr = scratchOut(r);
                w.o_addr = scratchOut(r);
                if (s_.mode == StepSpec::Mode::Decode && mem_[r].kv)
                    w.k_addr = w.v_addr = mem_[r].kv;
                w.backward = !fwd;
                em(r).tag(rerun_ ? "attention recompute" : fwd ? "attention fwd" : "attention bwd");
                em(r).attention(w);
            }
            if (!fwd && cp > 1)
                for (const auto& grp : groupsOf(grid_.coord(ranks[0]).pp, {Dim::TATP, Dim::SP}))
                    blocking(cp_name + " reduce-scatter", coll::Collective::ReduceScatter, grp,
                             kv_local * cp, addrs(grp, &Build::scratchOut), {}, lbl);
        }
        // FLOPs of score, softmax and context together.
        flops(ranks, score, sh, fwd);
        for (const Operator& o : block_->ops)
            if (o.kind == OpKind::Softmax || o.kind == OpKind::AttnContext)
                flops(ranks, o, shardOf(o, p_), fwd);
        ++turn_;
    }

    // Collectives an operator needs before it runs.
    void preComm(const std::vector<uint32_t>& ranks, const Operator& o, const OpShard& sh, bool fwd,
                 const std::string& lbl) {
        const uint32_t st = grid_.coord(ranks[0]).pp;
        const bool tp = p_.tp > 1 && o.ffn != FfnRole::RoutedExpert;
        if (o.kind == OpKind::Linear && tp && p_.seqpar) {
            // Sequence-parallel regions: gather the sequence before a column split (forward),
            // before a row split's dX (backward).
            if ((fwd && o.tp == TpSplit::Column) || (!fwd && o.tp == TpSplit::Row)) {
                const uint64_t elems = sh.op.rows * (fwd ? o.in : o.out);
                for (const auto& grp : groupsOf(st, {Dim::TP}))
                    blocking("tp all-gather", coll::Collective::AllGather, grp, elems,
                             addrs(grp, &Build::scratchIn), addrs(grp, &Build::scratchOut), lbl);
            }
        }
        // Expert parallelism: dispatch before the first routed-expert operator (forward), the
        // reverse of the combine before the last one (backward).
        if (o.ffn == FfnRole::RoutedExpert && p_.ep > 1 && o.kind == OpKind::Linear &&
            ((fwd && o.tp == TpSplit::Column) || (!fwd && o.tp == TpSplit::Row))) {
            // Each die sends tokens/tp x k rows: a TP rank's share of its group's tokens to the
            // whole EP group, or (FTD) all of them routed to its FTD's dp of the tp x dp dies.
            if (routed_) {
                routedAllToAll("ep dispatch", false, addrs(grid_.stage(st), &Build::scratchIn),
                               addrs(grid_.stage(st), &Build::scratchOut), lbl);
                return;
            }
            const uint64_t elems = a2aRows() * m_.hidden;
            for (const auto& grp : a2aGroups(st))
                blocking(fwd ? "ep dispatch" : "ep combine (backward)", coll::Collective::AllToAll,
                         grp, elems, addrs(grp, &Build::scratchIn), addrs(grp, &Build::scratchOut),
                         lbl);
        }
    }

    // Collectives an operator needs after it runs.
    void postComm(const std::vector<uint32_t>& ranks, const Operator& o, const OpShard& sh,
                  bool fwd, const std::string& lbl, const std::vector<Operator>& all, size_t at) {
        const uint32_t st = grid_.coord(ranks[0]).pp;
        const bool tp = p_.tp > 1 && o.ffn != FfnRole::RoutedExpert;
        const uint64_t T = sh.op.rows;
        if (o.kind == OpKind::Linear && tp) {
            // Row split forward / column split backward leave partial sums: all-reduce them
            // (reduce-scatter with sequence parallelism).
            if ((fwd && o.tp == TpSplit::Row) || (!fwd && o.tp == TpSplit::Column)) {
                const uint64_t elems = T * (fwd ? o.out : o.in);
                if (fwd && her() && feedsExperts(o, all)) {
                    herGather(st, elems, lbl);
                    return;
                }
                for (const auto& grp : groupsOf(st, {Dim::TP})) {
                    if (p_.seqpar)
                        blocking("tp reduce-scatter", coll::Collective::ReduceScatter, grp, elems,
                                 addrs(grp, &Build::scratchOut), {}, lbl);
                    else
                        blocking("tp all-reduce", coll::Collective::AllReduce, grp, elems,
                                 addrs(grp, &Build::scratchOut), {}, lbl);
                }
            }
        }
        if (fwd && o.kind == OpKind::Embedding && p_.tp > 1 && o.tp == TpSplit::Row)
            for (const auto& grp : groupsOf(st, {Dim::TP}))
                blocking(p_.seqpar ? "tp reduce-scatter" : "tp all-reduce",
                         p_.seqpar ? coll::Collective::ReduceScatter : coll::Collective::AllReduce,
                         grp, sh.op.elems, addrs(grp, &Build::scratchOut), {}, lbl);
        if (fwd && o.kind == OpKind::Loss && p_.tp > 1)  // vocab-parallel cross-entropy: max, sum
            for (const auto& grp : groupsOf(st, {Dim::TP}))
                blocking("tp all-reduce", coll::Collective::AllReduce, grp, 2 * tokensLocal(),
                         addrs(grp, &Build::scratchOut), {}, lbl, DType::FP32);
        // Expert parallelism: combine after the last routed-expert operator (forward), the
        // reverse of the dispatch after the first one (backward).
        if (o.ffn == FfnRole::RoutedExpert && p_.ep > 1 && o.kind == OpKind::Linear &&
            ((fwd && o.tp == TpSplit::Row) || (!fwd && o.tp == TpSplit::Column))) {
            const uint64_t elems = a2aRows() * m_.hidden;
            if (routed_)
                routedAllToAll("ep combine", true, addrs(grid_.stage(st), &Build::scratchOut),
                               addrs(grid_.stage(st), &Build::scratchIn), lbl);
            else
                for (const auto& grp : a2aGroups(st))
                    blocking(fwd ? "ep combine" : "ep dispatch (backward)",
                             coll::Collective::AllToAll, grp, elems, addrs(grp, &Build::scratchOut),
                             addrs(grp, &Build::scratchIn), lbl);
            if (her() && fwd)
                herReturn(st, lbl);
            else if (ftd())
                moeReduce(st, lbl);
            // With tp > 1 each TP rank dispatched a share of the tokens: gather them back.
            else if (fwd && p_.tp > 1 && !p_.seqpar)
                for (const auto& grp : groupsOf(st, {Dim::TP}))
                    blocking("tp all-gather", coll::Collective::AllGather, grp,
                             tokensLocal() * m_.hidden, addrs(grp, &Build::scratchIn),
                             addrs(grp, &Build::scratchOut), lbl);
        }
        (void)at;
    }

    // A linear operator under TATP: per TATP group, the forward's weight broadcast, or the
    // backward's (dI) and the weight gradient's reduce (TatpLowering), with their transfers on
    // the pipeline streams.
    void tatpLinear(const std::vector<uint32_t>& ranks, const Operator& o, const OpShard& sh,
                    size_t ui, bool fwd, uint32_t mb, const std::string& lbl) {
        const uint32_t st = grid_.coord(ranks[0]).pp;
        TatpLowering::Shape shape;
        shape.tokens = sh.op.rows, shape.in = sh.op.in, shape.cols = sh.tatp_cols;
        shape.elem_bytes = e_;
        std::vector<TatpLowering::Stage> stages;
        if (fwd)
            stages = {TatpLowering::Stage::Forward};
        else
            stages = {TatpLowering::Stage::Backward, TatpLowering::Stage::Gradient};
        for (const auto& grp : groupsOf(st, {Dim::TATP})) {
            std::vector<DieEmitter*> chain;
            std::vector<TatpLowering::DieMem> mem;
            for (uint32_t r : grp) {
                chain.push_back(&em(r));
                em(r).tag(o.name + (fwd ? " fwd" : " bwd"));
                TatpLowering::DieMem d;
                d.weights =
                    p_.fsdp > 1 ? mem_[r].gather[(gather_uses_[r] - 1) & 1] : mem_[r].weights[ui];
                d.grads = train_ && ui < mem_[r].grads.size() ? mem_[r].grads[ui] : scratchOut(r);
                d.input = scratchIn(r), d.output = scratchOut(r), d.dout = scratchOut(r);
                d.slots = mem_[r].tatp_slots;
                mem.push_back(std::move(d));
            }
            for (TatpLowering::Stage stage : stages) {
                std::vector<std::pair<uint32_t, uint32_t>> waits;
                const auto comms = TatpLowering::emit(stage, chain, mem, shape, mb > 0, waits);
                for (const auto& c : comms) {
                    PendingComm pc;
                    pc.rec.die = c.die, pc.rec.stream = c.stream;
                    pc.rec.kind = "tatp stream";
                    pc.rec.label = fmt::format("{} {}", lbl, TatpLowering::name(stage));
                    pc.rec.bytes = c.bytes;
                    pc.begin = c.begin, pc.end = c.end;
                    pending_comms_.push_back(pc);
                }
                for (const auto& [d, pc] : waits) out_.waits.push_back({d, pc, "tatp stream"});
            }
        }
    }

    // The die's compute for one operator.
    void compute(uint32_t r, const Operator& o, const OpShard& sh, size_t ui, bool fwd,
                 uint32_t mb) {
        // Routed experts' element-wise operators run over all the die's routed rows.
        const bool routed = routed_ && o.ffn == FfnRole::RoutedExpert;
        model::Operator routed_op;
        if (routed && sh.op.kind != OpKind::Linear) {
            routed_op = sh.op;
            routed_op.elems = routedRows(r) * sh.op.out, routed_op.instances = 1;
        }
        const model::Operator& x = routed && sh.op.kind != OpKind::Linear ? routed_op : sh.op;
        DieEmitter& d = em(r);
        const uint64_t w_addr =
            p_.fsdp > 1 ? mem_[r].gather[(gather_uses_[r] - 1) & 1] : mem_[r].weights[ui];
        if (routed && x.kind == OpKind::Linear) {
            // One GEMM per expert copy with the rows routed to it (the activation, below, runs
            // over all of them).
            for (const auto& [e, n] : routed_->rows[r - grid_.stage(grid_.coord(r).pp).front()]) {
                MatrixWork w;
                w.m = n, w.k = x.in, w.n = x.out;
                // Native experts lie in the unit's weights, copies in their own slots.
                w.b_addr =
                    router_->hostsNatively(memberOf(r), e)
                        ? w_addr + (e - router_->firstExpert(memberOf(r))) * x.in * x.out * e_
                        : mem_[r].copies;
                w.a_addr = scratchIn(r), w.c_addr = scratchOut(r);
                d.matrix(w);
            }
            return;
        }
        if (x.kind == OpKind::Linear) {
            if (x.rows == 0) return;  // an expert no token was routed to
            MatrixWork w;
            w.batch = x.instances;
            if (fwd) {
                w.m = x.rows, w.k = x.in, w.n = x.out;
                w.a_addr = scratchIn(r), w.b_addr = w_addr, w.c_addr = scratchOut(r);
                d.matrix(w);
                return;
            }
            // dX = dY W^T, dW (+)= X^T dY (accumulated over micro-batches).
            w.m = x.rows, w.k = x.out, w.n = x.in;
            w.a_addr = scratchIn(r), w.b_addr = w_addr, w.c_addr = scratchOut(r);
            d.matrix(w);
            if (o.params > 0 || !o.tied_to.empty()) {
                MatrixWork g;
                g.batch = x.instances;
                g.m = x.in, g.k = x.rows, g.n = x.out;
                g.a_addr = scratchIn(r), g.b_addr = scratchOut(r);
                g.c_addr = train_ && ui < mem_[r].grads.size() ? mem_[r].grads[ui] : scratchOut(r);
                g.accumulate = mb > 0;
                d.matrix(g);
            }
            return;
        }
        VectorWork v;
        // Every instance (routed or shared expert) runs the element-wise operator.
        v.elems = x.elems * x.instances;
        v.in_addr = {scratchIn(r)};
        v.out_addr = scratchOut(r);
        switch (x.kind) {
            case OpKind::Norm:
                if (m_.norm == NormKind::LayerNorm)
                    v.ops = {Opcode::VRedSum, Opcode::VBSub, Opcode::VSqSum, Opcode::VRsqrt,
                             Opcode::VBMul,   Opcode::VMul,  Opcode::VAdd};
                else
                    v.ops = {Opcode::VSqSum, Opcode::VRsqrt, Opcode::VBMul, Opcode::VMul};
                if (!fwd) {
                    v.in_addr.push_back(scratchOut(r));  // saved input and the gradient
                    v.ops = {Opcode::VMul, Opcode::VRedSum, Opcode::VBMul,
                             Opcode::VSub, Opcode::VMul,    Opcode::VBMul};
                }
                break;
            case OpKind::Residual:
                if (!fwd) return;  // the gradient passes through both branches unchanged
                v.in_addr.push_back(scratchOut(r));
                v.ops = {Opcode::VAdd};
                break;
            case OpKind::Activation: {
                const bool gated = m_.gated_mlp;
                if (gated) v.in_addr.push_back(scratchOut(r));
                const Opcode f = m_.activation == Activation::Gelu   ? Opcode::VGelu
                                 : m_.activation == Activation::Silu ? Opcode::VSilu
                                                                     : Opcode::VMax;
                v.ops = {f};
                if (gated) v.ops.push_back(Opcode::VMul);
                if (!fwd) {
                    v.in_addr = {scratchIn(r), scratchOut(r)};
                    v.ops = {f, Opcode::VMul, Opcode::VMul, Opcode::VAdd};
                    if (gated) v.ops.push_back(Opcode::VMul);
                }
                break;
            }
            case OpKind::Softmax:
            case OpKind::Router:
                v.ops = {Opcode::VRedMax, Opcode::VBSub,  Opcode::VExp,
                         Opcode::VRedSum, Opcode::VRecip, Opcode::VBMul};
                if (x.kind == OpKind::Router)
                    for (uint32_t k = 0; k < m_.moe.experts_per_token; ++k)
                        v.ops.push_back(Opcode::VRedMax);
                if (!fwd) v.ops = {Opcode::VMul, Opcode::VRedSum, Opcode::VBSub, Opcode::VMul};
                break;
            case OpKind::Loss:
                v.ops = fwd ? std::vector<Opcode>{Opcode::VRedMax, Opcode::VBSub,  Opcode::VExp,
                                                  Opcode::VRedSum, Opcode::VRecip, Opcode::VBMul,
                                                  Opcode::VSub}
                            : std::vector<Opcode>{Opcode::VSub, Opcode::VScale};
                break;
            case OpKind::Embedding:
                // Forward: a gather of rows (this rank's share of the vocabulary); backward: the
                // scatter-add of the output gradient into the table's gradient.
                v.in_addr = {w_addr};
                v.elems = x.elems;
                v.ops = fwd ? std::vector<Opcode>{} : std::vector<Opcode>{Opcode::VAdd};
                if (!fwd) v.in_addr.push_back(scratchIn(r));
                if (!fwd && train_ && ui < mem_[r].grads.size()) v.out_addr = mem_[r].grads[ui];
                break;
            default:
                return;
        }
        if (v.elems) d.vector(v);
    }

    const model::ModelConfig& m_;
    const plan::ParallelPlan& p_;
    plan::RankGrid grid_;
    DieSpec die_;
    const StepSpec& s_;
    const model::LayerGraph& g_;
    uint64_t layers_;
    bool emit_ = true;  // false: the schedule's memory and FLOPs only, no instructions
    // Staging sets: how many each stream carries (prefixes seen), the split a rebuild uses, and
    // whether some set got less than its share.
    std::map<uint32_t, std::set<std::string>> sets_;
    std::map<uint32_t, uint32_t> split_;
    bool capped_ = false;

  public:
    void setSplit(std::map<uint32_t, uint32_t> s) { split_ = std::move(s); }
    bool capped() const { return capped_; }
    std::map<uint32_t, uint32_t> setsPerStream() const {
        std::map<uint32_t, uint32_t> m;
        for (const auto& [st, v] : sets_) m[st] = static_cast<uint32_t>(v.size());
        return m;
    }
    bool train_ = true;
    uint32_t e_ = 2;
    StepProgram out_;
    std::vector<std::unique_ptr<DieEmitter>> em_;
    std::vector<RankMem> mem_;
    std::vector<uint64_t> gather_uses_;
    std::map<size_t, uint32_t> grad_signals_;
    std::vector<PendingComm> pending_comms_;
    uint64_t turn_ = 0;
    std::vector<uint64_t> die_flops_;
    const Block* block_ = nullptr;  // the block whose operators are being emitted
    bool rerun_ = false;            // emitting a recomputation's forward re-run
    // Expert routing: the router, every model layer's MoE index (~0: dense), the routed layers
    // by (stage, MoE layer, micro-batch), and the one of the operators being emitted.
    std::unique_ptr<ExpertRouter> router_;
    std::vector<uint64_t> moe_index_;
    std::map<std::tuple<uint32_t, uint64_t, uint32_t>, RoutedLayer> routed_cache_;
    const RoutedLayer* routed_ = nullptr;
    // Checkpoint offload: the pairs, the micro-batch each stage has offloaded and not yet
    // released (-1: none), and the channels by (rank, stream).
    std::vector<OffPair> off_;
    std::vector<int64_t> off_pending_;
    std::map<std::pair<uint32_t, uint32_t>, DieEmitter::Channel> chan_;
    // Expert migration: the MoE index of every built MoE layer, the layer and micro-batch being
    // emitted, and the (die, phase slot) events migration parts wait for and those raised.
    std::map<uint64_t, uint64_t> moe_slot_of_layer_;
    uint64_t cur_layer_ = ~0ull;
    uint32_t cur_mb_ = 0;
    std::set<std::pair<uint32_t, uint32_t>> slot_need_, slot_raised_;
    // Overlapped micro-batches: the scratch set and operator turn of each micro-batch, whether
    // the collective being emitted is waited for later, and those waits by (rank, micro-batch).
    uint32_t set_ = 0;
    std::vector<uint64_t> turns_;
    bool defer_ = false;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::string>> pending_;
    // A rank's member index in its EP group.
    uint32_t memberOf(uint32_t r) const { return r - grid_.epGroup(r)[0]; }
};

}  // namespace

StepProgram StepBuilder::build(uint64_t layers, bool emit) const {
    const uint64_t per = stageLayers();
    if (layers == 0) layers = per;
    if (layers > per)
        throw std::invalid_argument(
            fmt::format("step: {} layers per stage asked, the model has {} ({} layers over pp={})",
                        layers, per, model_.layers, plan_.pp));
    std::map<uint32_t, uint32_t> split;
    {
        Build b(model_, plan_, rank_die_, die_, spec_, graph_, layers, emit);
        StepProgram out = b.run();
        if (!b.capped()) return out;
        split = b.setsPerStream();
    }
    // Some collective's staging set got less than its stream's share, because the sets emitted
    // before it (several shapes on one stream) took the SRAM: build again with every stream's
    // share split evenly over the sets it carries, so no set is starved by the order of
    // emission (a TATP plan's dp all-reduce was left 0.17 MB and ran in 82 KB segments).
    Build again(model_, plan_, rank_die_, die_, spec_, graph_, layers, emit);
    again.setSplit(split);
    return again.run();
}

}  // namespace wsc::firmware::llm
