#include "hw/EnergyConfigLoader.h"

#include <string>

#include "hw/UnitError.h"

namespace wsc::hw {

namespace {
constexpr double kPjPerJ = 1e12;
}  // namespace

EnergyParams EnergyConfigLoader::load(const YamlReader& e) {
    e.checkKeys({"compute", "sram", "static_power"});
    EnergyParams p;
    if (e.has("compute")) p.compute_pj_per_flop = computePjPerFlop(e);
    // Units reads "pJ/B" as per bit (divided by 8); the model charges SRAM per byte.
    p.sram_pj_per_byte = e.getQuantity("sram", Dim::EnergyPerBit, 0.0) * kPjPerJ * 8.0;
    p.static_power_w = e.getQuantity("static_power", Dim::Power, 0.0);
    return p;
}

double EnergyConfigLoader::computePjPerFlop(const YamlReader& e) {
    const std::string expected = "an efficiency like '2 TFLOPS/W' or an energy like '0.5 pJ/FLOP'";
    const YamlReader v = e.entry("compute");
    const std::string text = v.scalar(expected);
    // "<throughput>/W": FLOP/s per watt is FLOP per joule; its inverse is the energy per FLOP.
    const std::string perWatt = "/W";
    if (text.size() > perWatt.size() &&
        text.compare(text.size() - perWatt.size(), perWatt.size(), perWatt) == 0) {
        double flopsPerJoule = 0.0;
        try {
            flopsPerJoule =
                Units::parse(text.substr(0, text.size() - perWatt.size()), Dim::Throughput);
        } catch (const UnitError&) {
            v.failHere(expected);
        }
        if (!(flopsPerJoule > 0.0)) v.failHere("an efficiency > 0 " + std::string("FLOPS/W"));
        return kPjPerJ / flopsPerJoule;
    }
    try {
        return Units::parse(text, Dim::EnergyPerFlop) * kPjPerJ;
    } catch (const UnitError&) {
        v.failHere(expected);
    }
}

}  // namespace wsc::hw
