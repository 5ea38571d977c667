#include "noc/GtkwSaveFile.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <stdexcept>

namespace wsc::noc {

GtkwSaveFile::GtkwSaveFile(std::string dumpfile, double period_ps)
    : dumpfile_(std::move(dumpfile)), period_ps_(period_ps) {}

void GtkwSaveFile::comment(const std::string& text) {
    // GTKWave's flags: 0x200 a blank/comment row.
    rows_.push_back("@200\n-" + text);
}

void GtkwSaveFile::signal(const std::string& path, uint32_t width, Radix radix,
                          const std::string& alias) {
    // Flags: 0x20 right-justify, with 0x08 binary, 0x04 decimal or 0x02 hex.
    const char* flags = radix == Radix::Binary ? "28" : radix == Radix::Decimal ? "24" : "22";
    // A vector is named with its bit range, as GTKWave lists it.
    const std::string name = width > 1 ? fmt::format("{}[{}:0]", path, width - 1) : path;
    rows_.push_back(
        fmt::format("@{}\n{}{}", flags, alias.empty() ? "" : "+{" + alias + "} ", name));
}

void GtkwSaveFile::window(uint64_t first_cycle, uint64_t cycles, uint32_t pixels) {
    first_ = first_cycle;
    cycles_ = cycles ? cycles : 1;
    pixels_ = pixels ? pixels : 1;
}

double GtkwSaveFile::zoom() const {
    // GTKWave draws 2^-zoom / 200 time units per pixel (its calczoom: 200 pixels per frame of
    // 2^-zoom). Measured on 3.3.118 under Xvfb from the time ruler: zoom -14.06 puts the 10 ns
    // ticks of a 1 ps VCD 116.8 px apart (85.6 ps a pixel; 2^14.06 / 200 = 85.5), and
    // docs/rtl_router.gtkw's -15.34 shows 208 ps a pixel (2^15.34 / 200 = 207); the wsc VCD's
    // -14.32 (100 cycles at 1 GHz over 980 px) puts them 98 px apart, 0-100 ns in the pane.
    const double perPixel = period_ps_ * static_cast<double>(cycles_) / pixels_;
    return -std::log2(std::max(perPixel * 200.0, 1e-3));
}

std::string GtkwSaveFile::text() const {
    std::string s = "[*] wsc: GTKWave save file (docs/WAVEFORMS.md)\n";
    s += fmt::format("[dumpfile] \"{}\"\n", dumpfile_);
    const auto start =
        static_cast<uint64_t>(std::llround(period_ps_ * static_cast<double>(first_)));
    s += fmt::format("[timestart] {}\n", start);
    // The tree (sst_width), the signal column (signals_width) and the borders and scrollbar take
    // 620 px of the window's width (measured: a 1600 px window has 980 px of waves).
    s += fmt::format("[size] {} 1000\n", pixels_ + 620);
    s += "[pos] -1 -1\n";
    // The zoom, then the primary marker and 26 named markers (none).
    s += fmt::format("*{:.6f} {}", zoom(), start);
    for (int i = 0; i < 26; ++i) s += " -1";
    s += "\n[treeopen] SystemC.\n[sst_width] 220\n[signals_width] 320\n";
    for (const auto& r : rows_) s += r + "\n";
    return s;
}

void GtkwSaveFile::write(const std::string& path) const {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    f << text();
    if (!f.flush()) throw std::runtime_error("cannot write " + path);
}

}  // namespace wsc::noc
