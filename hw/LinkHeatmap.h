#pragma once
// A link-utilization heatmap of the wafer as SVG: dies as outlined boxes at their physical
// pitch, routers (cores) as small squares, every router-to-router link as one coloured element
// (class "link", a line, or an arc for wrap-around links) from grey (idle) through blue and
// yellow to red (busy every cycle). Both directions of a channel are drawn side by side. Each
// link carries its name and utilization as data attributes and a tooltip, so the file is also
// machine-readable.
#include <iosfwd>
#include <string>
#include <vector>

#include "hw/HbmAttachParams.h"
#include "hw/LinkUse.h"
#include "hw/WaferParams.h"
#include "noc/NocParams.h"

namespace wsc::hw {

class LinkHeatmap {
  public:
    LinkHeatmap(const noc::TopologyParams& topo, std::string title);
    // The utilization drawn red. 0 (the default): auto, the busiest link rounded up to 1, 2, 2.5
    // or 5 x 10^k (at most 1), so a run at 10% use is not uniformly blue. A fixed value makes
    // several heatmaps comparable. Links above it are drawn red; data-util stays absolute.
    void setScale(double max_utilization) { scale_max_ = max_utilization; }
    // Draw each die's HBM stacks: a bar outside the die box on its edge, spanning the routers
    // the stack attaches to (hw::Die places them the same way).
    void setHbm(const HbmAttachParams& attach) { hbm_ = attach, has_hbm_ = true; }
    // The scale write() uses for these links.
    double scaleFor(const std::vector<LinkUse>& links) const;
    void write(std::ostream& os, const std::vector<LinkUse>& links) const;
    void writeFile(const std::string& path, const std::vector<LinkUse>& links) const;
    // "#rrggbb" for a utilization in [0, 1] (clamped).
    static std::string color(double utilization);
    // Smallest 1, 2, 2.5 or 5 x 10^k >= x, at most 1 (x > 0).
    static double niceCeil(double x);

  private:
    double px(uint32_t i, uint32_t perDie) const;  // centre of router column/row i, in pixels
    static std::string escape(const std::string& s);

    noc::TopologyParams t_;
    std::string title_;
    uint32_t die_x_, die_y_;
    double scale_;    // pixels per mm
    double margin_;   // pixels around the wafer
    double spacing_;  // smallest distance between neighbouring routers, pixels
    double scale_max_ = 0;
    HbmAttachParams hbm_;
    bool has_hbm_ = false;
};

}  // namespace wsc::hw
