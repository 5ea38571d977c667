#pragma once
// Runs synthetic traffic on a NoC configuration and reports it: one run, or a sweep of injection
// rates up to and past saturation. The SystemC shell is created by the caller once per process.
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "noc/NocParams.h"
#include "noc/NocShell.h"
#include "noc/TrafficParams.h"
#include "testbench/RunObserver.h"
#include "testbench/TrafficResult.h"

namespace wsc::tb {

struct TrafficRunOptions {
    std::string vcd_path;                 // empty: no waveform
    std::vector<uint32_t> trace_routers;  // routers in the VCD
    std::string rtl_fst_path;             // RTL routers' internals as FST (docs/RTL.md)
    nlohmann::json* stats = nullptr;      // if set, every counter is written here
    bool progress = false;                // progress line on stderr for long runs
    std::vector<RunObserver*> observers;  // watch the run (heatmaps, traces, energy counts)
};

class TrafficTestbench {
  public:
    static TrafficResult run(const noc::NocParams& np, const noc::TrafficParams& tp,
                             noc::NocShell& shell, const TrafficRunOptions& opt = {});
    static void printReport(std::ostream& os, const noc::NocParams& np,
                            const noc::TrafficParams& tp, const TrafficResult& r);
    static void toJson(nlohmann::json& j, const TrafficResult& r);
    static std::string describe(const noc::NocParams& np);

    // Sweep: runs each rate in order and stops after the first saturated point (accepted below
    // 95% of offered, average latency above 5x zero-load, or tagged packets that could not
    // drain), so the curve ends at saturation.
    static std::vector<TrafficResult> sweep(const noc::NocParams& np, noc::TrafficParams tp,
                                            const std::vector<double>& rates, noc::NocShell& shell,
                                            std::ostream* live = nullptr);
    static void printSweep(std::ostream& os, const std::vector<TrafficResult>& rs);
    static bool saturated(const TrafficResult& r);
};

}  // namespace wsc::tb
