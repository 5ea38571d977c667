#include "hw/LinkHeatmap.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "noc/Topology.h"

namespace wsc::hw {

namespace {
constexpr double kMinSpacingPx = 6.0;    // neighbouring routers never closer than this
constexpr double kGoodSpacingPx = 28.0;  // preferred spacing for small meshes
constexpr double kMaxSidePx = 3000.0;    // big meshes shrink toward kMinSpacingPx to fit this
}  // namespace

LinkHeatmap::LinkHeatmap(const noc::TopologyParams& topo, std::string title)
    : t_(topo), title_(std::move(title)) {
    die_x_ = t_.die_x ? t_.die_x : t_.x;
    die_y_ = t_.die_y ? t_.die_y : t_.y;
    // The smallest physical gap between neighbours: the core pitch inside a die, or the space
    // between two dies' edge routers. The scale makes it kGoodSpacingPx, unless the wafer would
    // then be wider than kMaxSidePx.
    double gap = 1e300;
    const uint32_t per = std::max(die_x_, die_y_);
    if (per > 1) gap = t_.core_pitch_mm;
    const bool multiDie = die_x_ < t_.x || die_y_ < t_.y;
    if (multiDie) gap = std::min(gap, t_.die_pitch_mm - (per - 1) * t_.core_pitch_mm);
    if (!(gap > 0) || gap > 1e299) gap = 1.0;
    scale_ = kGoodSpacingPx / gap;
    margin_ = 50.0;
    const auto extentMm = [&](uint32_t n, uint32_t perDie) {
        return double((n - 1) / perDie) * t_.die_pitch_mm +
               double((n - 1) % perDie) * t_.core_pitch_mm;
    };
    const double side = std::max(extentMm(t_.x, die_x_), extentMm(t_.y, die_y_)) * scale_;
    if (side > kMaxSidePx) scale_ = std::max(kMinSpacingPx / gap, scale_ * kMaxSidePx / side);
    spacing_ = gap * scale_;
}

double LinkHeatmap::px(uint32_t i, uint32_t perDie) const {
    const double mm = double(i / perDie) * t_.die_pitch_mm + double(i % perDie) * t_.core_pitch_mm;
    return margin_ + mm * scale_;
}

std::string LinkHeatmap::color(double u) {
    // Idle links stay grey so the busy ones stand out; 0+ .. 1 runs blue -> yellow -> red.
    if (!(u > 0)) return "#d9d9d9";
    u = std::min(1.0, u);
    struct Rgb {
        double r, g, b;
    };
    const Rgb stops[] = {{44, 123, 182}, {255, 255, 191}, {215, 25, 28}};
    const double s = u * 2.0;
    const int i = std::min(1, int(s));
    const double f = s - i;
    const Rgb& a = stops[i];
    const Rgb& b = stops[i + 1];
    const auto mix = [f](double x, double y) { return int(std::lround(x + (y - x) * f)); };
    return fmt::format("#{:02x}{:02x}{:02x}", mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}

double LinkHeatmap::niceCeil(double x) {
    if (!(x > 0) || x >= 1) return 1.0;
    const double p = std::pow(10.0, std::floor(std::log10(x)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * p >= x * (1 - 1e-12)) return std::min(1.0, m * p);
    return 1.0;
}

double LinkHeatmap::scaleFor(const std::vector<LinkUse>& links) const {
    if (scale_max_ > 0) return scale_max_;
    double busiest = 0;
    for (const LinkUse& l : links) busiest = std::max(busiest, l.utilization);
    return niceCeil(busiest);
}

std::string LinkHeatmap::escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
            case '&':
                o += "&amp;";
                break;
            case '<':
                o += "&lt;";
                break;
            case '>':
                o += "&gt;";
                break;
            case '"':
                o += "&quot;";
                break;
            default:
                o += c;
        }
    }
    return o;
}

