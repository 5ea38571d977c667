#pragma once
// Which dies host which experts: every expert's native die plus copies in shadow slots (MoEntwine
// Fig. 7(a)); a token routed to an expert with n copies is split evenly over them, so each copy
// carries load / n (the paper's Load_e / Num_e) and a die's heat is the sum over its copies.
#include <cstdint>
#include <vector>

#include "firmware/moe/MoeMapping.h"

namespace wsc::firmware::moe {

class ExpertPlacement {
  public:
    // Die d natively hosts experts d * E / dies .. (d + 1) * E / dies - 1 (E a multiple of the
    // dies: E/D >= 1), plus `shadowSlots` empty slots per die. Throws std::invalid_argument.
    static ExpertPlacement contiguous(uint32_t experts, uint32_t dies, uint32_t shadowSlots);
    // Die d natively hosts native[d] (every expert exactly once over the dies), plus
    // `shadowSlots` empty slots per die: a contiguous placement over ranks laid on dies in any
    // order. Throws std::invalid_argument.
    static ExpertPlacement fromNative(const std::vector<std::vector<uint32_t>>& native,
                                      uint32_t shadowSlots);

    uint32_t experts() const { return uint32_t(hosts_.size()); }
    uint32_t dies() const { return uint32_t(native_.size()); }
    uint32_t shadowSlots() const { return shadowSlots_; }
    const std::vector<uint32_t>& native(uint32_t die) const { return native_.at(die); }
    const std::vector<uint32_t>& shadow(uint32_t die) const { return shadow_.at(die); }
    const std::vector<uint32_t>& hosts(uint32_t expert) const {
        return hosts_.at(expert);
    }  // native first
    bool hosts(uint32_t die, uint32_t expert) const;
    uint32_t freeSlots(uint32_t die) const {
        return shadowSlots_ - uint32_t(shadow_.at(die).size());
    }
    // Copies an expert into a shadow slot; throws std::logic_error if the die has no free slot or
    // already hosts it.
    void addCopy(uint32_t expert, uint32_t die);

    // Heat_d = sum over the copies on d of load_e / copies(e).
    std::vector<double> heat(const std::vector<double>& expertLoad) const;
    // All-to-all traffic for LinkLoad::allToAll from one (iteration, layer)'s selections: token t
    // belongs to DP group t * dp / tokens; each pick of an expert sends 1 / copies to each copy's
    // die; divided by the tokens per group, so a group's row sums to top-k (units of V).
    std::vector<std::vector<double>> traffic(
        const MoeMapping& m, const std::vector<std::vector<uint32_t>>& selections) const;

  private:
    uint32_t shadowSlots_ = 0;
    std::vector<std::vector<uint32_t>> native_, shadow_, hosts_;
};

}  // namespace wsc::firmware::moe
