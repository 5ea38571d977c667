#pragma once
// `wsc run` for a dma_stream scenario: builds the memory system (HBM stack or simple memory),
// runs the stream and prints the report (testbench/DmaStreamTestbench). Returns the exit code.
#include <string>

#include "hw/ScenarioConfig.h"
#include "testbench/RunProvenance.h"

namespace wsc::tb {

int runDmaStreamScenario(const hw::ScenarioConfig& sc, const std::string& stats_path,
                         const RunProvenance& provenance);

}  // namespace wsc::tb
