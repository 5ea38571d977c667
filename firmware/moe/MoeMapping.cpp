#include "firmware/moe/MoeMapping.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <tuple>

#include "firmware/placement/RingPlacement.h"

namespace wsc::firmware::moe {

namespace {

// A block of a x b cells has a Hamiltonian cycle when it is 1 or 2 cells, or both sides exceed 1
// and one is even (grid graphs are bipartite, so an odd cell count has none).
bool hasCycle(uint32_t a, uint32_t b) {
    return a * b <= 2 || (a > 1 && b > 1 && (a % 2 == 0 || b % 2 == 0));
}

void checkCount(const DieMesh& mesh, uint32_t dp, uint32_t tp, const char* what) {
    if (dp == 0 || tp == 0 || uint64_t(dp) * tp != mesh.dies())
        throw std::invalid_argument(fmt::format(
            "{} mapping: dp {} x tp {} = {} dies does not fill the {} x {} mesh ({} dies)", what,
            dp, tp, uint64_t(dp) * tp, mesh.cols(), mesh.rows(), mesh.dies()));
}

}  // namespace

const char* mappingName(MappingKind k) {
    switch (k) {
        case MappingKind::Baseline:
            return "baseline";
        case MappingKind::Entwined:
            return "entwined";
        default:
            return "hierarchical";
    }
}

MoeMapping::MoeMapping(MappingKind k, DieMesh mesh, uint32_t dp, uint32_t tp, uint32_t wafers)
    : kind_(k), mesh_(mesh), dp_(dp), tp_(tp), wafers_(wafers) {}

MoeMapping MoeMapping::baseline(const DieMesh& mesh, uint32_t dp, uint32_t tp) {
    checkCount(mesh, dp, tp, "baseline");
    // The TP block: one with a physical ring first, then the squarest (smallest perimeter), then
    // the wider one; it must tile the mesh.
    std::tuple<int, uint32_t, int> best{2, std::numeric_limits<uint32_t>::max(), 2};
    uint32_t ba = 0, bb = 0;
    for (uint32_t a = 1; a <= tp; ++a) {
        if (tp % a) continue;
        const uint32_t b = tp / a;
        if (mesh.cols() % a || mesh.rows() % b) continue;
        const std::tuple<int, uint32_t, int> score{hasCycle(a, b) ? 0 : 1, a + b, a >= b ? 0 : 1};
        if (score < best) best = score, ba = a, bb = b;
    }
    if (!ba)
        throw std::invalid_argument(
            fmt::format("baseline mapping: no block of tp = {} dies tiles the {} x {} mesh", tp,
                        mesh.cols(), mesh.rows()));
    MoeMapping m(MappingKind::Baseline, mesh, dp, tp, 1);
    m.blockCols_ = ba, m.blockRows_ = bb;
    const std::vector<uint32_t> cyc = placement::RingPlacement::cycle(ba, bb);
    const uint32_t blocksX = mesh.cols() / ba;
    m.groups_.assign(dp, std::vector<uint32_t>(tp));
    for (uint32_t g = 0; g < dp; ++g)
        for (uint32_t r = 0; r < tp; ++r)
            m.groups_[g][r] =
                mesh.id((g % blocksX) * ba + cyc[r] % ba, (g / blocksX) * bb + cyc[r] / ba);
    m.ftds_.assign(tp, {});
    for (uint32_t k = 0; k < tp; ++k)
        for (uint32_t g = 0; g < dp; ++g) m.ftds_[k].push_back(m.groups_[g][k]);
    m.stages_.push_back({"all-reduce", m.groups_, 2.0 * (tp - 1) / tp});
    m.index();
    return m;
}

MoeMapping MoeMapping::entwined(const DieMesh& mesh, uint32_t dp, uint32_t tp) {
    checkCount(mesh, dp, tp, "entwined");
    // The FTD block of dp dies: the squarest first (its average pairwise hop count is
    // (fa + fb) / 3, docs/MOE.md), then a block grid with a cycle (every ring hop one block side),
    // then the shorter ring hop, then the wider block.
    std::tuple<uint32_t, int, uint32_t, int> best{std::numeric_limits<uint32_t>::max(), 2, 0, 2};
    uint32_t fa = 0, fb = 0;
    for (uint32_t a = 1; a <= dp; ++a) {
        if (dp % a) continue;
        const uint32_t b = dp / a;
        if (mesh.cols() % a || mesh.rows() % b) continue;
        const uint32_t gx = mesh.cols() / a, gy = mesh.rows() / b;
        const std::tuple<uint32_t, int, uint32_t, int> score{a + b, hasCycle(gx, gy) ? 0 : 1,
                                                             a > b ? a : b, a >= b ? 0 : 1};
        if (!fa || score < best) best = score, fa = a, fb = b;
    }
    if (!fa)
        throw std::invalid_argument(
            fmt::format("entwined mapping: no FTD block of dp = {} dies tiles the {} x {} mesh", dp,
                        mesh.cols(), mesh.rows()));
    MoeMapping m(MappingKind::Entwined, mesh, dp, tp, 1);
    m.blockCols_ = fa, m.blockRows_ = fb;
    const uint32_t gx = mesh.cols() / fa, gy = mesh.rows() / fb;
    const std::vector<uint32_t> cyc = placement::RingPlacement::cycle(gx, gy);
    m.groups_.assign(dp, std::vector<uint32_t>(tp));
    for (uint32_t s = 0; s < dp; ++s)
        for (uint32_t r = 0; r < tp; ++r)
            m.groups_[s][r] = mesh.id((cyc[r] % gx) * fa + s % fa, (cyc[r] / gx) * fb + s / fa);
    m.ftds_.assign(tp, {});
    for (uint32_t k = 0; k < tp; ++k)
        for (uint32_t g = 0; g < dp; ++g) m.ftds_[k].push_back(m.groups_[g][k]);
    m.stages_.push_back({"all-reduce", m.groups_, 2.0 * (tp - 1) / tp});
    m.index();
    return m;
}

MoeMapping MoeMapping::hierarchical(uint32_t waferCols, uint32_t waferRows, uint32_t wafers,
                                    uint32_t dp, uint32_t tp) {
    if (wafers == 0 || dp % wafers)
        throw std::invalid_argument(fmt::format(
            "hierarchical mapping: dp = {} groups do not split over {} wafers", dp, wafers));
    const DieMesh wafer(waferCols, waferRows);
    if (uint64_t(dp / wafers) * tp != wafer.dies())
        throw std::invalid_argument(
            fmt::format("hierarchical mapping: {} groups of tp {} per wafer = {} dies do not fill "
                        "a {} x {} wafer",
                        dp / wafers, tp, uint64_t(dp / wafers) * tp, waferCols, waferRows));
    const MoeMapping local = entwined(wafer, dp / wafers, tp);
    MoeMapping m(MappingKind::Hierarchical, DieMesh(waferCols * wafers, waferRows), dp, tp, wafers);
    m.blockCols_ = local.blockCols_, m.blockRows_ = local.blockRows_;
    auto onWafer = [&](uint32_t localDie, uint32_t w) {
        return m.mesh_.id(wafer.x(localDie) + w * waferCols, wafer.y(localDie));
    };
    const uint32_t dpw = dp / wafers;
    m.groups_.assign(dp, std::vector<uint32_t>(tp));
    for (uint32_t w = 0; w < wafers; ++w)
        for (uint32_t l = 0; l < dpw; ++l)
            for (uint32_t r = 0; r < tp; ++r)
                m.groups_[w * dpw + l][r] = onWafer(local.groups_[l][r], w);
    for (uint32_t w = 0; w < wafers; ++w) {
        std::vector<uint32_t> all;
        for (uint32_t d = 0; d < wafer.dies(); ++d) all.push_back(onWafer(d, w));
        m.ftds_.push_back(all);
        for (const auto& f : local.ftds_) {
            std::vector<uint32_t> lf;
            for (uint32_t d : f) lf.push_back(onWafer(d, w));
            m.localFtds_.push_back(lf);
        }
    }
    // Inter-wafer all-gather: the dies at one in-wafer position, wafer 0 .. W-1 (a line of wafers,
    // so the ring closes over W - 1 wafer widths; see docs/MOE.md).
    RingStage ag{"all-gather (inter-wafer)", {}, double(wafers - 1) / tp};
    for (uint32_t d = 0; d < wafer.dies(); ++d) {
        std::vector<uint32_t> ring;
        for (uint32_t w = 0; w < wafers; ++w) ring.push_back(onWafer(d, w));
        ag.rings.push_back(ring);
    }
    m.stages_.push_back({"reduce-scatter (intra-wafer)", m.groups_, double(tp - 1) / tp});
    m.stages_.push_back(ag);
    m.holder_.assign(wafers, std::vector<uint32_t>(size_t(dp) * tp));
    for (uint32_t g = 0; g < dp; ++g)
        for (uint32_t r = 0; r < tp; ++r)
            for (uint32_t w = 0; w < wafers; ++w)
                m.holder_[w][g * tp + r] =
                    m.mesh_.id(m.mesh_.x(m.groups_[g][r]) % waferCols + w * waferCols,
                               m.mesh_.y(m.groups_[g][r]));
    m.index();
    return m;
}

void MoeMapping::index() {
    const uint32_t n = mesh_.dies(), none = std::numeric_limits<uint32_t>::max();
    groupOf_.assign(n, none), rankOf_.assign(n, none), ftdOf_.assign(n, none);
    for (uint32_t g = 0; g < groups_.size(); ++g)
        for (uint32_t r = 0; r < groups_[g].size(); ++r) {
            const uint32_t d = groups_[g][r];
            if (d >= n || groupOf_[d] != none)
                throw std::logic_error(
                    fmt::format("{} mapping: die {} placed twice", mappingName(kind_), d));
            groupOf_[d] = g, rankOf_[d] = r;
        }
    for (uint32_t k = 0; k < ftds_.size(); ++k)
        for (uint32_t d : ftds_[k]) ftdOf_.at(d) = k;
}

uint32_t MoeMapping::waferOf(uint32_t die) const {
    return mesh_.x(die) / (mesh_.cols() / wafers_);
}

std::vector<uint32_t> MoeMapping::placement() const {
    std::vector<uint32_t> out;
    for (const auto& g : groups_) out.insert(out.end(), g.begin(), g.end());
    return out;
}

std::vector<TokenSource> MoeMapping::sourcesFor(uint32_t group, uint32_t expertDie) const {
    if (group >= dp_ || expertDie >= mesh_.dies())
        throw std::invalid_argument(
            fmt::format("{} mapping: no group {} or die {}", mappingName(kind_), group, expertDie));
    if (kind_ == MappingKind::Hierarchical) {
        std::vector<TokenSource> out;
        const uint32_t w = waferOf(expertDie);
        for (uint32_t r = 0; r < tp_; ++r) out.push_back({holder_[w][group * tp_ + r], 1.0 / tp_});
        return out;
    }
    return {{groups_[group][rankOf_[expertDie]], 1.0}};
}

std::string MoeMapping::render() const {
    std::string out;
    for (uint32_t y = 0; y < mesh_.rows(); ++y) {
        for (uint32_t x = 0; x < mesh_.cols(); ++x) {
            const uint32_t d = mesh_.id(x, y);
            out += fmt::format("{:>6}", fmt::format("{}.{}", groupOf_[d], rankOf_[d]));
        }
        out += '\n';
    }
    return out;
}

}  // namespace wsc::firmware::moe
