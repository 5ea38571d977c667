#include "firmware/moe/ExpertPlacement.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::moe {

ExpertPlacement ExpertPlacement::contiguous(uint32_t experts, uint32_t dies, uint32_t shadowSlots) {
    if (dies == 0 || experts == 0 || experts % dies)
        throw std::invalid_argument(
            fmt::format("expert placement: {} experts do not spread evenly over {} dies (E/D must "
                        "be a whole number >= 1)",
                        experts, dies));
    ExpertPlacement p;
    p.shadowSlots_ = shadowSlots;
    p.native_.assign(dies, {});
    p.shadow_.assign(dies, {});
    p.hosts_.assign(experts, {});
    const uint32_t per = experts / dies;
    for (uint32_t e = 0; e < experts; ++e) {
        p.native_[e / per].push_back(e);
        p.hosts_[e].push_back(e / per);
    }
    return p;
}

ExpertPlacement ExpertPlacement::fromNative(const std::vector<std::vector<uint32_t>>& native,
                                            uint32_t shadowSlots) {
    uint32_t experts = 0;
    for (const auto& n : native) experts += uint32_t(n.size());
    if (native.empty() || experts == 0)
        throw std::invalid_argument("expert placement: no dies or no experts");
    ExpertPlacement p;
    p.shadowSlots_ = shadowSlots;
    p.native_ = native;
    p.shadow_.assign(native.size(), {});
    p.hosts_.assign(experts, {});
    for (uint32_t d = 0; d < native.size(); ++d)
        for (uint32_t e : native[d]) {
            if (e >= experts || !p.hosts_[e].empty())
                throw std::invalid_argument(fmt::format(
                    "expert placement: expert {} on die {} is out of range (0..{}) or placed twice",
                    e, d, experts - 1));
            p.hosts_[e].push_back(d);
        }
    return p;
}

bool ExpertPlacement::hosts(uint32_t die, uint32_t expert) const {
    const auto& h = hosts_.at(expert);
    return std::find(h.begin(), h.end(), die) != h.end();
}

void ExpertPlacement::addCopy(uint32_t expert, uint32_t die) {
    if (freeSlots(die) == 0 || hosts(die, expert))
        throw std::logic_error(
            fmt::format("expert placement: cannot copy expert {} to die {} ({})", expert, die,
                        hosts(die, expert) ? "it hosts it already" : "no free shadow slot"));
    shadow_[die].push_back(expert);
    hosts_[expert].push_back(die);
}

std::vector<double> ExpertPlacement::heat(const std::vector<double>& expertLoad) const {
    if (expertLoad.size() != experts())
        throw std::invalid_argument(
            fmt::format("expert placement: {} expert loads given for {} experts", expertLoad.size(),
                        experts()));
    std::vector<double> h(dies(), 0.0);
    for (uint32_t e = 0; e < experts(); ++e)
        for (uint32_t d : hosts_[e]) h[d] += expertLoad[e] / double(hosts_[e].size());
    return h;
}

std::vector<std::vector<double>> ExpertPlacement::traffic(
    const MoeMapping& m, const std::vector<std::vector<uint32_t>>& selections) const {
    if (m.mesh().dies() != dies())
        throw std::invalid_argument(fmt::format("expert placement: {} dies, the mapping's mesh {}",
                                                dies(), m.mesh().dies()));
    const size_t tokens = selections.size();
    std::vector<std::vector<double>> t(m.dp(), std::vector<double>(dies(), 0.0));
    if (tokens == 0) return t;
    const double perGroup = double(tokens) / m.dp();
    for (size_t tok = 0; tok < tokens; ++tok) {
        const uint32_t g = uint32_t(tok * m.dp() / tokens);
        for (uint32_t e : selections[tok]) {
            const auto& h = hosts_.at(e);
            for (uint32_t d : h) t[g][d] += 1.0 / double(h.size()) / perGroup;
        }
    }
    return t;
}

}  // namespace wsc::firmware::moe
