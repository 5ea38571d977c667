#include "testbench/SvgPlot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

namespace wsc::tb {

namespace {
std::string esc(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '<')
            o += "&lt;";
        else if (c == '>')
            o += "&gt;";
        else if (c == '&')
            o += "&amp;";
        else
            o += c;
    }
    return o;
}
double niceStep(double range) {
    double raw = range / 5, mag = std::pow(10, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * mag >= raw) return m * mag;
    return 10 * mag;
}
}  // namespace

std::string SvgPlot::render() const {
    // The legend column widens with the longest series name (about 7 px a character at 12 px).
    size_t longest = 0;
    for (const auto& s : series_) longest = std::max(longest, s.name.size());
    const double R = std::max(180.0, 45.0 + 7.0 * static_cast<double>(longest));
    const double W = 540 + R, H = 440, L = 70, T = 40, B = 50;
    double xmax = 0, ymax = 0;
    for (const auto& s : series_)
        for (auto [x, y] : s.points) xmax = std::max(xmax, x), ymax = std::max(ymax, y);
    if (ymax_ > 0) ymax = std::min(ymax, ymax_);
    xmax = xmax > 0 ? xmax * 1.05 : 1;
    ymax = ymax > 0 ? ymax * 1.05 : 1;
    auto px = [&](double x) { return L + (W - L - R) * x / xmax; };
    auto py = [&](double y) { return H - B - (H - T - B) * std::min(y, ymax) / ymax; };
    std::string o = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
        "font-family=\"sans-serif\" "
        "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        W, H);
    o += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\">{}</text>\n", L, esc(title_));
    for (double x = 0, st = niceStep(xmax); x <= xmax; x += st)
        o += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
            "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
            px(x), T, H - B, H - B + 16, x);
    for (double y = 0, st = niceStep(ymax); y <= ymax; y += st)
        o += fmt::format(
            "<line x1=\"{1}\" y1=\"{0:.1f}\" x2=\"{2}\" y2=\"{0:.1f}\" stroke=\"#ddd\"/>"
            "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:g}</text>\n",
            py(y), L, W - R, L - 6, py(y) + 4, y);
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", L,
        T, W - L - R, H - T - B);
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     L + (W - L - R) / 2, H - 12, esc(xlabel_));
    o += fmt::format(
        "<text transform=\"translate(18,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
        T + (H - T - B) / 2, esc(ylabel_));
    static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#17becf", "#7f7f7f"};
    for (size_t i = 0; i < series_.size(); ++i) {
        const auto& s = series_[i];
        const char* c = colors[i % 9];
        std::string pts;
        for (auto [x, y] : s.points) pts += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
        if (s.line)
            o += fmt::format(
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", c,
                pts);
        for (auto [x, y] : s.points)
            o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", px(x),
                             py(y), c);
        double ly = T + 16 + 18 * i;
        o += fmt::format(
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>"
            "<text x=\"{}\" y=\"{}\">{}</text>\n",
            W - R + 10, ly, W - R + 30, ly, c, W - R + 35, ly + 4, esc(s.name));
    }
    o += "</svg>\n";
    return o;
}

void SvgPlot::write(const std::string& path) const {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    f << render();
}

}  // namespace wsc::tb
