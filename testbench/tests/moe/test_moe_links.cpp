// Per-link loads of the all-reduce and all-to-all phases (firmware/moe/LinkLoad) and what is
// complementary about their hot and cold links (MoEntwine Sec. V-A, Fig. 11).
#include <catch2/catch.hpp>
#include <algorithm>
#include <iostream>

#include "firmware/moe/LinkLoad.h"

using namespace wsc::firmware::moe;

namespace {
void dump(const char* what, const MoeMapping& m, const std::vector<double>& l) {
    std::cout << what << "\n";
    for (uint32_t i : m.mesh().links()) std::cout << "  " << m.mesh().linkName(i) << " " << l[i] << "\n";
}
}  // namespace

TEST_CASE("moe: explore link loads", "[.explore]") {
    for (const MoeMapping& m :
         {MoeMapping::baseline(DieMesh(4, 4), 4, 4), MoeMapping::entwined(DieMesh(4, 4), 4, 4)}) {
        std::cout << mappingName(m.kind()) << "\n" << m.render();
        dump("all-reduce", m, LinkLoad::allReduce(m));
        dump("all-to-all", m, LinkLoad::allToAll(m, LinkLoad::uniformTraffic(m, 8)));
    }
}

TEST_CASE("moe: explore hot/cold summary", "[.explore2]") {
    for (uint32_t side : {4u, 6u, 8u})
        for (uint32_t tp = 2; tp <= 16; ++tp) {
            if ((side * side) % tp) continue;
            const DieMesh mesh(side, side);
            for (const MoeMapping& m : {MoeMapping::baseline(mesh, mesh.dies() / tp, tp),
                                        MoeMapping::entwined(mesh, mesh.dies() / tp, tp)}) {
                const auto ar = LinkLoad::allReduce(m), a2a = LinkLoad::allToAll(m, LinkLoad::uniformTraffic(m, 8));
                const LinkHeat h1 = LinkLoad::heat(mesh, ar), h2 = LinkLoad::heat(mesh, a2a);
                double arIntraMax = 0, arInterMax = 0, a2aIntraMax = 0, a2aInterMax = 0;
                for (uint32_t i : LinkLoad::intraFtdLinks(m)) arIntraMax = std::max(arIntraMax, ar[i]), a2aIntraMax = std::max(a2aIntraMax, a2a[i]);
                for (uint32_t i : LinkLoad::interFtdLinks(m)) arInterMax = std::max(arInterMax, ar[i]), a2aInterMax = std::max(a2aInterMax, a2a[i]);
                // overlap of hot sets; hot AR links that are idle in a2a
                size_t both = 0, arHotA2aIdle = 0, a2aHotArIdle = 0;
                for (uint32_t i : h1.hot) {
                    if (std::find(h2.hot.begin(), h2.hot.end(), i) != h2.hot.end()) ++both;
                    if (a2a[i] == 0) ++arHotA2aIdle;
                }
                for (uint32_t i : h2.hot) if (ar[i] == 0) ++a2aHotArIdle;
                std::cout << side << "x" << side << " tp " << tp << " " << mappingName(m.kind())
                          << " AR max " << h1.max << " (intra " << arIntraMax << ", inter " << arInterMax << ") hot " << h1.hot.size()
                          << " A2A max " << h2.max << " (intra " << a2aIntraMax << ", inter " << a2aInterMax << ") hot " << h2.hot.size()
                          << " idle " << h2.idle.size() << " | hot both " << both << " ARhot&A2Aidle " << arHotA2aIdle
                          << " A2Ahot&ARidle " << a2aHotArIdle << " links " << mesh.links().size() << "\n";
            }
        }
}
