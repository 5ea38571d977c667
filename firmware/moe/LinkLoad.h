#pragma once
// Per-link traffic of the two communication phases of an MoE layer under a mapping, routed XY on
// the die mesh (docs/MOE.md "Link loads"), in units of V = one TP group's token activations:
//   - the attention all-reduce: every ring stage of the mapping; each rank sends the stage's
//     hopVolume to its successor, bidirectional rings (MoEntwine Fig. 8(d): "packages are sent
//     bi-directionally") put half of it on the route each way;
//   - the MoE all-to-all: dispatch from each token source to each expert die and combine back,
//     traffic[g][e] = the part of group g's activations going to die e (summing to top-k over e).
// "Hot" and "cold" are relative to a phase's own busiest link (heat()).
#include <cstdint>
#include <vector>

#include "firmware/moe/MoeMapping.h"

namespace wsc::firmware::moe {

enum class A2aLeg { Dispatch, Combine, Both };

struct LinkHeat {
    double max = 0;
    std::vector<uint32_t> hot;   // links at the phase maximum (within 1e-9 relative)
    std::vector<uint32_t> idle;  // existing links with no load
};

class LinkLoad {
  public:
    // Per link slot (DieMesh::linkSlots()); slots without a link stay 0.
    static std::vector<double> allReduce(const MoeMapping& m, bool bidirectional = true);
    static std::vector<double> allToAll(const MoeMapping& m,
                                        const std::vector<std::vector<double>>& traffic,
                                        A2aLeg leg = A2aLeg::Both);
    // Every token picks topK experts uniformly, experts spread evenly: topK / dies to every die.
    static std::vector<std::vector<double>> uniformTraffic(const MoeMapping& m, uint32_t topK);
    static LinkHeat heat(const DieMesh& mesh, const std::vector<double>& load);
    // Links whose both ends lie in the same FTD (intra-FTD) and the others.
    static std::vector<uint32_t> intraFtdLinks(const MoeMapping& m);
    static std::vector<uint32_t> interFtdLinks(const MoeMapping& m);
};

}  // namespace wsc::firmware::moe
