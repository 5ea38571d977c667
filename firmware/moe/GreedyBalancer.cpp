#include "firmware/moe/GreedyBalancer.h"

#include <limits>

namespace wsc::firmware::moe {

BalancePlan GreedyBalancer::plan(const DieMesh& mesh, const ExpertPlacement& placement,
                                 const std::vector<double>& load) const {
    checkInputs(mesh, placement, load, name());
    BalancePlan p{{}, placement.heat(load), {}, placement};
    std::vector<bool> done(placement.experts(), false);  // no die can take another copy
    for (;;) {
        uint32_t hot = std::numeric_limits<uint32_t>::max();
        double best = -1;
        for (uint32_t e = 0; e < placement.experts(); ++e) {
            const double per = load[e] / double(p.after.hosts(e).size());
            if (!done[e] && per > best) best = per, hot = e;
        }
        if (hot == std::numeric_limits<uint32_t>::max()) break;
        const std::vector<double> heat = p.after.heat(load);
        uint32_t dest = std::numeric_limits<uint32_t>::max();
        for (uint32_t d = 0; d < mesh.dies(); ++d)
            if (p.after.freeSlots(d) && !p.after.hosts(d, hot) &&
                (dest == std::numeric_limits<uint32_t>::max() || heat[d] < heat[dest]))
                dest = d;
        if (dest == std::numeric_limits<uint32_t>::max()) {
            done[hot] = true;
            continue;
        }
        const uint32_t from = p.after.hosts(hot).front();
        p.after.addCopy(hot, dest);
        p.migrations.push_back(direct(mesh, hot, from, dest));
    }
    p.heatAfter = p.after.heat(load);
    return p;
}

}  // namespace wsc::firmware::moe
