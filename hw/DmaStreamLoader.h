#pragma once
// The `workload:` map of a dma_stream scenario (docs/CONFIG.md, docs/HBM.md "DMA through the NoC").
#include "firmware/DmaStreamWorkload.h"
#include "hw/HbmAttachParams.h"
#include "hw/YamlReader.h"
#include "noc/NocParams.h"

namespace wsc::hw {

// `attach` is the hardware's hbm.attach (null without an hbm: section); `port: attach` takes the
// routers of its first stack on die (0, 0).
firmware::DmaStreamWorkload loadDmaStream(const YamlReader& workload, const noc::NocParams& noc,
                                          const HbmAttachParams* attach = nullptr);

}  // namespace wsc::hw
