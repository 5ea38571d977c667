#include "testbench/DmaStreamCli.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "dram/HbmParams.h"
#include "noc/NocShell.h"
#include "testbench/DmaStreamTestbench.h"

namespace wsc::tb {

namespace {

// The scenario's `hbm:` section once ScenarioConfig has one (std::optional<dram::HbmParams> hbm),
// else the HBM3 defaults. Detected at compile time so this file builds either way.
template <class T, class = void>
struct HasHbm : std::false_type {};
template <class T>
struct HasHbm<T, std::void_t<decltype(std::declval<const T&>().hbm)>> : std::true_type {};

template <class T>
dram::HbmParams hbmParams(const T& sc) {
    if constexpr (HasHbm<T>::value) {
        if (sc.hbm) return *sc.hbm;
    }
    return dram::HbmParams::hbm3Default();
}

}  // namespace

int runDmaStreamScenario(const hw::ScenarioConfig& sc, const std::string& stats_path,
                         const RunProvenance& provenance) {
    const firmware::DmaStreamWorkload& w = sc.dma_stream;
    noc::NocShell shell("noc", sc.noc.clock_hz);
    core::CoreParams cp = sc.core;
    cp.memory.ports = 1;
    hw::MemorySystem mem(cp, sc.noc.clock_hz,
                         w.memory == "simple" ? hw::MemoryTarget::Simple : hw::MemoryTarget::Hbm,
                         hbmParams(sc), sc.hbm_attach.sync);
    nlohmann::json stats;
    const DmaStreamResult r =
        DmaStreamTestbench::run(sc.noc, cp, w, shell, mem, stats_path.empty() ? nullptr : &stats);
    DmaStreamTestbench::printReport(std::cout, w, r);
    if (!stats_path.empty()) {
        stats["scenario"] = sc.name;
        provenance.writeStats(stats_path, std::move(stats));
    }
    return r.checked && !r.correct ? 1 : 0;
}

}  // namespace wsc::tb
