#pragma once
// Throughput versus link-fault rate (the experiment of TEMP Fig. 20b): for each rate, several
// seeded fault maps; for each map the offered load is raised in steps of 0.05 until the network
// saturates and the best accepted throughput is kept; the mean over maps is reported. Every
// point, rate 0 included, routes up*/down*, so the curve shows the faults and not a change of
// routing. Pairs that faults disconnect are not sent and are reported.
#include <iosfwd>
#include <vector>

#include "noc/NocParams.h"
#include "noc/NocShell.h"
#include "noc/TrafficParams.h"

namespace wsc::tb {

class FaultSweep {
  public:
    struct Point {
        double fault_rate = 0;
        double failed_links = 0;  // mean over seeds
        double accepted = 0;      // flits/node/cycle, mean over seeds
        double accepted_min = 0, accepted_max = 0;
        double unreachable_share = 0;  // packets not sent / packets generated
        double latency_avg = 0;        // at the saturation point
    };
    static std::vector<Point> run(const noc::NocParams& np, const noc::TrafficParams& tp,
                                  const std::vector<double>& rates, uint32_t seeds,
                                  noc::NocShell& shell, std::ostream* live = nullptr);
    static void printTable(std::ostream& os, const std::vector<Point>& pts);
};

}  // namespace wsc::tb
