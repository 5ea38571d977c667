#pragma once
// A runnable scenario: the hardware's NoC and a workload. Only synthetic traffic exists so far
// (workload_type "traffic"); kernel and LLM workloads add their own parameter members.
#include <optional>
#include <string>

#include "core/CoreParams.h"
#include "dram/HbmParams.h"
#include "firmware/DmaStreamWorkload.h"
#include "firmware/GemmWorkload.h"
#include "hw/EnergyParams.h"
#include "hw/HbmAttachParams.h"
#include "hw/WaferParams.h"
#include "noc/NocParams.h"
#include "noc/TrafficParams.h"

namespace wsc::hw {

struct ScenarioConfig {
    std::string name;
    noc::NocParams noc;
    noc::TrafficParams traffic;
    std::string workload_type = "traffic";
    core::CoreParams core;                   // the hardware's core: section (defaults if absent)
    firmware::GemmWorkload gemm;             // workload_type "gemm"
    firmware::DmaStreamWorkload dma_stream;  // workload_type "dma_stream"
    WaferParams wafer;                       // the hardware's wafer: section, if any
    std::optional<dram::HbmParams> hbm;      // the hardware's hbm: section, if any
    HbmAttachParams hbm_attach;              // where its stacks attach to each die
    EnergyParams energy;                     // the hardware's energy: section (zeros if absent)
};

}  // namespace wsc::hw
