#include "hw/rtl/RtlRouterFactory.h"

#include <fmt/format.h>

#include <stdexcept>

#include "hw/rtl/RtlModelTable.h"

namespace wsc::rtl {

bool RtlRouterFactory::available() {
    return !RtlModelTable::rows().empty();
}

std::string RtlRouterFactory::reason() {
    return RtlModelTable::unavailableReason();
}

std::string RtlRouterFactory::variants() {
    std::string s;
    for (const auto& row : RtlModelTable::rows()) {
        const auto& v = row.shape;
        s += fmt::format("{}ports={} vcs={} depth={} pipeline={}{}", s.empty() ? "" : ", ", v.ports,
                         v.vcs, v.depth, v.pipeline, v.traced ? " (fst)" : "");
    }
    return s.empty() ? "none" : s;
}

std::unique_ptr<RtlRouter> RtlRouterFactory::make(const noc::Network& net, uint32_t r,
                                                  bool traced) {
    if (!available())
        throw std::invalid_argument(
            fmt::format("rtl_routers: this build has no Verilated RTL router ({}); rebuild with "
                        "-DWSC_WITH_VERILATOR=ON and Verilator installed",
                        reason()));
    const noc::NocParams& p = net.params();
    if (p.topology.wrap)
        throw std::invalid_argument("rtl_routers: the RTL router implements a mesh, not a torus");
    if (p.routing != noc::RoutingAlgo::XY)
        throw std::invalid_argument("rtl_routers: the RTL router implements XY routing only");
    if (p.faults.any())
        throw std::invalid_argument(
            "rtl_routers: the RTL router routes XY and cannot route around faults (up*/down*)");
    if (r >= net.topology().routers())
        throw std::invalid_argument(fmt::format(
            "rtl_routers: router {} does not exist (mesh has {})", r, net.topology().routers()));
    const uint32_t ports = net.topology().ports();
    for (const auto& row : RtlModelTable::rows()) {
        const auto& v = row.shape;
        if (v.ports == ports && v.vcs == p.router.vcs && v.depth == p.router.vc_buffer_flits &&
            v.pipeline == p.router.pipeline && v.traced == traced)
            return std::make_unique<RtlRouter>(net, r, row.make());
    }
    throw std::invalid_argument(
        fmt::format("rtl_routers: no Verilated router with ports={} vcs={} depth={} pipeline={}{} "
                    "in this build "
                    "(compiled: {}); add the set to WSC_RTL_VARIANTS in hw/rtl/CMakeLists.txt",
                    ports, p.router.vcs, p.router.vc_buffer_flits, p.router.pipeline,
                    traced ? " and FST tracing" : "", variants()));
}

std::string RtlRouterFactory::tracePath(const std::string& fst_path, uint32_t r) {
    std::string stem = fst_path;
    if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".fst") == 0)
        stem.resize(stem.size() - 4);
    return fmt::format("{}.r{}.fst", stem, r);
}

std::vector<RtlRouter*> RtlRouterFactory::install(noc::Network& net,
                                                  const std::vector<uint32_t>& routers,
                                                  const std::string& fst_path) {
    std::vector<RtlRouter*> out;
    for (uint32_t r : routers) {
        if (net.isExternal(r))
            throw std::invalid_argument(fmt::format("rtl_routers: router {} listed twice", r));
        auto rt = make(net, r, !fst_path.empty());
        if (!fst_path.empty()) rt->openTrace(tracePath(fst_path, r));
        out.push_back(rt.get());
        net.replaceRouter(r, std::move(rt));
    }
    return out;
}

}  // namespace wsc::rtl
