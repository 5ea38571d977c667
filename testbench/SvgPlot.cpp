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
    // The legend column widens with the longest series name (about 7 px a character at 12 px)
    // and the plot grows taller for a long legend.
    size_t longest = 0;
    for (const auto& s : series_) longest = std::max(longest, s.name.size());
    const double R = std::max(180.0, 45.0 + 7.0 * static_cast<double>(longest));
    const double L = 70, T = 40, B = 50;
    const double W = 540 + R, H = std::max(440.0, T + 30 + 18.0 * double(series_.size()));
    // Axes from 0 (or the smallest value, when negative) to the largest, 5% beyond.
    double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
    for (const auto& s : series_)
        for (auto [x, y] : s.points) {
            xmin = std::min(xmin, x), xmax = std::max(xmax, x);
            ymin = std::min(ymin, y), ymax = std::max(ymax, y);
        }
    if (ymax_ > 0) ymax = std::min(ymax, ymax_);
    auto widen = [](double lo, double& hi) {
        const double span = hi - lo;
        hi = span > 0 ? hi + 0.05 * span : lo + 1;
    };
    widen(xmin, xmax);
    widen(ymin, ymax);
    if (xmin < 0) xmin -= 0.05 * (xmax - xmin);
    if (ymin < 0) ymin -= 0.05 * (ymax - ymin);
    auto px = [&](double x) { return L + (W - L - R) * (x - xmin) / (xmax - xmin); };
    auto py = [&](double y) {
        return H - B - (H - T - B) * (std::clamp(y, ymin, ymax) - ymin) / (ymax - ymin);
    };
    std::string o = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
        "font-family=\"sans-serif\" "
        "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        W, H);
    o += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\">{}</text>\n", L, esc(title_));
    // Ticks at multiples of a nice step (0 among them).
    const double xs = niceStep(xmax - xmin), ys = niceStep(ymax - ymin);
    for (double x = std::ceil(xmin / xs) * xs; x <= xmax; x += xs)
        o += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
            "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
            px(x), T, H - B, H - B + 16, std::fabs(x) < xs * 1e-9 ? 0.0 : x);
    for (double y = std::ceil(ymin / ys) * ys; y <= ymax; y += ys)
        o += fmt::format(
            "<line x1=\"{1}\" y1=\"{0:.1f}\" x2=\"{2}\" y2=\"{0:.1f}\" stroke=\"#ddd\"/>"
            "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:g}</text>\n",
            py(y), L, W - R, L - 6, py(y) + 4, std::fabs(y) < ys * 1e-9 ? 0.0 : y);
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
    // Past nine series the colours repeat with a dash pattern, so no two series look alike.
    static const char* dashes[] = {"", "6,3", "2,2", "8,3,2,3"};
    for (size_t i = 0; i < series_.size(); ++i) {
        const auto& s = series_[i];
        const char* c = colors[i % 9];
        const char* d = dashes[(i / 9) % 4];
        const std::string dash = *d ? fmt::format(" stroke-dasharray=\"{}\"", d) : "";
        std::string pts;
        for (auto [x, y] : s.points) pts += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
        if (s.line)
            o += fmt::format(
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>\n", c,
                dash, pts);
        for (auto [x, y] : s.points)
            o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", px(x),
                             py(y), c);
        double ly = T + 16 + 18 * i;
        // The legend shows a line for a line series and a dot for a scatter.
        if (s.line)
            o += fmt::format(
                "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
                "stroke-width=\"2\"{}/>",
                W - R + 10, ly, W - R + 30, ly, c, dash);
        else
            o +=
                fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>", W - R + 20, ly, c);
        o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", W - R + 35, ly + 4, esc(s.name));
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
