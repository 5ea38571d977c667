#pragma once
// Lays the table routes ("colors") a kernel schedule needs on the NoC, within the routers' route
// limit (WaferLLM PLMR "R"), and emits the matching SEND / RECV / RELAY instructions. A transfer
// that cannot get a direct route (some router on its path is full) is relayed by software: it
// hops core to core along its XY path and every core in between runs a RELAY, paying the relay
// (PLMR beta) cost on its controller. Relay hops use the default dimension-order path to the
// neighbour, standing for the one fixed per-direction color every core keeps for this.
#include <cstdint>
#include <vector>

#include "firmware/Firmware.h"
#include "firmware/KernelPlan.h"
#include "noc/Network.h"

namespace wsc::firmware {

class RoutePlanner {
  public:
    struct Path {
        uint32_t src = 0, dst = 0;
        uint32_t route = kNoRouteId;   // the direct route, or kNoRouteId when relayed
        std::vector<uint32_t> relays;  // cores that forward by software (relayed paths)
        uint32_t hops = 0;             // physical router-to-router hops
        bool direct() const { return route != kNoRouteId; }
    };

    // Cores are the NoC nodes of a mesh `mesh_x` routers wide with one core per router.
    RoutePlanner(noc::Network& net, uint32_t mesh_x) : net_(net), mesh_x_(mesh_x) {}

    // A direct table route if every router on the XY path has room, else a relayed path.
    Path unicast(uint32_t src, uint32_t dst);
    // A multicast route along XY trees, or kNoRouteId when some router has no room.
    uint32_t multicast(uint32_t src, const std::vector<uint32_t>& dsts);

    // Instructions for one message on `p`: the sender's SEND, every relay core's RELAY (appended
    // to those cores' programs now, so callers emit transfers in one global order) and the
    // receiver's RECV.
    void emitSend(Program& prog, const Path& p, uint16_t buf, uint64_t bytes) const;
    void emitRelays(Firmware& fw, const Path& p, uint64_t bytes) const;
    // The relay of hop `k` alone (relays[k]): callers that emit many relayed paths hop by hop,
    // so every core forwards in the order its upstream neighbour sends.
    void emitRelay(Firmware& fw, const Path& p, size_t k, uint64_t bytes) const;
    void emitRecv(Program& prog, const Path& p, uint16_t buf, uint64_t bytes) const;

    uint32_t hops(uint32_t a, uint32_t b) const;
    // Path p as a critical path of `bytes`: its hops, stages (1 + relays) and legs.
    CriticalPath pathOf(const Path& p, uint64_t bytes) const;
    // Zero-load network cycles of a critical path: every leg a message of its bytes from core
    // to core (noc::ZeroLoadModel: injection, routers, links incl. D2D and FEC, ejection).
    uint64_t zeroLoadCycles(const CriticalPath& c) const { return zeroLoadCycles(net_, c); }
    static uint64_t zeroLoadCycles(const noc::Network& net, const CriticalPath& c);
    // Replaces `worst` by `p` if p has more stages, or as many and more zero-load cycles.
    void keepWorst(CriticalPath& worst, const CriticalPath& p) const;
    uint32_t directRoutes() const { return direct_; }
    uint32_t relayedPaths() const { return relayed_; }
    uint32_t rejectedMulticasts() const { return rejected_mc_; }
    // PLMR "routes per core": the most route entries any router holds.
    uint32_t maxEntries() const;

  private:
    noc::Network& net_;
    uint32_t mesh_x_;
    uint32_t direct_ = 0, relayed_ = 0, rejected_mc_ = 0;
};

}  // namespace wsc::firmware