void LinkHeatmap::write(std::ostream& os, const std::vector<LinkUse>& links) const {
    const noc::Topology topo(t_);
    const double w = px(t_.x - 1, die_x_) + margin_;
    const double h = px(t_.y - 1, die_y_) + margin_ + 50.0;  // room for the legend
    const double cmax = scaleFor(links);
    const std::string legend =
        fmt::format("link utilization, colour scale 0 .. {:g} ({}; grey: idle{})", cmax,
                    scale_max_ > 0 ? "fixed" : "auto: the busiest link, rounded up",
                    has_hbm_ && !hbm_.stacks.empty() ? "; purple bars: HBM stacks" : "");
    // Wide enough for the title and the legend (about 6.7 px a character at 12 px).
    const double width = std::max({w, 420.0, margin_ / 2 + 6.7 * double(title_.size()) + 10,
                                   margin_ / 2 + 6.7 * double(legend.size()) + 10});
    fmt::print(os,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
               "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\" font-size=\"12\">\n",
               width, h, width, h);
    fmt::print(os, "<title>{}</title>\n", escape(title_));
    fmt::print(os, "<rect x=\"0\" y=\"0\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"white\"/>\n",
               width, h);
    fmt::print(os, "<text x=\"{:.0f}\" y=\"20\">{}</text>\n", margin_ / 2, escape(title_));

    // Dies: a box around each die's routers (half a spacing of padding).
    const uint32_t dx = t_.x / die_x_, dy = t_.y / die_y_;
    const double pad = std::max(2.0, spacing_ * 0.4);
    fmt::print(os, "<g class=\"dies\" fill=\"#f4f4f4\" stroke=\"#888\" stroke-width=\"1\">\n");
    for (uint32_t j = 0; j < dy; ++j)
        for (uint32_t i = 0; i < dx; ++i) {
            const double x0 = px(i * die_x_, die_x_) - pad, y0 = px(j * die_y_, die_y_) - pad;
            const double x1 = px(i * die_x_ + die_x_ - 1, die_x_) + pad;
            const double y1 = px(j * die_y_ + die_y_ - 1, die_y_) + pad;
            fmt::print(
                os,
                "<rect class=\"die\" data-die=\"{},{}\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" "
                "height=\"{:.2f}\" rx=\"3\"/>\n",
                i, j, x0, y0, x1 - x0, y1 - y0);
        }
    fmt::print(os, "</g>\n");
    // HBM stacks: a bar just outside the die box on the stack's edge, over its attach routers.
    if (has_hbm_ && !hbm_.stacks.empty()) {
        const double thick = std::max(2.0, pad * 0.7), reach = std::max(1.5, spacing_ * 0.3);
        fmt::print(os, "<g class=\"hbm\" fill=\"#7b4fa0\" fill-opacity=\"0.75\">\n");
        for (uint32_t j = 0; j < dy; ++j)
            for (uint32_t i = 0; i < dx; ++i)
                for (size_t k = 0; k < hbm_.stacks.size(); ++k) {
                    const auto& st = hbm_.stacks[k];
                    double lo = 1e18, hi = -1e18, fixed = 0;
                    for (uint32_t at : st.at) {
                        uint32_t lx = 0, ly = 0;
                        HbmAttachParams::position(st.edge, at, die_x_, die_y_, lx, ly);
                        const double cx = px(i * die_x_ + lx, die_x_),
                                     cy = px(j * die_y_ + ly, die_y_);
                        const bool vertical = st.edge == HbmAttachParams::Edge::West ||
                                              st.edge == HbmAttachParams::Edge::East;
                        lo = std::min(lo, vertical ? cy : cx);
                        hi = std::max(hi, vertical ? cy : cx);
                        fixed = vertical ? cx : cy;
                    }
                    double x = 0, y = 0, w = 0, hh = 0;
                    switch (st.edge) {
                        case HbmAttachParams::Edge::West:
                            x = fixed - pad - thick - 1, y = lo - reach, w = thick,
                            hh = hi - lo + 2 * reach;
                            break;
                        case HbmAttachParams::Edge::East:
                            x = fixed + pad + 1, y = lo - reach, w = thick,
                            hh = hi - lo + 2 * reach;
                            break;
                        case HbmAttachParams::Edge::North:
                            x = lo - reach, y = fixed - pad - thick - 1, w = hi - lo + 2 * reach,
                            hh = thick;
                            break;
                        case HbmAttachParams::Edge::South:
                            x = lo - reach, y = fixed + pad + 1, w = hi - lo + 2 * reach,
                            hh = thick;
                            break;
                    }
                    fmt::print(os,
                               "<rect data-hbm=\"die {},{} stack {} {}\" x=\"{:.2f}\" "
                               "y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\"/>\n",
                               i, j, k, HbmAttachParams::edgeName(st.edge), x, y, w, hh);
                }
        fmt::print(os, "</g>\n");
    }
    // Die labels "die (x,y)" just above each die box, where the gap between dies (and the
    // margin above the first row) leaves room for them.
    const double die_w = px(die_x_ - 1, die_x_) - px(0, die_x_) + 2 * pad;
    const double gap_y = dy > 1 ? px(die_y_, die_y_) - px(die_y_ - 1, die_y_) - 2 * pad : 1e9;
    const double fs = std::min(11.0, die_w / 5);
    if (dx * dy > 1 && fs >= 6 && gap_y >= fs + 3) {
        fmt::print(os, "<g class=\"die-labels\" fill=\"#666\" font-size=\"{:.1f}\">\n", fs);
        for (uint32_t j = 0; j < dy; ++j)
            for (uint32_t i = 0; i < dx; ++i)
                fmt::print(os, "<text x=\"{:.2f}\" y=\"{:.2f}\">die ({},{})</text>\n",
                           px(i * die_x_, die_x_) - pad, px(j * die_y_, die_y_) - pad - 3, i, j);
        fmt::print(os, "</g>\n");
    }
    // Router coordinates below the mesh and left of it, every `step`-th so labels do not
    // collide (x = column, y = row, as in router = y * X + x).
    {
        const uint32_t step = std::max<uint32_t>(1, uint32_t(std::ceil(22.0 / spacing_)));
        // Row labels move left of west HBM bars.
        bool west = false;
        for (const auto& st : hbm_.stacks) west = west || st.edge == HbmAttachParams::Edge::West;
        const double west_hbm = has_hbm_ && west ? std::max(2.0, pad * 0.7) + 2 : 0.0;
        fmt::print(os, "<g class=\"coordinates\" fill=\"#999\" font-size=\"9\">\n");
        for (uint32_t i = 0; i < t_.x; i += step)
            fmt::print(os, "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"middle\">{}</text>\n",
                       px(i, die_x_), px(t_.y - 1, die_y_) + pad + 11, i);
        for (uint32_t j = 0; j < t_.y; j += step)
            fmt::print(os, "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"end\">{}</text>\n",
                       margin_ - pad - 3 - west_hbm, px(j, die_y_) + 3, j);
        fmt::print(os, "</g>\n");
    }

    // Links: the two directions of a channel sit side by side, offset across the channel.
    const double off = std::max(0.8, spacing_ * 0.12);
    const double stroke = std::max(0.6, spacing_ * 0.16);
    fmt::print(os, "<g class=\"links\" stroke-width=\"{:.2f}\" fill=\"none\">\n", stroke);
    for (const LinkUse& l : links) {
        const double x0 = px(topo.x(l.src), die_x_), y0 = px(topo.y(l.src), die_y_);
        const double x1 = px(topo.x(l.dst), die_x_), y1 = px(topo.y(l.dst), die_y_);
        const std::string c = color(l.utilization / cmax);
        const std::string attrs = fmt::format(
            "class=\"link\" data-name=\"{}\" data-kind=\"{}\" data-util=\"{:.6f}\" stroke=\"{}\"",
            escape(l.name), l.kind == noc::Link::Kind::D2D ? "d2d" : "on-die", l.utilization, c);
        const std::string tip =
            fmt::format("<title>{}: {:.1f}%</title>", escape(l.name), 100 * l.utilization);
        const bool horizontal =
            l.src_port == noc::Topology::kEast || l.src_port == noc::Topology::kWest;
        // East and South travel on one side of the channel, West and North on the other.
        const double sgn =
            (l.src_port == noc::Topology::kEast || l.src_port == noc::Topology::kSouth) ? -1 : 1;
        if (topo.isWrap(l.src, l.src_port)) {
            // A wrap-around link: an arc outside the mesh from one edge router to the other.
            const double bulge = margin_ * (0.45 + 0.15 * sgn);
            const double cx = horizontal ? (x0 + x1) / 2 : std::min(x0, x1) - bulge;
            const double cy = horizontal ? std::min(y0, y1) - bulge : (y0 + y1) / 2;
            const double o = sgn * off;
            fmt::print(os,
                       "<path {} d=\"M {:.2f} {:.2f} Q {:.2f} {:.2f} {:.2f} {:.2f}\">{}</path>\n",
                       attrs, x0 + (horizontal ? 0 : o), y0 + (horizontal ? o : 0), cx, cy,
                       x1 + (horizontal ? 0 : o), y1 + (horizontal ? o : 0), tip);
            continue;
        }
        const double ox = horizontal ? 0 : sgn * off, oy = horizontal ? sgn * off : 0;
        fmt::print(os,
                   "<line {} x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\">{}</line>\n",
                   attrs, x0 + ox, y0 + oy, x1 + ox, y1 + oy, tip);
    }
    fmt::print(os, "</g>\n");

    // Routers on top of the links.
    const double rs = std::max(1.5, spacing_ * 0.22);
    fmt::print(os, "<g class=\"routers\" fill=\"#555\">\n");
    for (uint32_t r = 0; r < topo.routers(); ++r)
        fmt::print(os,
                   "<rect class=\"router\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" "
                   "height=\"{:.2f}\"/>\n",
                   px(topo.x(r), die_x_) - rs / 2, px(topo.y(r), die_y_) - rs / 2, rs, rs);
    fmt::print(os, "</g>\n");

    // Legend: the colour ramp from idle to fully busy.
    const double ly = h - 30, lx = margin_ / 2;
    fmt::print(
        os, "<g class=\"legend\" data-scale=\"{:g}\">\n<text x=\"{:.0f}\" y=\"{:.0f}\">{}</text>\n",
        cmax, lx, ly - 4, escape(legend));
    for (int i = 0; i <= 10; ++i)
        fmt::print(os, "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"24\" height=\"10\" fill=\"{}\"/>\n",
                   lx + 24 * i, ly, color(i / 10.0));
    fmt::print(
        os,
        "<text x=\"{:.0f}\" y=\"{:.0f}\">0</text><text x=\"{:.0f}\" y=\"{:.0f}\" "
        "text-anchor=\"middle\">{:g}</text><text x=\"{:.0f}\" y=\"{:.0f}\">{:g}{}</text>\n</g>\n",
        lx, ly + 22, lx + 24 * 5 + 12, ly + 22, cmax / 2, lx + 24 * 10 + 8, ly + 22, cmax,
        scale_max_ > 0 ? " or more" : "");
    fmt::print(os, "</svg>\n");
}

void LinkHeatmap::writeFile(const std::string& path, const std::vector<LinkUse>& links) const {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    write(f, links);
}

}  // namespace wsc::hw
