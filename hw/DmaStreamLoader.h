#pragma once
// The `workload:` map of a dma_stream scenario (docs/CONFIG.md, docs/HBM.md "DMA through the NoC").
#include "firmware/DmaStreamWorkload.h"
#include "hw/YamlReader.h"
#include "noc/NocParams.h"

namespace wsc::hw {

firmware::DmaStreamWorkload loadDmaStream(const YamlReader& workload, const noc::NocParams& noc);

}  // namespace wsc::hw
