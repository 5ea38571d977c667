#include "testbench/Preflight.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "core/Sram.h"
#include "core/SramOverflowError.h"
#include "hw/rtl/RtlRouterFactory.h"
#include "noc/Network.h"
#include "noc/ParamError.h"
#include "testbench/DmaStreamTestbench.h"
#include "testbench/GemmTestbench.h"
#include "testbench/LlmTestbench.h"
#include "testbench/TrafficPattern.h"
#include "testbench/TrafficTrace.h"
#include "testbench/WorkloadError.h"

namespace wsc::tb {

namespace {

// An error about workload key `key`: at the flag that set it, else at the key in the file.
hw::ConfigError workloadError(const hw::ScenarioConfig& sc, const Preflight::Overrides& flags,
                              const std::string& key, const std::string& message) {
    const auto f = flags.find(key);
    if (f != flags.end()) return hw::ConfigError(f->second, 0, 0, "", message);
    return sc.workload_source.error(key, message);
}

// Every core's buffers against its SRAM, in the order Core::load allocates them.
void checkSram(const firmware::Firmware& fw, const core::CoreParams& cp,
               const std::function<hw::ConfigError(const std::string&)>& fail) {
    for (uint32_t c = 0; c < fw.cores(); ++c) {
        std::vector<std::pair<std::string, uint64_t>> bufs;
        for (const auto& b : fw.program(c).buffers())
            if (!b.isView()) bufs.emplace_back(b.name, b.bytes());
        try {
            core::Sram::checkFits(fmt::format("core {}", c), bufs, cp.sram);
        } catch (const core::SramOverflowError& e) {
            throw fail(e.what());
        }
    }
}

}  // namespace

void Preflight::located(const hw::HardwareConfig& hw, const std::function<void()>& fn) {
    try {
        fn();
    } catch (const noc::ParamError& e) {
        throw hw.source.error(e.key(), e.what());
    }
}

RunBudget RunBudget::of(uint64_t flag_bytes) {
    if (flag_bytes) return {flag_bytes, "allowed by --max-memory"};
    const uint64_t avail = ResourceEstimate::available();
    return {
        static_cast<uint64_t>(double(avail) * ResourceEstimate::kAvailableFraction),
        fmt::format("allowed by default ({:.0f}% of the {} available, MemAvailable)",
                    100 * ResourceEstimate::kAvailableFraction, ResourceEstimate::bytes(avail))};
}

ResourceEstimate Preflight::check(const hw::ScenarioConfig& sc, const Overrides& flags,
                                  const Budget& budget) {
    // Memory first, before any structure of the config's size is built.
    ResourceEstimate est;
    located(sc, [&] {
        try {
            est = ResourceEstimate::of(sc);  // builds small probe networks of the same params
        } catch (const std::invalid_argument& e) {
            throw sc.source.error("noc", e.what());
        }
    });
    ResourceEstimate::enforce(est, sc, budget.bytes, budget.source);
    // The network as every run builds it (noc::Network's checks, named by key).
    std::unique_ptr<noc::Network> net;
    located(sc, [&] {
        try {
            net = std::make_unique<noc::Network>(sc.noc, 1);
        } catch (const noc::ParamError&) {
            throw;
        } catch (const std::invalid_argument& e) {
            throw sc.source.error("noc", e.what());
        }
    });
    if (!sc.noc.rtl_routers.empty()) {
        try {
            rtl::RtlRouterFactory::install(*net, sc.noc.rtl_routers);
        } catch (const std::invalid_argument& e) {
            throw sc.source.error("noc.rtl_routers", e.what());
        }
    }

    if (sc.workload_type == "traffic") {
        const noc::TrafficParams& t = sc.traffic;
        try {
            TrafficPattern(t.pattern, net->topology(), t.hotspot_node, t.hotspot_fraction);
        } catch (const std::invalid_argument& e) {
            throw workloadError(sc, flags, "pattern", e.what());
        }
        if (t.packet_flits < 1 || t.packet_flits > 0xFFFF)
            throw workloadError(sc, flags, "packet_size",
                                fmt::format("expected a packet of 1..65535 flits, got {} (the "
                                            "network's packet header counts flits in 16 bits)",
                                            t.packet_flits));
    } else if (sc.workload_type == "gemm") {
        firmware::Firmware fw;
        const uint64_t h0 = ResourceEstimate::heapBytes();
        try {
            fw = GemmTestbench::plan(sc.hardware(), sc.gemm);
            fw.validate();
        } catch (const std::invalid_argument& e) {
            throw workloadError(sc, flags, "", e.what());
        }
        checkSram(fw, sc.core, [&](const std::string& m) {
            return workloadError(
                sc, flags, "",
                fmt::format("the GEMM's tiles do not fit a core's SRAM ({}; core.sram.capacity "
                            "is {} B): use a larger core block (mesh) or a smaller shape",
                            m, sc.core.sram.capacity_bytes));
        });
        est.addWorkload(sc, fw, ResourceEstimate::heapSince(h0));
    } else if (sc.workload_type == "llm") {
        const firmware::llm::LlmWorkload& w = sc.llm;
        LlmSpec s;
        s.train = w.train;
        s.model = w.model;
        s.plan = w.plan;
        s.placement = w.placement;
        s.placement_list = w.placement_list;
        s.batch = w.batch;
        s.seq = w.seq;
        s.generate = w.generate;
        s.dtype = w.dtype == "bf16" ? firmware::DType::BF16 : firmware::DType::FP16;
        s.recompute = firmware::llm::RecomputePlanner::parse(w.recompute);
        s.offload = w.offload;
        try {
            LlmTestbench::check(sc.hardware(), s);
        } catch (const firmware::llm::OutOfMemoryError& e) {
            throw workloadError(
                sc, flags, "plan",
                fmt::format("plan {} does not fit in memory: {}", w.plan.str(), e.what()));
        } catch (const std::invalid_argument& e) {
            const bool placement = std::string(e.what()).rfind("placement list", 0) == 0;
            throw workloadError(sc, flags, placement ? "placement" : "", e.what());
        }
    } else if (sc.workload_type == "trace") {
        // Every line checked against this NoC (file:line errors, exit 2).
        const uint64_t nodes =
            uint64_t{sc.noc.topology.x} * sc.noc.topology.y * sc.noc.topology.local_ports;
        try {
            TrafficTrace::loadFile(sc.trace_path, static_cast<uint32_t>(nodes));
        } catch (const hw::ConfigError& e) {
            if (e.line() != 0) throw;
            throw workloadError(sc, flags, "trace", e.message());
        }
    } else if (sc.workload_type == "firmware") {
        // Parsed and validated by the loader; here only what needs the core parameters.
        checkSram(*sc.firmware.fw, sc.core, [&](const std::string& m) {
            return workloadError(sc, flags, "firmware",
                                 fmt::format("the firmware's buffers do not fit a core's SRAM "
                                             "({}; core.sram.capacity is {} B)",
                                             m, sc.core.sram.capacity_bytes));
        });
        est.addWorkload(sc, *sc.firmware.fw, 0);
    } else if (sc.workload_type == "dma_stream") {
        DmaStreamPlan plan;
        const uint64_t h0 = ResourceEstimate::heapBytes();
        try {
            plan = DmaStreamTestbench::plan(*net, sc.dma_stream);
            plan.firmware.validate();
        } catch (const WorkloadError& e) {
            throw workloadError(sc, flags, e.key(), e.what());
        } catch (const std::invalid_argument& e) {
            throw workloadError(sc, flags, "", e.what());
        }
        checkSram(plan.firmware, sc.core, [&](const std::string& m) {
            return workloadError(sc, flags, "bytes",
                                 fmt::format("the tensor does not fit a streaming core's SRAM ({}; "
                                             "core.sram.capacity is {} B)",
                                             m, sc.core.sram.capacity_bytes));
        });
        est.addWorkload(sc, plan.firmware, ResourceEstimate::heapSince(h0));
    }
    ResourceEstimate::enforce(est, sc, budget.bytes, budget.source);
    return est;
}

}  // namespace wsc::tb
