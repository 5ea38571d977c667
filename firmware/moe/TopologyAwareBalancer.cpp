#include "firmware/moe/TopologyAwareBalancer.h"

#include <limits>

namespace wsc::firmware::moe {

BalancePlan TopologyAwareBalancer::plan(const DieMesh& mesh, const ExpertPlacement& placement,
                                        const std::vector<double>& load) const {
    checkInputs(mesh, placement, load, name());
    constexpr uint32_t none = std::numeric_limits<uint32_t>::max();
    BalancePlan p{{}, placement.heat(load), {}, placement};
    for (;;) {
        const std::vector<double> heat = p.after.heat(load);
        uint32_t hot = 0;
        for (uint32_t d = 1; d < mesh.dies(); ++d)
            if (heat[d] > heat[hot]) hot = d;
        // src_e: the hottest die's copy with the largest per-copy load (native and shadow).
        uint32_t src = none;
        double per = -1;
        for (uint32_t e = 0; e < p.after.experts(); ++e)
            if (p.after.hosts(hot, e) && load[e] / double(p.after.hosts(e).size()) > per)
                per = load[e] / double(p.after.hosts(e).size()), src = e;
        if (src == none || per <= 0) break;
        const double copyLoad =
            rule_ == ColdRule::Literal ? per : load[src] / double(p.after.hosts(src).size() + 1);
        uint32_t dest = none;
        for (uint32_t d = 0; d < mesh.dies(); ++d) {
            if (!(heat[d] + copyLoad < heat[hot]) || !p.after.freeSlots(d) || p.after.hosts(d, src))
                continue;
            if (dest == none || mesh.hops(hot, d) < mesh.hops(hot, dest) ||
                (mesh.hops(hot, d) == mesh.hops(hot, dest) && heat[d] < heat[dest]))
                dest = d;
        }
        if (dest == none) break;
        p.after.addCopy(src, dest);
        p.migrations.push_back(direct(mesh, src, hot, dest));
    }
    p.heatAfter = p.after.heat(load);
    return p;
}

}  // namespace wsc::firmware::moe
