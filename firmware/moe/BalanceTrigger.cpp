#include "firmware/moe/BalanceTrigger.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace wsc::firmware::moe {

BalanceTrigger::BalanceTrigger(const TriggerConfig& c) : c_(c) {
    if (!std::isfinite(c.alpha) || c.alpha < 0)
        throw std::invalid_argument(
            fmt::format("balance trigger: alpha: expected a number >= 0, got {}", c.alpha));
}

double BalanceTrigger::imbalance(const std::vector<double>& load) {
    if (load.empty()) return 0.0;
    double sum = 0;
    for (double v : load) sum += v;
    const double mean = sum / double(load.size());
    if (mean <= 0) return 0.0;
    return (*std::max_element(load.begin(), load.end()) - mean) / mean;
}

double BalanceTrigger::cumulative(const std::vector<std::vector<double>>& perLayer) {
    double s = 0;
    for (const auto& l : perLayer) s += imbalance(l);
    return s;
}

bool BalanceTrigger::fires(const std::vector<std::vector<double>>& perLayer, uint32_t since) const {
    return cumulative(perLayer) > c_.alpha && since > c_.beta;
}

}  // namespace wsc::firmware::moe
