#pragma once
// Expert load balancing by copying hot experts into shadow slots (MoEntwine Sec. V, Fig. 7(a)).
// A balancer takes the mesh, the current placement and each expert's predicted load (tokens,
// e.g. ExpertTrace::expertLoad over recent iterations) and returns the copies to make, in order,
// each with its route; docs/MOE.md "Balancers".
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/moe/DieMesh.h"
#include "firmware/moe/ExpertPlacement.h"

namespace wsc::firmware::moe {

// When a part of a migration may run: during the attention all-reduce or the MoE all-to-all
// (NI-Balancer), or whenever (the invasive balancers, which stop inference to migrate).
enum class MigrationPhase { Any, AllReduce, AllToAll };
const char* phaseName(MigrationPhase p);

struct MigrationStep {
    MigrationPhase phase = MigrationPhase::Any;
    uint32_t from = 0, to = 0;  // dies; `to` buffers the expert until the next step
    std::vector<Link> links;
    // Phase slot it runs in: layer l's all-reduce is slot 2 l, its all-to-all slot 2 l + 1
    // (counted from the layer the migration starts in); 0 for Any.
    uint32_t slot = 0;
};

struct Migration {
    uint32_t expert = 0, from = 0, to = 0;
    std::vector<Link> path;  // the whole route, from -> to
    std::vector<MigrationStep> steps;
};

struct BalancePlan {
    std::vector<Migration> migrations;
    std::vector<double> heatBefore, heatAfter;  // per die
    ExpertPlacement after;
    double maxBefore() const;
    double maxAfter() const;
    uint32_t totalHops() const;  // sum of the migrations' route lengths (expert copies x hops)
};

class ExpertBalancer {
  public:
    virtual ~ExpertBalancer() = default;
    virtual std::string name() const = 0;
    // Throws std::invalid_argument when the inputs disagree (loads vs experts, mesh vs placement).
    virtual BalancePlan plan(const DieMesh& mesh, const ExpertPlacement& placement,
                             const std::vector<double>& expertLoad) const = 0;

  protected:
    static void checkInputs(const DieMesh& mesh, const ExpertPlacement& placement,
                            const std::vector<double>& expertLoad, const std::string& who);
    // One whole-route step in phase Any.
    static Migration direct(const DieMesh& mesh, uint32_t expert, uint32_t from, uint32_t to);
};

}  // namespace wsc::firmware::moe
