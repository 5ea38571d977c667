#pragma once
// TEMP's traffic-conscious mapping (TCME, Sec. VI) as a rank placement for `wsc llm --mapping
// tcme`: every group of the innermost dimension on a contiguous physical ring (RingPlacement),
// then TCME's optimizer (temp::TrafficMap) over the
// flows of every TATP group's rounds (which stream at once) reorders the groups' chains until
// the busiest link carries as few flows as it can. Flows keep X-then-Y routes (the step's
// transfers route by coordinates), so only chain orders move, and a chain order is the order of
// the group's ranks on its dies: the result is a placement. On ring blocks every chain step is
// one hop and nothing moves; the optimizer earns its keep on strided and tetris groups (`wsc
// tatp --mapping tcme`). When TP or SP also split, TATP's rings and theirs cannot all be
// physical: the placement with TP (else SP) innermost and the one with TATP innermost
// (RingPlacement::placeAlong) are compared by the link loads of all their rings together and
// the lower kept, without reorders. Then the optimizer reroutes (source, destination) pairs
// whose flows share the busiest links onto their Y-then-X paths, within the routers' route
// limit: the run installs them as pair routes (noc::Network::addPairRoute), so the firmware's
// core-addressed sends follow them unchanged. docs/TEMP.md.
#include <string>
#include <vector>

#include "firmware/model/ModelConfig.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/ParallelPlan.h"
#include "firmware/temp/TrafficMap.h"

namespace wsc::firmware::placement {

class TcmePlacement : public Placement {
  public:
    std::string name() const override { return "tcme"; }
    std::vector<uint32_t> place(const plan::RankGrid& g, const DieArray& a) const override;

    // What the optimizer saw and did, for the run's report.
    struct Report {
        temp::TrafficMap::Load before, after;
        std::vector<std::string> moves;
        uint32_t groups = 0;  // groups whose flows were mapped
        // TATP beside TP or SP: `before` is the load with `other`'s rings innermost (tp, else
        // sp), `after` the load with TATP's innermost (tatp_tried: false when no ring block of
        // tatp dies tiles the array); tatp_inner says which was kept.
        bool mixed = false, tatp_tried = false, tatp_inner = false;
        bool bytes = false;  // loads are bytes per link (Weights given), else flows
        std::string other;
        // The reroute pass on the kept placement: its load before and after, the moves and the
        // pairs rerouted (dies); empty when no pair move lowers the load (or reroute is off).
        temp::TrafficMap::Load route_before, route_after;
        std::vector<std::string> reroutes;
        std::vector<temp::TrafficMap::PairRoute> routes;
    };
    // Bytes one flow of each ring kind carries over a step's layer (TrafficMap::Cost::Bytes):
    // what TATP beside TP or SP is judged by when given (bytesPerFlow).
    struct Weights {
        uint64_t tatp = 1, tp = 1, kv = 1;  // TATP chain, TP ring, TATP x SP (K/V) ring
    };
    // A layer of `m` under plan `p` with `tokens` per step (batch x sequence), elements of
    // `elem_bytes`: a TATP flow carries one weight block in each stage (forward and backward
    // broadcasts, gradient reduce: 3 in training, 1 in inference); a TP flow one ring step of
    // an all-reduce of the die's T x hidden activations (2 T hidden / tp per flow, 4 all-reduces
    // a training layer, 2 forward); a K/V flow one die's K and V block (T x 2 kv_heads x
    // head_dim / tp; gathered forward, reduce-scattered backward). T = tokens per die per
    // micro-batch. docs/TEMP.md, "TATP beside TP and SP".
    static Weights bytesPerFlow(const model::ModelConfig& m, const plan::ParallelPlan& p,
                                uint64_t tokens, uint32_t elem_bytes, bool train);

    // place() and its report. route_limit: route entries a die's router holds (0 = reroute
    // nothing). weights: judge the candidates and reroutes of TATP beside TP or SP by bytes
    // per link (null: by flows per (round, link)).
    static std::vector<uint32_t> placeWithReport(const plan::RankGrid& g, const DieArray& a,
                                                 Report& r, uint32_t route_limit = 0,
                                                 const Weights* weights = nullptr);
};

}  // namespace wsc::firmware::placement
