#pragma once
// A user's firmware run from a scenario (`workload: {type: firmware}`, docs/CONFIG.md): programs
// in ISA.md's text form, buffer values to start from, and buffer values to check at the end.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "firmware/Firmware.h"

namespace wsc::firmware {

struct FirmwareWorkload {
    struct BufferValues {
        uint32_t core = 0;
        std::string buffer;
        std::vector<float> values;  // from element 0; init: fills the rest with `fill`
        float fill = 0.0f;
        bool has_fill = false;
    };
    std::string path;                    // the file or directory, as resolved
    std::shared_ptr<const Firmware> fw;  // parsed and validated at load time
    bool functional = true;              // carry values (needed by init and expect)
    std::vector<BufferValues> init;      // written into SRAM before the first cycle
    std::vector<BufferValues> expect;    // compared after the last
    double tolerance = 0.0;              // |got - expected| allowed per element
};

}  // namespace wsc::firmware
