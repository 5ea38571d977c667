#include "firmware/plan/RankGrid.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::plan {

const char* dimName(Dim d) {
    switch (d) {
        case Dim::TP:
            return "tp";
        case Dim::TATP:
            return "tatp";
        case Dim::SP:
            return "sp";
        case Dim::FSDP:
            return "fsdp";
        case Dim::DP:
            return "dp";
        case Dim::PP:
            return "pp";
    }
    return "?";
}

uint32_t RankCoord::get(Dim d) const {
    switch (d) {
        case Dim::TP:
            return tp;
        case Dim::TATP:
            return tatp;
        case Dim::SP:
            return sp;
        case Dim::FSDP:
            return fsdp;
        case Dim::DP:
            return dp;
        case Dim::PP:
            return pp;
    }
    return 0;
}

void RankCoord::set(Dim d, uint32_t v) {
    switch (d) {
        case Dim::TP:
            tp = v;
            break;
        case Dim::TATP:
            tatp = v;
            break;
        case Dim::SP:
            sp = v;
            break;
        case Dim::FSDP:
            fsdp = v;
            break;
        case Dim::DP:
            dp = v;
            break;
        case Dim::PP:
            pp = v;
            break;
    }
}

RankGrid::RankGrid(const ParallelPlan& p) : p_(p) {
    if (p.dies() == 0 || p.dies() > (1u << 24))
        throw std::invalid_argument(
            fmt::format("plan {} needs an impossible number of dies", p.arithmetic()));
    if (p.ep > 1 && p.stageRanks() % p.ep != 0)
        throw std::invalid_argument(
            fmt::format("plan {}: ep={} must divide the {} ranks of a pipeline stage", p.str(),
                        p.ep, p.stageRanks()));
}

uint32_t RankGrid::size(Dim d) const {
    switch (d) {
        case Dim::TP:
            return p_.tp;
        case Dim::TATP:
            return p_.tatp;
        case Dim::SP:
            return p_.sp;
        case Dim::FSDP:
            return p_.fsdp;
        case Dim::DP:
            return p_.dp;
        case Dim::PP:
            return p_.pp;
    }
    return 1;
}

RankCoord RankGrid::coord(uint32_t r) const {
    RankCoord c;
    c.tp = r % p_.tp, r /= p_.tp;
    c.tatp = r % p_.tatp, r /= p_.tatp;
    c.sp = r % p_.sp, r /= p_.sp;
    c.fsdp = r % p_.fsdp, r /= p_.fsdp;
    c.dp = r % p_.dp, r /= p_.dp;
    c.pp = r;
    return c;
}

uint32_t RankGrid::rank(const RankCoord& c) const {
    return ((((c.pp * p_.dp + c.dp) * p_.fsdp + c.fsdp) * p_.sp + c.sp) * p_.tatp + c.tatp) *
               p_.tp +
           c.tp;
}

std::vector<uint32_t> RankGrid::group(uint32_t r, std::initializer_list<Dim> dims) const {
    RankCoord c = coord(r);
    uint64_t total = 1;
    for (Dim d : dims) total *= size(d);
    std::vector<uint32_t> out;
    out.reserve(total);
    for (uint64_t i = 0; i < total; ++i) {
        uint64_t x = i;  // mixed radix, the first listed dimension fastest
        for (Dim d : dims) {
            c.set(d, static_cast<uint32_t>(x % size(d)));
            x /= size(d);
        }
        out.push_back(rank(c));
    }
    return out;
}

std::vector<std::vector<uint32_t>> RankGrid::groups(std::initializer_list<Dim> dims) const {
    std::vector<std::vector<uint32_t>> out;
    std::vector<uint8_t> done(ranks(), 0);
    for (uint32_t r = 0; r < ranks(); ++r) {
        if (done[r]) continue;
        auto g = group(r, dims);
        for (uint32_t x : g) done[x] = 1;
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<uint32_t> RankGrid::stage(uint32_t s) const {
    std::vector<uint32_t> out;
    const uint32_t n = static_cast<uint32_t>(p_.stageRanks());
    for (uint32_t i = 0; i < n; ++i) out.push_back(s * n + i);
    return out;
}

std::vector<uint32_t> RankGrid::epGroup(uint32_t r) const {
    const uint32_t n = static_cast<uint32_t>(p_.stageRanks());
    const uint32_t in_stage = r % n, first = r - in_stage + in_stage / p_.ep * p_.ep;
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < p_.ep; ++i) out.push_back(first + i);
    return out;
}

}  // namespace wsc::firmware::plan
