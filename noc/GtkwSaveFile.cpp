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

void GtkwSaveFile::signal(const std::string& path, uint32_t width, Radix radix) {
    // Flags: 0x20 right-justify, with 0x08 binary, 0x04 decimal or 0x02 hex.
    const char* flags = radix == Radix::Binary ? "28" : radix == Radix::Decimal ? "24" : "22";
    // A vector is named with its bit range, as GTKWave lists it.
    const std::string name = width > 1 ? fmt::format("{}[{}:0]", path, width - 1) : path;
    rows_.push_back(fmt::format("@{}\n{}", flags, name));
}

void GtkwSaveFile::window(uint64_t first_cycle, uint64_t cycles, uint32_t pixels) {
    first_ = first_cycle;
    cycles_ = cycles ? cycles : 1;
    pixels_ = pixels ? pixels : 1;
}

double GtkwSaveFile::zoom() const {
    // GTKWave 3.3 draws 2^-zoom / 171 time units per pixel (measured on 3.3.118 under Xvfb:
    // zoom -14 shows 96 ps a pixel of a 1 ps VCD, -7.38 about 1 ps, whatever the dump's length).
    const double perPixel = period_ps_ * static_cast<double>(cycles_) / pixels_;
    return -std::log2(std::max(perPixel * 171.0, 1e-3));
}

std::string GtkwSaveFile::text() const {
    std::string s = "[*] wsc: GTKWave save file (docs/WAVEFORMS.md)\n";
    s += fmt::format("[dumpfile] \"{}\"\n", dumpfile_);
    const auto start =
        static_cast<uint64_t>(std::llround(period_ps_ * static_cast<double>(first_)));
    s += fmt::format("[timestart] {}\n", start);
    s += fmt::format("[size] {} 800\n", pixels_ + 400);
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
