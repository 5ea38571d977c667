#include "hw/WaferConfigLoader.h"

#include <fmt/format.h>

#include <algorithm>

namespace wsc::hw {

namespace {
constexpr double kMm = 1e-3;              // metres per millimetre (Units returns metres)
constexpr uint32_t kMaxMeshSide = 65535;  // noc::Topology stores coordinates in 16 bits
}  // namespace

noc::TopologyParams WaferConfigLoader::load(const YamlReader& w, WaferParams& wafer) {
    w.checkKeys({"dies", "cores_per_die", "die_pitch", "core_pitch", "die_size", "wrap",
                 "local_ports", "wafers"});
    wafer = WaferParams{};
    wafer.present = true;
    const YamlReader dies = w.child("dies");
    dies.checkKeys({"x", "y"});
    wafer.dies_x = dies.getUInt("x", 1, kMaxMeshSide);
    wafer.dies_y = dies.getUInt("y", 1, kMaxMeshSide);
    // Several wafers: `dies` is one wafer's array; the system joins wafers_x x wafers_y of them
    // edge to edge, and the links between them are noc.w2w links.
    if (const auto ws = w.optionalChild("wafers")) {
        ws->checkKeys({"x", "y"});
        wafer.wafers_x = ws->getUInt("x", 1, kMaxMeshSide, 1);
        wafer.wafers_y = ws->getUInt("y", 1, kMaxMeshSide, 1);
        if (uint64_t{wafer.dies_x} * wafer.wafers_x > kMaxMeshSide ||
            uint64_t{wafer.dies_y} * wafer.wafers_y > kMaxMeshSide)
            throw w.errorAt("wafers", fmt::format("expected at most {} dies along a side of the "
                                                  "system",
                                                  kMaxMeshSide));
        wafer.dies_x *= wafer.wafers_x;
        wafer.dies_y *= wafer.wafers_y;
    }
    if (const auto c = w.optionalChild("cores_per_die")) {
        c->checkKeys({"x", "y"});
        wafer.cores_x = c->getUInt("x", 1, kMaxMeshSide);
        wafer.cores_y = c->getUInt("y", 1, kMaxMeshSide);
    }
    // The mesh side is dies x cores: both must fit the topology's 16-bit coordinates.
    const auto side = [&](uint32_t d, uint32_t c, const char* axis) {
        if (uint64_t{d} * c > kMaxMeshSide)
            throw w.errorAt("cores_per_die",
                            fmt::format("expected at most {} cores along {} on the wafer, got {} "
                                        "dies x {} cores per die = {}",
                                        kMaxMeshSide, axis, d, c, uint64_t{d} * c));
        return d * c;
    };
    noc::TopologyParams t;
    t.x = side(wafer.dies_x, wafer.cores_x, "x");
    t.y = side(wafer.dies_y, wafer.cores_y, "y");
    t.die_x = wafer.cores_x;
    t.die_y = wafer.cores_y;
    if (wafer.wafers_x > 1) t.wafer_x = t.x / wafer.wafers_x;
    if (wafer.wafers_y > 1) t.wafer_y = t.y / wafer.wafers_y;
    t.local_ports = w.getUInt("local_ports", 1, 4, 1);
    if (uint64_t{t.x} * t.y * t.local_ports > YamlReader::kMaxU32)
        throw w.errorAt("dies",
                        "expected a wafer with at most 2^32-1 network ports "
                        "(cores x local_ports)");
    t.wrap = w.getBool("wrap", false);
    if (t.wrap && (wafer.wafers_x > 1 || wafer.wafers_y > 1))
        w.fail("wrap", "false with several wafers (a wrap link would join two wafers' far edges)");

    wafer.die_pitch_mm = w.getQuantity("die_pitch", Dim::Length, 26.0 * kMm) / kMm;
    if (!(wafer.die_pitch_mm > 0.0)) w.fail("die_pitch", "a length > 0");
    // Default core pitch: the die pitch shared by its cores, so a die-level model (1 x 1) and a
    // core mesh both get a plausible geometry without another number.
    const double defaultCorePitch = wafer.die_pitch_mm / std::max(wafer.cores_x, wafer.cores_y);
    wafer.core_pitch_mm = w.getQuantity("core_pitch", Dim::Length, defaultCorePitch * kMm) / kMm;
    if (!(wafer.core_pitch_mm > 0.0)) w.fail("core_pitch", "a length > 0");
    // Neighbouring dies' edge cores must be apart or a D2D link would have no length.
    const uint32_t span = std::max(wafer.cores_x, wafer.cores_y) - 1;
    if (wafer.die_pitch_mm <= span * wafer.core_pitch_mm)
        w.fail("die_pitch", fmt::format("a die pitch > {:g} mm ({} core pitches of {:g} mm: the "
                                        "span of a die's cores)",
                                        span * wafer.core_pitch_mm, span, wafer.core_pitch_mm));
    if (const auto s = w.optionalChild("die_size")) {
        s->checkKeys({"x", "y"});
        wafer.die_width_mm = s->getQuantity("x", Dim::Length) / kMm;
        wafer.die_height_mm = s->getQuantity("y", Dim::Length) / kMm;
        if (!(wafer.die_width_mm > 0.0) || wafer.die_width_mm > wafer.die_pitch_mm)
            s->fail("x", fmt::format("a die width > 0 and <= the die pitch {:g} mm",
                                     wafer.die_pitch_mm));
        if (!(wafer.die_height_mm > 0.0) || wafer.die_height_mm > wafer.die_pitch_mm)
            s->fail("y", fmt::format("a die height > 0 and <= the die pitch {:g} mm",
                                     wafer.die_pitch_mm));
    }
    t.die_pitch_mm = wafer.die_pitch_mm;
    t.core_pitch_mm = wafer.core_pitch_mm;
    return t;
}

}  // namespace wsc::hw
