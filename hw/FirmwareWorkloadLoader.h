#pragma once
// The `workload:` map of a firmware scenario (docs/CONFIG.md, "type: firmware"). The firmware is
// read and validated here, so `wsc validate` reports a bad program before anything is built:
// syntax and validation errors carry the firmware file and line (firmware::ParseError), and the
// scenario's own mistakes (a core the mesh does not have, a buffer a core does not declare) point
// at their key.
#include "firmware/FirmwareWorkload.h"
#include "hw/YamlReader.h"
#include "noc/NocParams.h"

namespace wsc::hw {

firmware::FirmwareWorkload loadFirmwareWorkload(const YamlReader& workload,
                                                const noc::NocParams& noc);

}  // namespace wsc::hw
