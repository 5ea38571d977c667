#pragma once
// `wsc llm infer` on a core mesh (one die of many cores: the WSE-2 configs): WaferLLM's decode,
// a step through the model's dense layers composed per core (`wsc kernel decode`'s program), at
// the first, middle and last of --generate decode steps. The decode rate is the middle step's
// (the average time per output token when the step grows linearly with the cache; the first and
// last steps show the spread). A step's energy is the layer's (every core's and link's events,
// priced by the config's energy: section) times the layers. Prefill on cores is not built: no
// time to first token.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "hw/HardwareConfig.h"

namespace wsc::tb {

class CoreDecodeRun {
  public:
    struct Request {
        std::string model, hw_path;
        hw::HardwareConfig hw;
        uint64_t prompt = 0, generate = 0;
        std::string kv = "shift";  // shift | concat
        bool functional = false;   // values through every sampled step (small meshes)
    };
    // A one-die wafer of more than one core: the layout this run needs.
    static bool applies(const hw::HardwareConfig& h);
    // Prints the report; returns 0, or 1 if a functional check failed.
    static int run(const Request& r, std::ostream& os);
};

}  // namespace wsc::tb
