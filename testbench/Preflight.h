#pragma once
// Every check a run of a scenario makes before its first simulated cycle, made without simulating
// and without SystemC: the network (topology, faults and partitions, route tables against
// route_limit, the watchdog against the slowest round trip, RTL router positions), the traffic
// pattern's mesh constraints, the GEMM schedule (block, tiles, memory capacity) and the DMA
// stream plan, and every core's firmware buffers against its SRAM. `wsc validate` runs it, and
// `wsc run` / `wsc traffic` run it before they build anything, so a run starts only from a config
// validate accepts and an input error never surfaces mid-run as exit 1.
//
// Every failure is an hw::ConfigError at the key it is about (file:line:column, through the
// config's hw::ConfigSource), or naming the CLI flag when a flag overrode that key; exit 2.
#include <functional>
#include <map>
#include <string>

#include "hw/ConfigError.h"
#include "hw/ScenarioConfig.h"
#include "testbench/ResourceEstimate.h"

namespace wsc::tb {

// The memory a run may take (ResourceEstimate): `bytes` 0 = no check; `source` says where the
// limit came from ("--max-memory", "available memory").
struct RunBudget {
    uint64_t bytes = 0;
    std::string source;
    // --max-memory when given (`flag_bytes` > 0), else the machine's available memory.
    static RunBudget of(uint64_t flag_bytes);
};

class Preflight {
  public:
    // Workload keys a CLI flag set ("pattern" -> "--pattern"): errors about them name the flag.
    using Overrides = std::map<std::string, std::string>;

    using Budget = RunBudget;

    // Returns the estimate it checked against the budget.
    static ResourceEstimate check(const hw::ScenarioConfig& sc, const Overrides& flags = {},
                                  const Budget& budget = {});

    // Runs fn; a noc::ParamError (a NocParams value the network refuses, naming its key) becomes
    // a ConfigError at that key of `hw`. For code that builds networks outside check().
    static void located(const hw::HardwareConfig& hw, const std::function<void()>& fn);
};

}  // namespace wsc::tb
