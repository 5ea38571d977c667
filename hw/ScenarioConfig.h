#pragma once
// A runnable scenario: the hardware's NoC and a workload. Only synthetic traffic exists so far
// (workload_type "traffic"); kernel and LLM workloads add their own parameter members.
#include <string>

#include "core/CoreParams.h"
#include "firmware/DmaStreamWorkload.h"
#include "firmware/GemmWorkload.h"
#include "noc/NocParams.h"
#include "noc/TrafficParams.h"

namespace wsc::hw {

struct ScenarioConfig {
    std::string name;
    noc::NocParams noc;
    noc::TrafficParams traffic;
    std::string workload_type = "traffic";
    core::CoreParams core;        // the hardware's core: section (defaults if absent)
    firmware::GemmWorkload gemm;  // workload_type "gemm"
    firmware::DmaStreamWorkload dma_stream;  // workload_type "dma_stream"
};

}  // namespace wsc::hw
