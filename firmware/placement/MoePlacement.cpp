#include "firmware/placement/MoePlacement.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::firmware::placement {

std::string MoePlacement::name() const {
    return kind_ == moe::MappingKind::Entwined       ? "er"
           : kind_ == moe::MappingKind::Hierarchical ? "her"
                                                     : "moe-baseline";
}

moe::MoeMapping MoePlacement::mapping(const plan::RankGrid& g, const DieArray& a) const {
    const plan::ParallelPlan& p = g.plan();
    // The mappings place attention's TP groups and nothing else: any other dimension would need
    // a rule the paper does not give.
    if (p.fsdp > 1 || p.sp > 1 || p.pp > 1 || p.tatp > 1)
        throw std::invalid_argument(fmt::format(
            "placement {}: MoEntwine's mappings place dp TP groups of tp dies; plan {} has other "
            "dimensions (drop fsdp, sp, pp and tatp)",
            name(), p.str()));
    if (kind_ == moe::MappingKind::Hierarchical) {
        if (wafers_ < 2 || a.x % wafers_)
            throw std::invalid_argument(fmt::format(
                "placement her: hierarchical ER needs a multi-wafer config (wafer.wafers x >= 2, "
                "y = 1); this one has {} wafer{} along x of a {} x {} die array",
                wafers_, wafers_ == 1 ? "" : "s", a.x, a.y));
        return moe::MoeMapping::hierarchical(a.x / wafers_, a.y, wafers_, p.dp, p.tp);
    }
    const moe::DieMesh mesh(a.x, a.y);
    return kind_ == moe::MappingKind::Entwined ? moe::MoeMapping::entwined(mesh, p.dp, p.tp)
                                               : moe::MoeMapping::baseline(mesh, p.dp, p.tp);
}

std::vector<uint32_t> MoePlacement::place(const plan::RankGrid& g, const DieArray& a) const {
    // MoeMapping numbers dies x + cols * y, as DieArray does, and lists ranks g * tp + k, which
    // is RankGrid's order when tp is the fastest and dp the only other dimension.
    return mapping(g, a).placement();
}

}  // namespace wsc::firmware::placement
