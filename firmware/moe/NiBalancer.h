#pragma once
// The planning half of MoEntwine's Non-invasive Balancer (Sec. V-A): the copies of Algorithm 1
// (TopologyAwareBalancer), each routed and cut into steps that run while the network is busy
// with something else:
//   - every link is assigned to the phase in which it is relatively colder: its all-reduce load
//     over the busiest all-reduce link against its all-to-all load over the busiest all-to-all
//     link (LinkLoad, uniform gating with the given top-k); all-reduce when that ratio is lower,
//     all-to-all otherwise. On ER that is "intra-FTD links during the all-reduce, inter-FTD links
//     during the all-to-all" (Fig. 11), which the tests check;
//   - a migration takes, among the minimal (monotone) routes, one with the fewest phase changes
//     (x moves before y moves on ties), and each maximal run of same-phase links is one step:
//     local steps (all-reduce) and global steps (all-to-all), e.g. Local -> Global -> Local for
//     a corner-to-corner move on 4x4 ER (Fig. 11(d));
//   - step i runs in the first phase slot of its phase after step i - 1 (slots: layer l's
//     all-reduce 2 l, its all-to-all 2 l + 1); the die between two steps holds the expert.
// Timing (whether a step's bytes fit in the phase) is the simulator's job, not planned here.
#include <memory>
#include <vector>

#include "firmware/moe/ExpertBalancer.h"
#include "firmware/moe/LinkLoad.h"
#include "firmware/moe/MoeMapping.h"

namespace wsc::firmware::moe {

class NiBalancer : public ExpertBalancer {
  public:
    NiBalancer(const MoeMapping& mapping, uint32_t topK);
    std::string name() const override { return "non-invasive"; }
    BalancePlan plan(const DieMesh& mesh, const ExpertPlacement& placement,
                     const std::vector<double>& expertLoad) const override;

    // The phase each link slot is given to (Any for slots without a link).
    const std::vector<MigrationPhase>& linkPhase() const { return phase_; }
    const std::vector<double>& allReduceLoad() const { return ar_; }
    const std::vector<double>& allToAllLoad() const { return a2a_; }
    // A migration from -> to of one expert, routed and split into steps.
    Migration split(uint32_t expert, uint32_t from, uint32_t to) const;

  private:
    MoeMapping m_;
    std::vector<double> ar_, a2a_;
    std::vector<MigrationPhase> phase_;
};

}  // namespace wsc::firmware::moe
