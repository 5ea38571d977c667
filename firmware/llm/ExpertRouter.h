#pragma once
// Routed tokens of a simulated MoE step (docs/LLM.md, "Expert routing"): given every token's
// chosen experts (a gating model or a trace, firmware/moe) and where each expert has copies, how
// many token rows each rank sends to each rank in the dispatch all-to-all (the combine sends them
// back) and how many rows each expert copy on a rank computes. Without routing the step builder
// assumes every expert gets tokens x k / E rows; with it, skew shows up as uneven all-to-all-v
// messages and as the hottest die's expert GEMMs.
//
// Tokens: the step's T tokens in order; token t belongs to data-parallel group t * dp / T (the
// trace format's rule), micro-batch u * mb / (T / dp) of it (u its index in the group) and, when
// a TP rank dispatches only its share (no full token domains), TP rank v * tp / Tm (v its index
// in the micro-batch of Tm tokens). A token's pick of an expert with n copies goes to copy
// t mod n (copies split the load evenly, to within one row); an expert with R native replicas
// (ep = R x E) sends token t's pick to replica t mod R.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/plan/ParallelPlan.h"
#include "firmware/plan/RankGrid.h"

namespace wsc::firmware::llm {

// One part of an expert migration: the expert's `params` weights (x the step's dtype) from die
// `from` to die `to` (NoC nodes), XY-routed (a part is straight or turns x before y).
//   - invasive (greedy, topo): when = Start, before the step's first instruction; the dies that
//     take part hold their compute until it has landed (inference is interrupted);
//   - non-invasive (ni): it starts with the phase `slot` counted from its MoE layer's
//     attention all-reduce (slot 0), that layer's dispatch all-to-all (1), the next MoE layer's
//     all-reduce (2), ... (NiBalancer), on the sender's cold links; nothing waits for it.
// `after`: index of the part that brought the expert to `from` (-1: the expert is there).
struct MigrationTransfer {
    enum class When : uint8_t { Start, Phase };

    When when = When::Start;
    uint64_t moe_layer = 0;  // the MoE layer whose expert moves
    uint32_t expert = 0;
    uint32_t slot = 0;  // Phase: counted from the MoE layer's all-reduce
    uint32_t from = 0, to = 0;
    uint64_t params = 0;
    int64_t after = -1;
    std::string kind;  // "expert migration (local)", "(global)", "(invasive)"
    std::string label;
};

// The routed experts' selections of one step and the placement of their copies.
struct ExpertRouting {
    // Per MoE layer (model order): every token's experts, T tokens (batch x seq for a prefill,
    // batch for a decode step).
    std::vector<std::vector<std::vector<uint32_t>>> layers;
    // Per MoE layer: for every expert, the members of the EP group that host it (native first).
    // Empty: the native placement, expert e on member e / (E / ep), in every layer.
    std::vector<std::vector<std::vector<uint32_t>>> hosts;
    std::string source;  // what produced it, for the report
    // Expert copies moved by the balancer (docs/LLM.md, "Expert migration"), each part of a
    // migration one point-to-point transfer of the expert's weights on the migration streams.
    std::vector<MigrationTransfer> migrations;
};

// One MoE layer of one micro-batch on one pipeline stage.
struct RoutedLayer {
    std::vector<std::vector<uint32_t>> groups;  // the all-to-all groups (ranks)
    // Per group, n x n token-expert pairs: pairs[g][q * n + j] rows member q sends member j.
    std::vector<std::vector<uint64_t>> pairs;
    // Per rank of the stage (grid rank index): the (expert, rows) each local copy computes, in
    // expert order, only copies with rows > 0.
    std::vector<std::vector<std::pair<uint32_t, uint64_t>>> rows;
    uint64_t maxRows() const;  // the busiest rank's rows over its copies
};

class ExpertRouter {
  public:
    ExpertRouter(const plan::ParallelPlan& p, uint32_t experts);

    // MoEntwine's full token domains: EP over the whole stage, tp > 1 and every TP rank holding
    // all of its group's tokens (no sequence parallelism, sp = tatp = 1).
    static bool ftd(const plan::ParallelPlan& p);
    // The all-to-all groups of stage st: the FTDs (ranks sharing a tp index, in dp order) or the
    // EP groups.
    static std::vector<std::vector<uint32_t>> groups(const plan::RankGrid& grid, uint32_t st);
    // The native hosts of expert e. Member m of the EP group holds experts
    // floor(m E / ep) .. floor((m + 1) E / ep) - 1 (E / ep each when ep divides E; otherwise
    // some hold one more: 128 over 36 dies is 3 or 4), so e's host is floor(((e + 1) ep - 1) / E).
    // With more members than experts (ep a multiple of E) e has ep / E replicas, members
    // e R .. e R + R - 1.
    uint32_t replicas() const { return p_.ep > experts_ ? p_.ep / experts_ : 1; }
    uint32_t nativeMember(uint32_t e) const {
        return replicas() > 1 ? e * replicas()
                              : static_cast<uint32_t>((uint64_t(e + 1) * p_.ep - 1) / experts_);
    }
    // The first expert member m holds natively (replicas: the one it replicates).
    uint32_t firstExpert(uint32_t member) const {
        return replicas() > 1 ? member / replicas()
                              : static_cast<uint32_t>(uint64_t(member) * experts_ / p_.ep);
    }
    bool hostsNatively(uint32_t member, uint32_t e) const {
        return replicas() > 1 ? member / replicas() == e : nativeMember(e) == member;
    }

    // Routes micro-batch mb (of the plan's micro-batches) of one layer's selections `sel`
    // (T tokens) with the copies `hosts` (empty: native). Throws std::invalid_argument when T
    // does not split over dp x micro-batches (x tp without FTDs), an expert id is out of range
    // or a host is not an EP member.
    RoutedLayer route(uint32_t st, uint32_t mb, const std::vector<std::vector<uint32_t>>& sel,
                      const std::vector<std::vector<uint32_t>>& hosts) const;

  private:
    plan::ParallelPlan p_;
    plan::RankGrid grid_;
    uint32_t experts_;
};

}  // namespace wsc::firmware::llm
