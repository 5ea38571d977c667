#pragma once
// Full token domains of a mapping (MoEntwine Sec. IV-A, docs/MOE.md "FTD analysis"): for each FTD
// its dies, bounding box, the average hop count of the all-to-all inside it, the overlaps of the
// FTDs' bounding boxes (the paper's "intersections"), and the hop lengths of every all-reduce
// ring. Two averages, because the paper counts only the other devices:
//   - hopsToOthers: mean Manhattan distance over ordered pairs of distinct FTD dies (Sec. IV-A:
//     "uniform probability (1/3) of accessing tokens from any of the other three devices";
//     2.7 for the 4x4 baseline, half that under ER).
//   - a2aHops: the mean over (token group, expert die) of the hops the group's tokens travel to
//     that die, a die's own group included (0 hops): what the all-to-all actually moves.
#include <cstdint>
#include <vector>

#include "firmware/moe/MoeMapping.h"

namespace wsc::firmware::moe {

struct FtdStats {
    std::vector<uint32_t> dies;
    uint32_t minX = 0, maxX = 0, minY = 0, maxY = 0;  // bounding box, inclusive
    uint32_t boxCols() const { return maxX - minX + 1; }
    uint32_t boxRows() const { return maxY - minY + 1; }
    uint32_t boxArea() const { return boxCols() * boxRows(); }
    double hopsToOthers = 0;
    double a2aHops = 0;
};

class FtdAnalysis {
  public:
    explicit FtdAnalysis(const MoeMapping& m);

    const std::vector<FtdStats>& ftds() const { return ftds_; }
    double hopsToOthers() const;  // mean over FTDs
    double a2aHops() const;       // mean over all (group, expert die)
    // Baseline and ER only: every group's tokens fetched from that group's nearest die to the
    // expert, ignoring FTDs (a lower bound the FTD partition approximates).
    double nearestSourceHops() const;
    // Dies inside both FTDs' bounding boxes.
    uint32_t overlap(uint32_t a, uint32_t b) const;
    // Per die: how many FTD bounding boxes contain it.
    std::vector<uint32_t> coverCount() const;
    // Dies inside every FTD's bounding box (the baseline's central four on 4x4).
    std::vector<uint32_t> sharedByAll() const;
    bool boxesDisjoint() const;
    // [stage][ring][i]: hops from rank i to rank i + 1 (the last entry closes the ring).
    const std::vector<std::vector<std::vector<uint32_t>>>& ringHops() const { return ringHops_; }
    uint32_t maxRingHop(uint32_t stage) const;

    // Closed form: mean Manhattan distance over ordered pairs of distinct points of a p x q grid
    // with spacing sx, sy: [q sx (p^2 - 1) + p sy (q^2 - 1)] / (3 (p q - 1)).
    static double gridPairMean(uint32_t p, uint32_t q, uint32_t sx, uint32_t sy);

  private:
    MoeMapping m_;  // a copy: analyses outlive temporaries
    std::vector<FtdStats> ftds_;
    std::vector<std::vector<std::vector<uint32_t>>> ringHops_;
};

}  // namespace wsc::firmware::moe
