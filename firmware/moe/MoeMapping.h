#pragma once
// Where the attention layer's TP groups sit on a die mesh, which dies form the full token domains
// (FTDs) the MoE all-to-all stays inside, and in which ring order each all-reduce runs
// (MoEntwine Sec. IV, docs/MOE.md "Mappings"):
//   - baseline: every TP group on its own contiguous block of tp dies (a physical ring where the
//     block has one even side), blocks in row-major order; FTD k = rank k of every group.
//   - entwined (ER-Mapping, Fig. 8(c), Fig. 10(a)): the mesh is cut into FTD blocks of dp dies,
//     each holding one die of every TP group (group s at in-block offset s, row-major); rank r of
//     every group lies in block r, blocks visited along a cycle of the block grid, so every ring
//     hop is one block side (2 for 4x4, dp = tp = 4: the "two-hop entwined rings" of Fig. 8(d)).
//   - hierarchical (HER-Mapping, Fig. 10(c)): W wafers side by side, each laid out with ER for its
//     dp / W groups; the all-reduce becomes an intra-wafer reduce-scatter on the entwined rings and
//     an inter-wafer all-gather among the dies at the same position of every wafer, after which
//     each wafer is one FTD.
// Ranks and dies are 0-based; die ids as DieMesh (x + cols * y over the joined mesh).
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/moe/DieMesh.h"

namespace wsc::firmware::moe {

enum class MappingKind { Baseline, Entwined, Hierarchical };
const char* mappingName(MappingKind k);

// One collective stage of the attention all-reduce: groups of dies, each in ring order.
struct RingStage {
    std::string name;  // "all-reduce", "reduce-scatter (intra-wafer)", "all-gather (inter-wafer)"
    std::vector<std::vector<uint32_t>> rings;
    // What each rank sends to its ring successor over the stage, in units of one TP group's token
    // activations V: 2 (n - 1) / n for an all-reduce of n ranks, (n - 1) / n for a reduce-scatter,
    // (W - 1) / tp for the inter-wafer all-gather of tp-th shards.
    double hopVolume = 0;
};

// A share of a TP group's tokens held by one die (after the stage that feeds the all-to-all).
struct TokenSource {
    uint32_t die = 0;
    double share = 1.0;  // fraction of the group's tokens taken from this die
};

class MoeMapping {
  public:
    // All throw std::invalid_argument naming the configuration when dp * tp is not the die count
    // or no block shape divides the mesh.
    static MoeMapping baseline(const DieMesh& mesh, uint32_t dp, uint32_t tp);
    static MoeMapping entwined(const DieMesh& mesh, uint32_t dp, uint32_t tp);
    // W wafers of waferCols x waferRows joined along x; dp must be a multiple of wafers and each
    // wafer's dp / wafers groups of tp must fill it.
    static MoeMapping hierarchical(uint32_t waferCols, uint32_t waferRows, uint32_t wafers,
                                   uint32_t dp, uint32_t tp);

    MappingKind kind() const { return kind_; }
    const DieMesh& mesh() const { return mesh_; }
    uint32_t dp() const { return dp_; }
    uint32_t tp() const { return tp_; }
    uint32_t wafers() const { return wafers_; }
    // The block that was tiled: the TP block (baseline) or the FTD block (ER, HER per wafer).
    uint32_t blockCols() const { return blockCols_; }
    uint32_t blockRows() const { return blockRows_; }

    const std::vector<std::vector<uint32_t>>& groups() const {
        return groups_;
    }                                                                         // [g][rank] -> die
    const std::vector<std::vector<uint32_t>>& ftds() const { return ftds_; }  // [k] -> dies
    // HER only: the ER blocks inside each wafer (empty otherwise).
    const std::vector<std::vector<uint32_t>>& localFtds() const { return localFtds_; }
    const std::vector<RingStage>& stages() const { return stages_; }
    uint32_t groupOf(uint32_t die) const { return groupOf_.at(die); }
    uint32_t rankOf(uint32_t die) const { return rankOf_.at(die); }
    uint32_t ftdOf(uint32_t die) const { return ftdOf_.at(die); }
    uint32_t waferOf(uint32_t die) const;

    // rank -> die in plan order (tp fastest: index g * tp + rank), as `--placement` takes it.
    std::vector<uint32_t> placement() const;
    // Where an expert on `expertDie` takes group g's tokens from: the FTD's die of group g
    // (baseline, ER), or the tp shard holders of group g on the expert's wafer (HER).
    std::vector<TokenSource> sourcesFor(uint32_t group, uint32_t expertDie) const;
    // The mesh as rows of "g.r" cells (group.rank), for docs and failure messages.
    std::string render() const;

  private:
    MoeMapping(MappingKind k, DieMesh mesh, uint32_t dp, uint32_t tp, uint32_t wafers);
    void index();

    MappingKind kind_;
    DieMesh mesh_;
    uint32_t dp_, tp_, wafers_;
    uint32_t blockCols_ = 0, blockRows_ = 0;
    std::vector<std::vector<uint32_t>> groups_, ftds_, localFtds_;
    std::vector<RingStage> stages_;
    std::vector<uint32_t> groupOf_, rankOf_, ftdOf_;
    // HER: holder_[wafer][group * tp + rank] -> die holding that shard on that wafer.
    std::vector<std::vector<uint32_t>> holder_;
};

}  // namespace wsc::firmware::moe
