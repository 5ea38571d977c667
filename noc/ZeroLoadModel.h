#pragma once
// Closed-form zero-load latency of a unicast packet, summed along the route the network would
// take, using the same link flight times the simulation uses. For a homogeneous mesh it reduces
// to (docs/NOC.md):
//   T0 = l_inj + l_ej + (D + 1) * P + D * (l + s - 1) + (F - 1) * s
// with D router-to-router hops, P the router pipeline, l the link latency, s = ceil(flit/width)
// cycles per flit and F flits. Valid while buffers cover the credit round trip.
#include <cstdint>
#include <memory>
#include <vector>

#include "noc/Network.h"

namespace wsc::noc {

class ZeroLoadModel {
  public:
    explicit ZeroLoadModel(const Network& net) : net_(net) {}
    // Cycles from creation at src's NI (empty network) to the tail's arrival at dst's NI.
    uint64_t packetLatency(uint32_t src_node, uint32_t dst_node, uint32_t flits) const;
    uint32_t hops(uint32_t src_node, uint32_t dst_node) const;
    // Mean over uniform random (src, dst) pairs, self included: every pair enumerated up to
    // kExactNodes nodes; beyond, every pair in closed form (exactUniformMean) where that
    // exists, else a fixed-seed sample of kSampledPairs pairs.
    // `sampled` (if given): how many pairs a sampled mean averaged (those a fault leaves
    // unreachable are left out), 0 when the mean covers every pair.
    static constexpr uint32_t kExactNodes = 1024, kSampledPairs = 200000;
    double uniformMeanLatency(uint32_t flits, uint64_t* sampled = nullptr) const;
    // The mean of packetLatency over all N^2 ordered pairs without walking them, where every
    // pair's latency is a sum of per-link terms: dimension-order routing on a mesh without
    // wrap or failure routing, and for packets of more than one flit one per-flit time on
    // every link (so every pair's bottleneck is that time). Each link's flight is weighted by
    // the number of pairs whose route crosses it, which on a mesh does not depend on the
    // order of dimensions. false (mean untouched) where it does not apply.
    bool exactUniformMean(uint32_t flits, double& mean) const;
    double uniformMeanHops() const;
    // Per-row and per-column prefix sums of link flights, after which packetLatency answers a
    // pair of `flits`-flit packets in O(1) instead of walking its route: where
    // exactUniformMean's conditions hold, the same integer sum of the same terms. false
    // (nothing built) elsewhere. For callers that ask for many pairs (a permutation's N, the
    // enumerated uniform mean); O(routers) to build.
    bool buildPathSums(uint32_t flits);

  private:
    // Whether every pair's latency is a sum of per-link terms for `flits`-flit packets, and
    // then the (flits - 1) x per-flit time every pair pays.
    bool linkSumsApply(uint32_t flits, uint64_t& flit_term) const;
    // Calls f(row, line, c, k, up, down) for each pair of mesh links between positions c and
    // c + 1 of a line of k routers: rows (up east-bound, down west-bound), then columns (up
    // south-bound, down north-bound).
    template <class F>
    void forEachMeshLink(F f) const;
    // The per-flit time every link takes, or 0 if links differ.
    uint32_t commonSerialization() const;
    struct PathSums {
        uint32_t flits = 0, kx = 0, ky = 0;
        uint64_t flit_term = 0;
        bool x_first = true;
        // east[y * kx + x]: flights of the east-bound links from column 0 to x in row y;
        // west likewise for the west-bound ones; south and north per column (x * ky + y).
        std::vector<uint64_t> east, west, south, north;
        std::vector<uint32_t> inj, ej;  // per node: its injection and ejection link's flight
    };
    const Network& net_;
    std::shared_ptr<const PathSums> sums_;  // buildPathSums (shared: copies of a model are cheap)
};

}  // namespace wsc::noc
