#include "hw/EnergyReport.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "hw/StatsKey.h"

namespace wsc::hw {

const EnergyComponent* EnergyReport::find(const std::string& name) const {
    for (const auto& c : components)
        if (c.name == name) return &c;
    return nullptr;
}

void EnergyReport::print(std::ostream& os) const {
    fmt::print(os, "  energy              {:.6g} uJ in {:.6g} us, average power {:.6g} W\n",
               total_pj * 1e-6, seconds * 1e6, averagePowerW());
    for (const auto& c : components) {
        const double share = total_pj > 0 ? 100.0 * c.pj / total_pj : 0.0;
        if (c.unit == "s")  // static power: watts over the run's seconds, not pJ per second
            fmt::print(os, "    {:<16} {:>14.6g} uJ {:>6.1f}%   {:g} W x {:.6g} s\n", c.name,
                       c.pj * 1e-6, share, c.pj_each * 1e-12, c.count);
        else
            fmt::print(os, "    {:<16} {:>14.6g} uJ {:>6.1f}%   {:.6g} {} x {:g} pJ\n", c.name,
                       c.pj * 1e-6, share, c.count, c.unit, c.pj_each);
    }
}

void EnergyReport::toJson(nlohmann::json& j) const {
    j = nlohmann::json::object();
    j["total_pj"] = total_pj;
    j["seconds"] = seconds;
    j["average_power_w"] = averagePowerW();
    nlohmann::json comps = nlohmann::json::object();
    for (const auto& c : components)
        comps[statsKey(c.name)] = {
            {"count", c.count}, {"unit", c.unit}, {"pj_each", c.pj_each}, {"pj", c.pj}};
    j["components"] = comps;
}

}  // namespace wsc::hw
