#pragma once
// A runnable scenario: the hardware's NoC and a workload. Only synthetic traffic exists so far
// (workload_type "traffic"); kernel and LLM workloads add their own parameter members.
#include <string>

#include "noc/NocParams.h"
#include "noc/TrafficParams.h"

namespace wsc::hw {

struct ScenarioConfig {
    std::string name;
    noc::NocParams noc;
    noc::TrafficParams traffic;
    std::string workload_type = "traffic";
};

}  // namespace wsc::hw
