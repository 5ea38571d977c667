#include "firmware/moe/LinkLoad.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::moe {

namespace {

void addRoute(const DieMesh& mesh, std::vector<double>& load, uint32_t a, uint32_t b, double v) {
    for (const Link& l : mesh.xyRoute(a, b)) load[mesh.linkIndex(l)] += v;
}

}  // namespace

std::vector<double> LinkLoad::allReduce(const MoeMapping& m, bool bidirectional) {
    const DieMesh& mesh = m.mesh();
    std::vector<double> load(mesh.linkSlots(), 0.0);
    for (const RingStage& st : m.stages())
        for (const auto& ring : st.rings) {
            if (ring.size() < 2) continue;
            // Rank i sends to i + 1 (and, bidirectional, half to i - 1); a ring of two is then
            // one link pair carrying hopVolume each way, as its all-reduce needs.
            for (size_t i = 0; i < ring.size(); ++i) {
                const uint32_t a = ring[i], b = ring[(i + 1) % ring.size()];
                if (bidirectional) {
                    addRoute(mesh, load, a, b, st.hopVolume / 2);
                    addRoute(mesh, load, b, a, st.hopVolume / 2);
                } else {
                    addRoute(mesh, load, a, b, st.hopVolume);
                }
            }
        }
    return load;
}

std::vector<double> LinkLoad::allToAll(const MoeMapping& m,
                                       const std::vector<std::vector<double>>& traffic,
                                       A2aLeg leg) {
    const DieMesh& mesh = m.mesh();
    if (traffic.size() != m.dp())
        throw std::invalid_argument(
            fmt::format("all-to-all traffic: {} groups given, the mapping has dp = {}",
                        traffic.size(), m.dp()));
    std::vector<double> load(mesh.linkSlots(), 0.0);
    for (uint32_t g = 0; g < m.dp(); ++g) {
        if (traffic[g].size() != mesh.dies())
            throw std::invalid_argument(
                fmt::format("all-to-all traffic: group {} has {} dies, the mesh {}", g,
                            traffic[g].size(), mesh.dies()));
        for (uint32_t e = 0; e < mesh.dies(); ++e)
            for (const TokenSource& s : m.sourcesFor(g, e)) {
                const double v = traffic[g][e] * s.share;
                if (leg != A2aLeg::Combine) addRoute(mesh, load, s.die, e, v);
                if (leg != A2aLeg::Dispatch) addRoute(mesh, load, e, s.die, v);
            }
    }
    return load;
}

std::vector<std::vector<double>> LinkLoad::uniformTraffic(const MoeMapping& m, uint32_t topK) {
    const uint32_t n = m.mesh().dies();
    return std::vector<std::vector<double>>(m.dp(), std::vector<double>(n, double(topK) / n));
}

LinkHeat LinkLoad::heat(const DieMesh& mesh, const std::vector<double>& load) {
    LinkHeat h;
    for (uint32_t i : mesh.links()) h.max = std::max(h.max, load.at(i));
    for (uint32_t i : mesh.links()) {
        if (h.max > 0 && load[i] >= h.max * (1 - 1e-9)) h.hot.push_back(i);
        if (load[i] == 0) h.idle.push_back(i);
    }
    return h;
}

std::vector<uint32_t> LinkLoad::intraFtdLinks(const MoeMapping& m) {
    std::vector<uint32_t> out;
    for (uint32_t i : m.mesh().links()) {
        const Link l = m.mesh().link(i);
        if (m.ftdOf(l.from) == m.ftdOf(l.to)) out.push_back(i);
    }
    return out;
}

std::vector<uint32_t> LinkLoad::interFtdLinks(const MoeMapping& m) {
    std::vector<uint32_t> out;
    for (uint32_t i : m.mesh().links()) {
        const Link l = m.mesh().link(i);
        if (m.ftdOf(l.from) != m.ftdOf(l.to)) out.push_back(i);
    }
    return out;
}

}  // namespace wsc::firmware::moe
