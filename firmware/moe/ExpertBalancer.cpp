#include "firmware/moe/ExpertBalancer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace wsc::firmware::moe {

const char* phaseName(MigrationPhase p) {
    switch (p) {
        case MigrationPhase::Any:
            return "any";
        case MigrationPhase::AllReduce:
            return "all-reduce";
        default:
            return "all-to-all";
    }
}

double BalancePlan::maxBefore() const {
    return heatBefore.empty() ? 0.0 : *std::max_element(heatBefore.begin(), heatBefore.end());
}

double BalancePlan::maxAfter() const {
    return heatAfter.empty() ? 0.0 : *std::max_element(heatAfter.begin(), heatAfter.end());
}

uint32_t BalancePlan::totalHops() const {
    uint32_t n = 0;
    for (const Migration& m : migrations) n += uint32_t(m.path.size());
    return n;
}

void ExpertBalancer::checkInputs(const DieMesh& mesh, const ExpertPlacement& placement,
                                 const std::vector<double>& expertLoad, const std::string& who) {
    if (placement.dies() != mesh.dies())
        throw std::invalid_argument(
            fmt::format("{} balancer: the placement has {} dies, the mesh {}", who,
                        placement.dies(), mesh.dies()));
    if (expertLoad.size() != placement.experts())
        throw std::invalid_argument(fmt::format("{} balancer: {} expert loads given for {} experts",
                                                who, expertLoad.size(), placement.experts()));
    for (size_t e = 0; e < expertLoad.size(); ++e)
        if (!std::isfinite(expertLoad[e]) || expertLoad[e] < 0)
            throw std::invalid_argument(
                fmt::format("{} balancer: load of expert {} is {}, expected a number >= 0", who, e,
                            expertLoad[e]));
}

Migration ExpertBalancer::direct(const DieMesh& mesh, uint32_t expert, uint32_t from, uint32_t to) {
    Migration m{expert, from, to, mesh.xyRoute(from, to), {}};
    m.steps.push_back({MigrationPhase::Any, from, to, m.path, 0});
    return m;
}

}  // namespace wsc::firmware::moe
