#pragma once
// The ranks of a parallel plan and their groups. Rank coordinates run tp fastest, then tatp,
// sp, fsdp, dp, and pp slowest (Megatron's order: the dimension that talks most is innermost, so a
// placement that keeps consecutive ranks close keeps the chattiest groups close).
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "firmware/plan/ParallelPlan.h"

namespace wsc::firmware::plan {

enum class Dim : uint8_t { TP, TATP, SP, FSDP, DP, PP };
const char* dimName(Dim d);

struct RankCoord {
    uint32_t tp = 0, tatp = 0, sp = 0, fsdp = 0, dp = 0, pp = 0;
    uint32_t get(Dim d) const;
    void set(Dim d, uint32_t v);
};

class RankGrid {
  public:
    explicit RankGrid(const ParallelPlan& p);
    const ParallelPlan& plan() const { return p_; }
    uint32_t ranks() const { return static_cast<uint32_t>(p_.dies()); }
    uint32_t size(Dim d) const;
    RankCoord coord(uint32_t rank) const;
    uint32_t rank(const RankCoord& c) const;
    // The ranks that differ from `rank` only along the given dimensions, ordered by those
    // coordinates (the first listed dimension fastest). A group along {DP, SP} holds every
    // replica of the same weight shard.
    std::vector<uint32_t> group(uint32_t rank, std::initializer_list<Dim> dims) const;
    // Every such group once, ordered by its smallest rank.
    std::vector<std::vector<uint32_t>> groups(std::initializer_list<Dim> dims) const;
    // The ranks of pipeline stage s, in rank order.
    std::vector<uint32_t> stage(uint32_t s) const;
    // Expert-parallel group of `rank`: the ep consecutive ranks of its stage that contain it.
    std::vector<uint32_t> epGroup(uint32_t rank) const;

  private:
    ParallelPlan p_;
};

}  // namespace wsc::firmware::plan
