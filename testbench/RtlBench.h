#pragma once
// `wsc bench rtl`: co-simulation speed of the Verilated RTL router (docs/RTL.md). Simulated
// cycles/s and flit-router traversals/s for one router (a 1x1 mesh, its NI sending to itself, so
// the RTL model is the whole cost) and for a 4x4 mesh all C++, mixed (configs/mesh4x4_rtl.yaml's
// five RTL positions) and all RTL, under the synthetic traffic testbench. Markdown on stdout.
#include <iosfwd>
#include <string>
#include <vector>

namespace wsc::tb {

class RtlBench {
  public:
    struct Row {
        std::string name;
        uint64_t cycles = 0;
        double wall = 0;
        double traversals = 0;
    };
    static void run(std::ostream& os, bool quick);

  private:
    static Row singleRouter(bool rtl, uint64_t cycles);
};

}  // namespace wsc::tb
