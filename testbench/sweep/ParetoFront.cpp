#include "testbench/sweep/ParetoFront.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace wsc::tb::sweep {

std::vector<bool> ParetoFront::compute(const std::vector<std::pair<double, double>>& in, bool maxX,
                                       bool maxY) {
    // Minimise both: flip the signs of maximised metrics.
    std::vector<std::pair<double, double>> p(in);
    for (auto& [x, y] : p) {
        if (maxX) x = -x;
        if (maxY) y = -y;
    }
    std::vector<size_t> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
    std::vector<bool> front(p.size(), false);
    // bestY: the lowest y among points of strictly smaller x.
    double bestY = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        const double x = p[order[i]].first, groupMin = p[order[i]].second;  // sorted by y too
        while (j < order.size() && p[order[j]].first == x) ++j;
        for (size_t k = i; k < j; ++k) {
            const double y = p[order[k]].second;
            front[order[k]] = y == groupMin && y < bestY;
        }
        bestY = std::min(bestY, groupMin);
        i = j;
    }
    return front;
}

}  // namespace wsc::tb::sweep
