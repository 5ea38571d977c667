#include "firmware/watos/PipelinePlacement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "firmware/placement/RingPlacement.h"

namespace wsc::firmware::watos {

namespace {

// A set of directed links as a bitset over die * 4 + direction.
using LinkSet = std::vector<uint64_t>;

void addLinks(LinkSet& s, const std::vector<uint32_t>& links) {
    for (uint32_t l : links) s[l / 64] |= uint64_t(1) << (l % 64);
}

uint32_t sharedLinks(const LinkSet& a, const LinkSet& b) {
    uint32_t n = 0;
    for (size_t i = 0; i < a.size(); ++i) n += uint32_t(__builtin_popcountll(a[i] & b[i]));
    return n;
}

// Relative improvement below this is float noise, not a better placement.
bool better(double a, double b) {
    return a < b - 1e-12 * std::max(1.0, std::abs(b));
}

}  // namespace

double PipelinePlacement::Cost::pipelineHops() const {
    double h = 0;
    for (size_t i = 0; i + 1 < centre_x.size(); ++i)
        h += std::abs(centre_x[i] - centre_x[i + 1]) + std::abs(centre_y[i] - centre_y[i + 1]);
    return h;
}

double PipelinePlacement::Cost::meanPairDist() const {
    if (pair_dist.empty()) return 0;
    return std::accumulate(pair_dist.begin(), pair_dist.end(), 0.0) / double(pair_dist.size());
}

PipelinePlacement::PipelinePlacement(const placement::DieArray& a, uint32_t pp, uint32_t tp,
                                     std::vector<double> comm_pp, std::vector<MemPair> pairs)
    : a_(a), pp_(pp), tp_(tp), comm_pp_(std::move(comm_pp)), pairs_(std::move(pairs)) {
    if (a_.x == 0 || a_.y == 0) throw std::invalid_argument("watos placement: empty die array");
    if (pp_ == 0 || tp_ == 0)
        throw std::invalid_argument("watos placement: pp and tp must be at least 1");
    if (uint64_t(pp_) * tp_ > a_.dies())
        throw std::invalid_argument(
            fmt::format("watos placement: pp={} x tp={} = {} dies, the array has {} ({} x {})", pp_,
                        tp_, uint64_t(pp_) * tp_, a_.dies(), a_.x, a_.y));
    if (comm_pp_.empty()) comm_pp_.assign(pp_ - 1, 1.0);
    if (comm_pp_.size() != pp_ - 1)
        throw std::invalid_argument(
            fmt::format("watos placement: {} pipeline weights for {} stage boundaries (pp={})",
                        comm_pp_.size(), pp_ - 1, pp_));
    for (double w : comm_pp_)
        if (!(w >= 0) || std::isinf(w))
            throw std::invalid_argument(
                "watos placement: a pipeline weight is negative or not "
                "finite");
    for (const MemPair& p : pairs_) {
        if (p.sender >= pp_ || p.helper >= pp_ || p.sender == p.helper)
            throw std::invalid_argument(
                fmt::format("watos placement: pair ({}, {}) needs two distinct stages below pp={}",
                            p.sender, p.helper, pp_));
        if (!(p.bytes >= 0) || std::isinf(p.bytes))
            throw std::invalid_argument(
                fmt::format("watos placement: pair ({}, {}) bytes are negative or not finite",
                            p.sender, p.helper));
    }
}

std::vector<uint32_t> PipelinePlacement::xyLinks(const placement::DieArray& a, uint32_t from,
                                                 uint32_t to) {
    std::vector<uint32_t> links;
    uint32_t x = a.dx(from), y = a.dy(from);
    const uint32_t tx = a.dx(to), ty = a.dy(to);
    while (x != tx) {
        const bool east = tx > x;
        links.push_back(a.die(x, y) * 4 + (east ? 0 : 1));
        x = east ? x + 1 : x - 1;
    }
    while (y != ty) {
        const bool south = ty > y;
        links.push_back(a.die(x, y) * 4 + (south ? 2 : 3));
        y = south ? y + 1 : y - 1;
    }
    return links;
}

std::vector<std::vector<uint32_t>> PipelinePlacement::blocks(const placement::DieArray& a,
                                                             uint32_t w, uint32_t h) {
    std::vector<std::vector<uint32_t>> out;
    if (w == 0 || h == 0 || a.x % w || a.y % h) return out;
    // A cycle exists when the block is at most 2 dies or has an even side; lines and odd x odd
    // blocks keep row-major order (cycle() returns that for lines).
    const bool has_cycle = w * h <= 2 || ((w > 1 && h > 1) && (w % 2 == 0 || h % 2 == 0));
    std::vector<uint32_t> order(w * h);
    if (has_cycle)
        order = placement::RingPlacement::cycle(w, h);
    else
        std::iota(order.begin(), order.end(), 0u);
    const uint32_t bx_n = a.x / w, by_n = a.y / h;
    for (uint32_t by = 0; by < by_n; ++by)
        for (uint32_t i = 0; i < bx_n; ++i) {
            const uint32_t bx = by % 2 == 0 ? i : bx_n - 1 - i;  // snake over blocks
            std::vector<uint32_t> b;
            for (uint32_t c : order) b.push_back(a.die(bx * w + c % w, by * h + c / w));
            out.push_back(std::move(b));
        }
    return out;
}

PipelinePlacement::Cost PipelinePlacement::cost(const std::vector<uint32_t>& rank_die) const {
    if (rank_die.size() != size_t(pp_) * tp_)
        throw std::invalid_argument(fmt::format(
            "watos placement: {} dies given for pp={} x tp={} ranks", rank_die.size(), pp_, tp_));
    for (uint32_t d : rank_die)
        if (d >= a_.dies())
            throw std::invalid_argument(
                fmt::format("watos placement: die {} is not on the {} x {} array", d, a_.x, a_.y));
    auto die = [&](uint32_t s, uint32_t t) { return rank_die[size_t(s) * tp_ + t]; };
    Cost c;
    for (uint32_t s = 0; s < pp_; ++s) {
        double x = 0, y = 0;
        for (uint32_t t = 0; t < tp_; ++t) x += a_.dx(die(s, t)), y += a_.dy(die(s, t));
        c.centre_x.push_back(x / tp_);
        c.centre_y.push_back(y / tp_);
    }
    auto dist = [&](uint32_t i, uint32_t j) {
        return std::abs(c.centre_x[i] - c.centre_x[j]) + std::abs(c.centre_y[i] - c.centre_y[j]);
    };
    const size_t words = (size_t(a_.dies()) * 4 + 63) / 64;
    // The links between two stages' rank-t dies, both ways.
    auto between = [&](uint32_t i, uint32_t j) {
        LinkSet s(words, 0);
        for (uint32_t t = 0; t < tp_; ++t) {
            addLinks(s, xyLinks(a_, die(i, t), die(j, t)));
            addLinks(s, xyLinks(a_, die(j, t), die(i, t)));
        }
        return s;
    };
    LinkSet pipe(words, 0);
    for (uint32_t i = 0; i + 1 < pp_; ++i) {
        c.pipeline += dist(i, i + 1) * comm_pp_[i];
        const LinkSet s = between(i, i + 1);
        for (size_t k = 0; k < words; ++k) pipe[k] |= s[k];
    }
    for (const MemPair& p : pairs_) {
        const double d = dist(p.sender, p.helper);
        const uint32_t g = sharedLinks(between(p.sender, p.helper), pipe);
        c.pair_dist.push_back(d);
        c.pair_gamma.push_back(g);
        c.pairs += d * p.bytes * (1.0 + g);
    }
    c.total = c.pipeline + c.pairs;
    return c;
}

PipelinePlacement::Result PipelinePlacement::search(const Options& o) const {
    if (uint64_t(pp_) * tp_ != a_.dies())
        throw std::invalid_argument(
            fmt::format("watos placement: pp={} x tp={} = {} ranks, the array has {} dies ({} x "
                        "{}); the search tiles the whole array",
                        pp_, tp_, uint64_t(pp_) * tp_, a_.dies(), a_.x, a_.y));
    const bool exhaustive =
        o.search == Search::Exhaustive || (o.search == Search::Auto && pp_ <= o.exhaustive_max_pp);
    if (exhaustive && pp_ > 10)
        throw std::invalid_argument(fmt::format(
            "watos placement: an exhaustive search over {}! stage orders is too long; use the "
            "local search",
            pp_));

    Result best;
    bool found = false;
    const size_t words = (size_t(a_.dies()) * 4 + 63) / 64;
    for (uint32_t w = 1; w <= tp_; ++w) {
        if (tp_ % w) continue;
        const uint32_t h = tp_ / w;
        const auto bl = blocks(a_, w, h);
        if (bl.size() != pp_) continue;
        // Per pair of blocks: the centres' distance and the links between their rank-t dies.
        const uint32_t n = pp_;
        std::vector<double> bdist(size_t(n) * n);
        std::vector<LinkSet> blinks(size_t(n) * n, LinkSet(words, 0));
        std::vector<double> cx(n), cy(n);
        for (uint32_t b = 0; b < n; ++b) {
            double x = 0, y = 0;
            for (uint32_t d : bl[b]) x += a_.dx(d), y += a_.dy(d);
            cx[b] = x / tp_, cy[b] = y / tp_;
        }
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = 0; j < n; ++j) {
                bdist[size_t(i) * n + j] = std::abs(cx[i] - cx[j]) + std::abs(cy[i] - cy[j]);
                if (i == j) continue;
                LinkSet& s = blinks[size_t(i) * n + j];
                for (uint32_t t = 0; t < tp_; ++t) {
                    addLinks(s, xyLinks(a_, bl[i][t], bl[j][t]));
                    addLinks(s, xyLinks(a_, bl[j][t], bl[i][t]));
                }
            }
        // Eq. 2 for stage s on block slot[s]; the same sums as cost() in the same order.
        LinkSet pipe(words);
        uint64_t evaluated = 0;
        auto score = [&](const std::vector<uint32_t>& slot) {
            ++evaluated;
            double total = 0;
            std::fill(pipe.begin(), pipe.end(), 0);
            for (uint32_t i = 0; i + 1 < n; ++i) {
                const size_t k = size_t(slot[i]) * n + slot[i + 1];
                total += bdist[k] * comm_pp_[i];
                const LinkSet& s = blinks[k];
                for (size_t q = 0; q < words; ++q) pipe[q] |= s[q];
            }
            for (const MemPair& p : pairs_) {
                const size_t k = size_t(slot[p.sender]) * n + slot[p.helper];
                total += bdist[k] * p.bytes * (1.0 + sharedLinks(blinks[k], pipe));
            }
            return total;
        };

        std::vector<uint32_t> slot(n), best_slot;
        std::iota(slot.begin(), slot.end(), 0u);
        double best_cost = 0;
        if (exhaustive) {
            // Lexicographic order from the snake order: ties keep the earliest.
            do {
                const double c = score(slot);
                if (best_slot.empty() || better(c, best_cost)) best_cost = c, best_slot = slot;
            } while (std::next_permutation(slot.begin(), slot.end()));
        } else {
            std::mt19937_64 rng(o.seed);  // raw draws only: the same on every platform
            for (uint32_t start = 0; start <= o.restarts; ++start) {
                std::iota(slot.begin(), slot.end(), 0u);
                if (start > 0)
                    for (uint32_t i = n - 1; i > 0; --i) std::swap(slot[i], slot[rng() % (i + 1)]);
                double cur = score(slot);
                for (;;) {  // best-improvement pairwise swaps until none improves
                    double best_swap = cur;
                    uint32_t bi = 0, bj = 0;
                    for (uint32_t i = 0; i < n; ++i)
                        for (uint32_t j = i + 1; j < n; ++j) {
                            std::swap(slot[i], slot[j]);
                            const double c = score(slot);
                            std::swap(slot[i], slot[j]);
                            if (better(c, best_swap)) best_swap = c, bi = i, bj = j;
                        }
                    if (bi == bj) break;
                    std::swap(slot[bi], slot[bj]);
                    cur = best_swap;
                }
                if (best_slot.empty() || better(cur, best_cost)) best_cost = cur, best_slot = slot;
            }
        }
        best.evaluated += evaluated;
        if (!found || better(best_cost, best.cost.total)) {
            found = true;
            best.block_w = w, best.block_h = h;
            best.rank_die.assign(size_t(pp_) * tp_, 0);
            for (uint32_t s = 0; s < pp_; ++s)
                for (uint32_t t = 0; t < tp_; ++t)
                    best.rank_die[size_t(s) * tp_ + t] = bl[best_slot[s]][t];
            best.cost.total = best_cost;
        }
    }
    if (!found)
        throw std::invalid_argument(fmt::format(
            "watos placement: no block of tp={} dies (w x h with w | {} and h | {}) tiles the {} x "
            "{} die array",
            tp_, a_.x, a_.y, a_.x, a_.y));
    const uint64_t evaluated = best.evaluated;
    best.cost = cost(best.rank_die);  // the breakdown, from the general formula
    best.evaluated = evaluated;
    best.exhaustive = exhaustive;
    return best;
}

}  // namespace wsc::firmware::watos
