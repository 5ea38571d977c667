#pragma once
// Energy of one run: each component's event count, price and energy, their total, the run time
// and the average power. Printed as a table in every report and dumped into the stats JSON.
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace wsc::hw {

struct EnergyComponent {
    std::string name;    // "compute", "sram", "noc links", ...
    double count = 0;    // events
    std::string unit;    // what one event is: "FLOP", "B", "bit", "s"
    double pj_each = 0;  // configured energy per event
    double pj = 0;       // count x pj_each
};

class EnergyReport {
  public:
    std::vector<EnergyComponent> components;
    double total_pj = 0;
    double seconds = 0;  // simulated time
    double averagePowerW() const { return seconds > 0 ? total_pj * 1e-12 / seconds : 0.0; }
    const EnergyComponent* find(const std::string& name) const;
    void print(std::ostream& os) const;
    void toJson(nlohmann::json& j) const;
};

}  // namespace wsc::hw
