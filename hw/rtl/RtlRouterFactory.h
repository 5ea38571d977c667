#pragma once
// Puts Verilated RTL routers into a network: picks the compiled variant that matches the
// network's router parameters and checks what the RTL does not implement (torus, YX and table
// routing, multicast), with messages that say which parameter sets this build has.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/rtl/RtlRouter.h"
#include "noc/Network.h"

namespace wsc::rtl {

class RtlRouterFactory {
  public:
    // True when this build has Verilated models; otherwise reason() says why not.
    static bool available();
    static std::string reason();
    // "ports=5 vcs=4 depth=8 pipeline=2 (fst), ..." for messages and `wsc bench rtl`.
    static std::string variants();
    // The RTL router for position r of `net`. `traced` asks for the FST-capable variant.
    static std::unique_ptr<RtlRouter> make(const noc::Network& net, uint32_t r,
                                           bool traced = false);
    // Replaces every router in `routers` (before the first step). With a non-empty fst_path each
    // one writes its internals to "<fst_path without .fst>.r<index>.fst". The network owns the
    // routers; the returned pointers are for statistics and listeners.
    static std::vector<RtlRouter*> install(noc::Network& net, const std::vector<uint32_t>& routers,
                                           const std::string& fst_path = "");
    // The trace file of router r for a given fst_path (see install).
    static std::string tracePath(const std::string& fst_path, uint32_t r);
};

}  // namespace wsc::rtl
