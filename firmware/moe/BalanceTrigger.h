#pragma once
// MoEntwine Eq. 2: balance when the imbalance summed over the L MoE layers exceeds alpha and
// more than beta iterations have passed since the last migration:
//   sum_i (max(load_i) - mean(load_i)) / mean(load_i) > alpha   and   dt_mig > beta
// load_i is the per-die load of layer i (ExpertPlacement::heat). beta = 0 for the non-invasive
// balancer (migration hidden, so it may run every iteration: dt_mig >= 1 > 0).
#include <cstdint>
#include <vector>

namespace wsc::firmware::moe {

struct TriggerConfig {
    double alpha = 0.5;
    uint32_t beta = 0;  // iterations
};

class BalanceTrigger {
  public:
    explicit BalanceTrigger(const TriggerConfig& c);  // throws std::invalid_argument (alpha < 0)
    // (max - mean) / mean of one layer's die loads; 0 for an all-zero layer.
    static double imbalance(const std::vector<double>& dieLoad);
    static double cumulative(const std::vector<std::vector<double>>& perLayerDieLoad);
    bool fires(const std::vector<std::vector<double>>& perLayerDieLoad,
               uint32_t itersSinceMigration) const;

  private:
    TriggerConfig c_;
};

}  // namespace wsc::firmware::moe
