#pragma once
// A GTKWave save file (.gtkw) for a VCD: which signals to show, in which radix, grouped under
// comment rows, and a zoom that shows a chosen number of clock cycles across the window, so a
// waveform opens ready to read (`gtkwave wave.gtkw`) instead of as an empty signal list.
#include <cstdint>
#include <string>
#include <vector>

namespace wsc::noc {

class GtkwSaveFile {
  public:
    enum class Radix { Binary, Decimal, Hex };
    // `dumpfile`: the VCD (written as given; GTKWave resolves it from its working directory or
    // next to the save file); `period_ps`: one clock cycle in the VCD's time unit (ps).
    GtkwSaveFile(std::string dumpfile, double period_ps);
    // A row of text above the signals that follow.
    void comment(const std::string& text);
    // A signal by its full VCD path ("SystemC.r0_0.out_E.flit_valid") and width in bits. GTKWave
    // names a row by the path's last part ("flit_valid"); `alias`, if given, names it instead.
    void signal(const std::string& path, uint32_t width, Radix radix,
                const std::string& alias = "");
    // Show `cycles` cycles across `pixels` of waveform, starting at `first_cycle`. The window is
    // sized for that: 980 px of waves is what a 1600-pixel GTKWave window leaves beside the tree
    // and the signal column.
    void window(uint64_t first_cycle, uint64_t cycles, uint32_t pixels = 980);
    // GTKWave's zoom for that window: -log2(time units per pixel).
    double zoom() const;
    std::string text() const;
    void write(const std::string& path) const;  // throws std::runtime_error naming the file

  private:
    std::string dumpfile_;
    double period_ps_;
    uint64_t first_ = 0, cycles_ = 100;
    uint32_t pixels_ = 980;
    std::vector<std::string> rows_;
};

}  // namespace wsc::noc
