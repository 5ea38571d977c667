#include "firmware/placement/Placement.h"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

#include "firmware/placement/MoePlacement.h"
#include "firmware/placement/RingPlacement.h"
#include "firmware/placement/RowMajorPlacement.h"
#include "firmware/placement/SnakePlacement.h"
#include "firmware/placement/TcmePlacement.h"

namespace wsc::firmware::placement {

uint32_t DieArray::hops(uint32_t a, uint32_t b) const {
    const int ax = int(dx(a)), ay = int(dy(a)), bx = int(dx(b)), by = int(dy(b));
    return static_cast<uint32_t>(std::abs(ax - bx) + std::abs(ay - by));
}

std::vector<uint32_t> ringHops(const DieArray& a, const std::vector<uint32_t>& dies) {
    std::vector<uint32_t> h;
    if (dies.size() < 2) return h;
    for (size_t i = 0; i < dies.size(); ++i)
        h.push_back(a.hops(dies[i], dies[(i + 1) % dies.size()]));
    return h;
}

const std::vector<std::string>& Placement::names() {
    static const std::vector<std::string> n{"row-major", "snake",        "ring",      "ring-tp",
                                            "ring-tatp", "ring-sp",      "ring-fsdp", "ring-dp",
                                            "tcme",      "moe-baseline", "er"};
    return n;
}

std::unique_ptr<Placement> Placement::byName(const std::string& name) {
    if (name == "row-major") return std::make_unique<RowMajorPlacement>();
    if (name == "snake") return std::make_unique<SnakePlacement>();
    if (name == "ring") return std::make_unique<RingPlacement>();
    for (plan::Dim d :
         {plan::Dim::TP, plan::Dim::TATP, plan::Dim::SP, plan::Dim::FSDP, plan::Dim::DP})
        if (name == std::string("ring-") + plan::dimName(d))
            return std::make_unique<RingPlacement>(d);
    if (name.rfind("ring-", 0) == 0)
        throw std::invalid_argument(fmt::format(
            "placement '{}': rings are laid along tp, tatp, sp, fsdp or dp (ring-tp, ring-tatp, "
            "ring-sp, ring-fsdp, ring-dp); pipeline stages and experts have no ring",
            name));
    if (name == "tcme") return std::make_unique<TcmePlacement>();
    if (name == "moe-baseline") return std::make_unique<MoePlacement>(moe::MappingKind::Baseline);
    if (name == "er") return std::make_unique<MoePlacement>(moe::MappingKind::Entwined);
    throw std::invalid_argument(fmt::format(
        "placement '{}': expected one of row-major, snake, ring, ring-tp, ring-tatp, ring-sp, "
        "ring-fsdp, ring-dp, tcme, moe-baseline, er, or the die of every rank as a list "
        "(0,1,5,4,...)",
        name));
}

}  // namespace wsc::firmware::placement
