// Link heatmap colour scale (hw::LinkHeatmap): auto-scaled to the busiest link so a lightly used
// network is not uniformly blue, or fixed for comparisons; the scale is printed in the legend.
#include <catch2/catch.hpp>
#include <sstream>

#include "hw/LinkHeatmap.h"
#include "noc/Topology.h"

using namespace wsc;
using Catch::Matchers::Contains;

namespace {

noc::TopologyParams twoByTwoDies() {
    noc::TopologyParams t;
    t.x = 4, t.y = 4, t.die_x = 2, t.die_y = 2;
    t.core_pitch_mm = 1, t.die_pitch_mm = 6;
    return t;
}

std::vector<hw::LinkUse> links(double busiest) {
    hw::LinkUse a;
    a.src = 0, a.dst = 1, a.src_port = noc::Topology::kEast, a.name = "r0->r1";
    a.utilization = busiest;
    hw::LinkUse b = a;
    b.src = 1, b.dst = 0, b.src_port = noc::Topology::kWest, b.name = "r1->r0";
    b.utilization = busiest / 4;
    return {a, b};
}

}  // namespace

TEST_CASE("heatmap colour scale: nice auto maximum, or fixed", "[hw][heatmap]") {
    CHECK(hw::LinkHeatmap::niceCeil(0.097) == Approx(0.1));
    CHECK(hw::LinkHeatmap::niceCeil(0.1) == Approx(0.1));
    CHECK(hw::LinkHeatmap::niceCeil(0.245) == Approx(0.25));
    CHECK(hw::LinkHeatmap::niceCeil(0.26) == Approx(0.5));
    CHECK(hw::LinkHeatmap::niceCeil(0.0013) == Approx(0.002));
    CHECK(hw::LinkHeatmap::niceCeil(0.7) == Approx(1.0));
    CHECK(hw::LinkHeatmap::niceCeil(0) == 1.0);

    hw::LinkHeatmap hm(twoByTwoDies(), "t");
    CHECK(hm.scaleFor(links(0.097)) == Approx(0.1));
    CHECK(hm.scaleFor({}) == 1.0);
    std::ostringstream auto_svg;
    hm.write(auto_svg, links(0.097));
    // The busiest link is drawn at the top of the ramp, not a tenth of the way up.
    CHECK_THAT(auto_svg.str(), Contains("stroke=\"" + hw::LinkHeatmap::color(0.97) + "\""));
    CHECK_THAT(auto_svg.str(), Contains("data-util=\"0.097000\""));  // stays absolute
    CHECK_THAT(auto_svg.str(), Contains("colour scale 0 .. 0.1 (auto"));
    CHECK_THAT(auto_svg.str(), Contains("die (1,1)"));

    hm.setScale(0.5);
    CHECK(hm.scaleFor(links(0.097)) == 0.5);
    std::ostringstream fixed_svg;
    hm.write(fixed_svg, links(0.097));
    CHECK_THAT(fixed_svg.str(), Contains("stroke=\"" + hw::LinkHeatmap::color(0.194) + "\""));
    CHECK_THAT(fixed_svg.str(), Contains("colour scale 0 .. 0.5 (fixed"));
}

TEST_CASE("heatmap draws each die's HBM stacks on their edges, over their attach routers",
          "[hw][heatmap]") {
    hw::LinkHeatmap hm(twoByTwoDies(), "t");
    std::ostringstream none;
    hm.write(none, links(0.5));
    CHECK(none.str().find("data-hbm") == std::string::npos);
    CHECK(none.str().find("HBM stacks") == std::string::npos);
    // Two stacks a die: west at row 0, south over both columns.
    hw::HbmAttachParams at;
    at.stacks.push_back({hw::HbmAttachParams::Edge::West, {0}});
    at.stacks.push_back({hw::HbmAttachParams::Edge::South, {0, 1}});
    hm.setHbm(at);
    std::ostringstream svg;
    hm.write(svg, links(0.5));
    const std::string s = svg.str();
    size_t n = 0;
    for (size_t p = s.find("data-hbm"); p != std::string::npos; p = s.find("data-hbm", p + 1)) ++n;
    CHECK(n == 8);  // 4 dies x 2 stacks
    CHECK_THAT(s, Contains("data-hbm=\"die 1,1 stack 1 south\""));
    CHECK_THAT(s, Contains("purple bars: HBM stacks"));
}
