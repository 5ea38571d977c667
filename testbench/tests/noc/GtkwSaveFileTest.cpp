// The GTKWave save file of a VCD (noc/GtkwSaveFile): signals with their radix and bit range,
// comment rows, and the zoom that shows the requested cycles.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "noc/GtkwSaveFile.h"

using wsc::noc::GtkwSaveFile;

TEST_CASE("a GTKWave save file lists the signals and zooms to the window asked for", "[noc][vcd]") {
    GtkwSaveFile f("wave.vcd", 1000.0);  // 1 GHz, 1 ps time unit
    f.window(50, 100, 1000);
    f.comment("router 0");
    f.signal("SystemC.r0_0.out_E.flit_valid", 1, GtkwSaveFile::Radix::Binary);
    f.signal("SystemC.r0_0.out_E.packet", 32, GtkwSaveFile::Radix::Decimal);
    f.signal("SystemC.r0_0.out_E.vc", 8, GtkwSaveFile::Radix::Hex);
    f.signal("SystemC.r0_0.in_E.occupancy", 16, GtkwSaveFile::Radix::Decimal, "in_E occupancy");
    const std::string t = f.text();
    CHECK_THAT(t, Catch::Contains("[dumpfile] \"wave.vcd\"\n"));
    CHECK_THAT(t, Catch::Contains("[timestart] 50000\n"));  // cycle 50 in ps
    CHECK_THAT(t, Catch::Contains("@200\n-router 0\n"));
    CHECK_THAT(t, Catch::Contains("@28\nSystemC.r0_0.out_E.flit_valid\n"));
    CHECK_THAT(t, Catch::Contains("@24\nSystemC.r0_0.out_E.packet[31:0]\n"));
    CHECK_THAT(t, Catch::Contains("@22\nSystemC.r0_0.out_E.vc[7:0]\n"));
    CHECK_THAT(t, Catch::Contains("@24\n+{in_E occupancy} SystemC.r0_0.in_E.occupancy[15:0]\n"));
    // The window leaves the 1000 px of waves beside the tree and the signal column.
    CHECK_THAT(t, Catch::Contains("[size] 1620 1000\n"));
    // 100 cycles of 1000 ps over 1000 px: 100 ps a pixel, GTKWave's 2^-zoom / 200 of it.
    CHECK(f.zoom() == Approx(-std::log2(100.0 * 200.0)));
    // Twice the cycles, one step of zoom out.
    GtkwSaveFile g("wave.vcd", 1000.0);
    g.window(0, 200, 1000);
    CHECK(g.zoom() == Approx(f.zoom() - 1));
    CHECK_THAT(t, Catch::Contains(fmt::format("*{:.6f} 50000", f.zoom())));
}
