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
    // A signal by its full VCD path ("SystemC.r0_0.out_E.flit_valid") and width in bits.
    void signal(const std::string& path, uint32_t width, Radix radix);
    // Show `cycles` cycles across `pixels` of waveform, starting at `first_cycle`.
    void window(uint64_t first_cycle, uint64_t cycles, uint32_t pixels = 1200);
    // GTKWave's zoom for that window: -log2(time units per pixel).
    double zoom() const;
    std::string text() const;
    void write(const std::string& path) const;  // throws std::runtime_error naming the file

  private:
    std::string dumpfile_;
    double period_ps_;
    uint64_t first_ = 0, cycles_ = 100;
    uint32_t pixels_ = 1200;
    std::vector<std::string> rows_;
};

}  // namespace wsc::noc
