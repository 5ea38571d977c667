#pragma once
// `wsc run` of a scenario with `workload: {type: firmware}`: the user's programs (docs/ISA.md text
// form) on the scenario's NoC and cores, buffers set from `init` before the first cycle and
// compared with `expect` after the last (docs/CONFIG.md). DMA goes to core.memory's simple ports
// (port p for core p mod ports), as in a gemm scenario without hbm.
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/CoreStats.h"
#include "hw/ScenarioConfig.h"

namespace wsc::noc {
class NocShell;
}

namespace wsc::tb {

struct FirmwareResult {
    uint64_t cycles = 0;  // last cycle + 1
    struct Core {
        uint32_t id = 0;
        std::string name;
        core::CoreStats stats;
        uint64_t instructions = 0;  // in its program (loops count once)
    };
    std::vector<Core> cores;  // every core with a non-empty program
    struct Check {
        uint32_t core = 0;
        std::string buffer;
        size_t compared = 0, mismatched = 0;
        size_t first_bad = 0;  // element index of the first mismatch
        float got = 0, want = 0;
        double max_abs_error = 0;
    };
    std::vector<Check> checks;
    struct Unmatched {  // messages that arrived at a core and no recv took
        uint32_t core = 0;
        size_t messages = 0;
        uint64_t bytes = 0;
    };
    std::vector<Unmatched> unmatched;
    // Every check passed and no message was left unreceived.
    bool correct() const;
};

class FirmwareTestbench {
  public:
    // `stats`: where to write every counter (null for none). `shell` may have run before (one
    // SystemC kernel per process: a caller that runs twice passes the same shell).
    static FirmwareResult run(const hw::ScenarioConfig& sc, noc::NocShell& shell,
                              nlohmann::json* stats);
    static void printReport(std::ostream& os, const hw::ScenarioConfig& sc,
                            const FirmwareResult& r);
};

}  // namespace wsc::tb
