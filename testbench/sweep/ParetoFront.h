#pragma once
// The Pareto front of points in two metrics: a point is on it when no other point is at least as
// good in both and better in one. Each metric is minimised unless maximised is asked. Points
// equal in both metrics are all on the front or all off it. O(n log n).
#include <utility>
#include <vector>

namespace wsc::tb::sweep {

class ParetoFront {
  public:
    static std::vector<bool> compute(const std::vector<std::pair<double, double>>& pts,
                                     bool maximizeX = false, bool maximizeY = false);
};

}  // namespace wsc::tb::sweep
