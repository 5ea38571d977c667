#pragma once
// Conditions under which one synthetic-traffic run's numbers do not mean what they seem
// (docs/NOC.md, "Warnings"). Plain policy: the testbench fills TrafficResult::warnings from it,
// the CLI prints them on stderr and --stats keeps them.
#include <string>
#include <vector>

#include "noc/TrafficParams.h"
#include "testbench/TrafficResult.h"

namespace wsc::tb {

class TrafficWarnings {
  public:
    // Accepted below this share of the offered load counts as saturated.
    static constexpr double kAcceptedShare = 0.95;
    static std::vector<std::string> of(const noc::TrafficParams& tp, const TrafficResult& r);
};

}  // namespace wsc::tb
