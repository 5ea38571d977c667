#pragma once
// A runnable scenario: the hardware (every section of a hardware YAML, as HardwareConfig) and a
// workload (synthetic traffic, a GEMM, a DMA stream).
#include <optional>
#include <string>

#include "firmware/DmaStreamWorkload.h"
#include "firmware/FirmwareWorkload.h"
#include "firmware/GemmWorkload.h"
#include "firmware/llm/LlmWorkload.h"
#include "hw/HardwareConfig.h"
#include "noc/TrafficParams.h"

namespace wsc::hw {

struct ScenarioConfig : HardwareConfig {
    std::string name;
    noc::TrafficParams traffic;
    std::string workload_type = "traffic";
    firmware::GemmWorkload gemm;             // workload_type "gemm"
    firmware::DmaStreamWorkload dma_stream;  // workload_type "dma_stream"
    firmware::llm::LlmWorkload llm;          // workload_type "llm"
    firmware::FirmwareWorkload firmware;     // workload_type "firmware"
    std::string trace_path;                  // workload_type "trace" (tb::TrafficTrace)
    ConfigSource workload_source;            // the workload: map, for located checks
    const HardwareConfig& hardware() const { return *this; }
    void setHardware(const HardwareConfig& h) { static_cast<HardwareConfig&>(*this) = h; }
};

}  // namespace wsc::hw
