#include "firmware/moe/NiBalancer.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "firmware/moe/TopologyAwareBalancer.h"

namespace wsc::firmware::moe {

NiBalancer::NiBalancer(const MoeMapping& mapping, uint32_t topK)
    : m_(mapping),
      ar_(LinkLoad::allReduce(mapping)),
      a2a_(LinkLoad::allToAll(mapping, LinkLoad::uniformTraffic(mapping, topK))),
      phase_(mapping.mesh().linkSlots(), MigrationPhase::Any) {
    const DieMesh& mesh = m_.mesh();
    const double arMax = LinkLoad::heat(mesh, ar_).max, a2aMax = LinkLoad::heat(mesh, a2a_).max;
    for (uint32_t i : mesh.links()) {
        const double ar = arMax > 0 ? ar_[i] / arMax : 0.0,
                     a2a = a2aMax > 0 ? a2a_[i] / a2aMax : 0.0;
        phase_[i] = ar < a2a ? MigrationPhase::AllReduce : MigrationPhase::AllToAll;
    }
}

Migration NiBalancer::split(uint32_t expert, uint32_t from, uint32_t to) const {
    const DieMesh& mesh = m_.mesh();
    const int sx = int(mesh.x(from)), sy = int(mesh.y(from)), tx = int(mesh.x(to)),
              ty = int(mesh.y(to));
    const int ddx = tx > sx ? 1 : -1, ddy = ty > sy ? 1 : -1;
    const int nx = tx > sx ? tx - sx : sx - tx, ny = ty > sy ? ty - sy : sy - ty;
    auto die = [&](int i, int j) {
        return mesh.id(uint32_t(sx + ddx * i), uint32_t(sy + ddy * j));
    };
    auto phaseOf = [&](uint32_t a, uint32_t b) { return int(phase_[mesh.linkIndex({a, b})]); };
    // best[(i, j, p)]: fewest phase runs still to start from (i, j) when the last link had phase p
    // (p = 0 at the start: no link yet). Monotone routes only, so every route is minimal.
    const int W = nx + 1, H = ny + 1;
    constexpr int inf = std::numeric_limits<int>::max() / 2;
    std::vector<int> best(size_t(W) * H * 3, inf);
    auto at = [&](int i, int j, int p) -> int& { return best[(size_t(j) * W + i) * 3 + p]; };
    for (int i = nx; i >= 0; --i)
        for (int j = ny; j >= 0; --j)
            for (int p = 0; p < 3; ++p) {
                if (i == nx && j == ny) {
                    at(i, j, p) = 0;
                    continue;
                }
                int v = inf;
                if (i < nx) {
                    const int q = phaseOf(die(i, j), die(i + 1, j));
                    v = std::min(v, (q != p) + at(i + 1, j, q));
                }
                if (j < ny) {
                    const int q = phaseOf(die(i, j), die(i, j + 1));
                    v = std::min(v, (q != p) + at(i, j + 1, q));
                }
                at(i, j, p) = v;
            }
    Migration mig{expert, from, to, {}, {}};
    int i = 0, j = 0, p = 0;
    while (i < nx || j < ny) {
        bool takeX = false;
        if (i < nx) {
            const int q = phaseOf(die(i, j), die(i + 1, j));
            takeX = (q != p) + at(i + 1, j, q) == at(i, j, p);
        }
        const uint32_t a = die(i, j), b = takeX ? die(i + 1, j) : die(i, j + 1);
        takeX ? ++i : ++j;
        const int q = phaseOf(a, b);
        if (q != p || mig.steps.empty()) mig.steps.push_back({MigrationPhase(q), a, b, {}, 0});
        mig.steps.back().links.push_back({a, b});
        mig.steps.back().to = b;
        mig.path.push_back({a, b});
        p = q;
    }
    // Slots: all-reduce of layer l is 2 l, all-to-all 2 l + 1; each step after the previous one.
    int next = 0;
    for (MigrationStep& s : mig.steps) {
        const int parity = s.phase == MigrationPhase::AllReduce ? 0 : 1;
        if (next % 2 != parity) ++next;
        s.slot = uint32_t(next);
        ++next;
    }
    return mig;
}

BalancePlan NiBalancer::plan(const DieMesh& mesh, const ExpertPlacement& placement,
                             const std::vector<double>& expertLoad) const {
    if (mesh.cols() != m_.mesh().cols() || mesh.rows() != m_.mesh().rows())
        throw std::invalid_argument(
            fmt::format("non-invasive balancer: mesh {} x {}, the mapping's {} x {}", mesh.cols(),
                        mesh.rows(), m_.mesh().cols(), m_.mesh().rows()));
    BalancePlan p = TopologyAwareBalancer().plan(mesh, placement, expertLoad);
    for (Migration& mig : p.migrations) mig = split(mig.expert, mig.from, mig.to);
    return p;
}

}  // namespace wsc::firmware::moe
