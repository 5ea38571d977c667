#include "firmware/moe/FtdAnalysis.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace wsc::firmware::moe {

FtdAnalysis::FtdAnalysis(const MoeMapping& m) : m_(m) {
    const DieMesh& mesh = m.mesh();
    for (const auto& dies : m.ftds()) {
        FtdStats s;
        s.dies = dies;
        s.minX = s.minY = std::numeric_limits<uint32_t>::max();
        for (uint32_t d : dies) {
            s.minX = std::min(s.minX, mesh.x(d)), s.maxX = std::max(s.maxX, mesh.x(d));
            s.minY = std::min(s.minY, mesh.y(d)), s.maxY = std::max(s.maxY, mesh.y(d));
        }
        double sum = 0;
        for (uint32_t a : dies)
            for (uint32_t b : dies) sum += mesh.hops(a, b);
        const double n = double(dies.size());
        s.hopsToOthers = n > 1 ? sum / (n * (n - 1)) : 0.0;
        // Every expert die of the FTD takes each group's tokens from the FTD's sources.
        double a2a = 0;
        for (uint32_t e : dies)
            for (uint32_t g = 0; g < m.dp(); ++g)
                for (const TokenSource& src : m.sourcesFor(g, e))
                    a2a += src.share * mesh.hops(src.die, e);
        s.a2aHops = a2a / (n * m.dp());
        ftds_.push_back(s);
    }
    for (const RingStage& st : m.stages()) {
        std::vector<std::vector<uint32_t>> stage;
        for (const auto& ring : st.rings) {
            std::vector<uint32_t> hops;
            for (size_t i = 0; i < ring.size() && ring.size() > 1; ++i)
                hops.push_back(mesh.hops(ring[i], ring[(i + 1) % ring.size()]));
            stage.push_back(hops);
        }
        ringHops_.push_back(stage);
    }
}

double FtdAnalysis::hopsToOthers() const {
    double s = 0;
    for (const auto& f : ftds_) s += f.hopsToOthers;
    return s / double(ftds_.size());
}

double FtdAnalysis::a2aHops() const {
    // FTDs partition the dies, so weighting each FTD by its size is the mean over expert dies.
    double s = 0, n = 0;
    for (const auto& f : ftds_) s += f.a2aHops * double(f.dies.size()), n += double(f.dies.size());
    return s / n;
}

double FtdAnalysis::nearestSourceHops() const {
    if (m_.kind() == MappingKind::Hierarchical)
        throw std::logic_error(
            "nearestSourceHops: a hierarchical mapping keeps no full group copies");
    const DieMesh& mesh = m_.mesh();
    double s = 0;
    for (uint32_t e = 0; e < mesh.dies(); ++e)
        for (const auto& group : m_.groups()) {
            uint32_t best = std::numeric_limits<uint32_t>::max();
            for (uint32_t d : group) best = std::min(best, mesh.hops(d, e));
            s += best;
        }
    return s / (double(mesh.dies()) * double(m_.dp()));
}

uint32_t FtdAnalysis::overlap(uint32_t a, uint32_t b) const {
    const FtdStats &A = ftds_.at(a), &B = ftds_.at(b);
    const uint32_t x0 = std::max(A.minX, B.minX), x1 = std::min(A.maxX, B.maxX);
    const uint32_t y0 = std::max(A.minY, B.minY), y1 = std::min(A.maxY, B.maxY);
    if (x0 > x1 || y0 > y1) return 0;
    return (x1 - x0 + 1) * (y1 - y0 + 1);
}

std::vector<uint32_t> FtdAnalysis::coverCount() const {
    const DieMesh& mesh = m_.mesh();
    std::vector<uint32_t> out(mesh.dies(), 0);
    for (uint32_t d = 0; d < mesh.dies(); ++d)
        for (const auto& f : ftds_)
            if (mesh.x(d) >= f.minX && mesh.x(d) <= f.maxX && mesh.y(d) >= f.minY &&
                mesh.y(d) <= f.maxY)
                ++out[d];
    return out;
}

std::vector<uint32_t> FtdAnalysis::sharedByAll() const {
    std::vector<uint32_t> out;
    const std::vector<uint32_t> c = coverCount();
    for (uint32_t d = 0; d < c.size(); ++d)
        if (c[d] == ftds_.size()) out.push_back(d);
    return out;
}

bool FtdAnalysis::boxesDisjoint() const {
    const std::vector<uint32_t> c = coverCount();
    return std::all_of(c.begin(), c.end(), [](uint32_t n) { return n <= 1; });
}

uint32_t FtdAnalysis::maxRingHop(uint32_t stage) const {
    uint32_t best = 0;
    for (const auto& ring : ringHops_.at(stage))
        for (uint32_t h : ring) best = std::max(best, h);
    return best;
}

double FtdAnalysis::gridPairMean(uint32_t p, uint32_t q, uint32_t sx, uint32_t sy) {
    const double P = p, Q = q;
    if (p * q < 2) return 0.0;
    return (Q * sx * (P * P - 1) + P * sy * (Q * Q - 1)) / (3.0 * (P * Q - 1));
}

}  // namespace wsc::firmware::moe
