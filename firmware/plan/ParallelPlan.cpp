#include "firmware/plan/ParallelPlan.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace wsc::firmware::plan {

namespace {

uint32_t degree(const std::string& key, const std::string& v) {
    // Plain decimal digits only: no sign, no spaces, no suffix.
    if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument(
            fmt::format("plan item '{}={}': expected a whole number >= 1", key, v));
    const unsigned long x = std::strtoul(v.c_str(), nullptr, 10);
    if (x < 1 || x > 65536)
        throw std::invalid_argument(
            fmt::format("plan item '{}={}': expected a whole number in [1, 65536]", key, v));
    return static_cast<uint32_t>(x);
}

}  // namespace

ParallelPlan ParallelPlan::parse(const std::string& text) {
    ParallelPlan p;
    if (text.empty())
        throw std::invalid_argument("plan: expected items like 'dp=2,tp=4', got an empty plan");
    std::vector<std::string> seen;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty())
            throw std::invalid_argument(
                fmt::format("plan '{}': expected items like 'tp=4' separated by commas, got an "
                            "empty item",
                            text));
        const auto eq = item.find('=');
        const std::string key = item.substr(0, eq);
        for (const auto& s : seen)
            if (s == key)
                throw std::invalid_argument(
                    fmt::format("plan '{}': '{}' is given twice", text, key));
        seen.push_back(key);
        if (key == "seqpar") {
            if (eq != std::string::npos)
                throw std::invalid_argument(
                    fmt::format("plan item '{}': seqpar is a flag and takes no value", item));
            p.seqpar = true;
            continue;
        }
        if (eq == std::string::npos)
            throw std::invalid_argument(
                fmt::format("plan item '{}': expected KEY=DEGREE (keys dp, fsdp, tp, sp, pp, ep, "
                            "tatp, mb) or the "
                            "flag seqpar",
                            item));
        const std::string v = item.substr(eq + 1);
        if (key == "dp")
            p.dp = degree(key, v);
        else if (key == "fsdp")
            p.fsdp = degree(key, v);
        else if (key == "tp")
            p.tp = degree(key, v);
        else if (key == "sp")
            p.sp = degree(key, v);
        else if (key == "pp")
            p.pp = degree(key, v);
        else if (key == "ep")
            p.ep = degree(key, v);
        else if (key == "tatp")
            p.tatp = degree(key, v);
        else if (key == "mb")
            p.micro_batches = degree(key, v);
        else
            throw std::invalid_argument(
                fmt::format("plan item '{}': unknown key '{}' (expected dp, fsdp, tp, sp, pp, ep, "
                            "tatp, mb or the "
                            "flag seqpar)",
                            item, key));
    }
    if (p.seqpar && p.tp == 1)
        throw std::invalid_argument(
            fmt::format("plan '{}': seqpar (Megatron sequence parallelism) needs tp > 1", text));
    return p;
}

std::string ParallelPlan::str() const {
    std::string s;
    auto add = [&](const char* k, uint32_t v) {
        if (v != 1) s += fmt::format("{}{}={}", s.empty() ? "" : ",", k, v);
    };
    add("dp", dp);
    add("fsdp", fsdp);
    add("tp", tp);
    add("tatp", tatp);
    add("sp", sp);
    add("pp", pp);
    add("ep", ep);
    if (micro_batches) s += fmt::format("{}mb={}", s.empty() ? "" : ",", micro_batches);
    if (seqpar) s += fmt::format("{}seqpar", s.empty() ? "" : ",");
    return s.empty() ? "dp=1" : s;
}

std::string ParallelPlan::arithmetic() const {
    std::string s;
    auto add = [&](const char* k, uint32_t v) {
        if (v != 1) s += fmt::format("{}{}={}", s.empty() ? "" : " x ", k, v);
    };
    add("dp", dp);
    add("fsdp", fsdp);
    add("tp", tp);
    add("tatp", tatp);
    add("sp", sp);
    add("pp", pp);
    if (s.empty()) s = "dp=1";
    return fmt::format("{} = {} di{}", s, dies(), dies() == 1 ? "e" : "es");
}

bool operator==(const ParallelPlan& a, const ParallelPlan& b) {
    return a.dp == b.dp && a.fsdp == b.fsdp && a.tp == b.tp && a.sp == b.sp && a.pp == b.pp &&
           a.ep == b.ep && a.tatp == b.tatp && a.seqpar == b.seqpar &&
           a.micro_batches == b.micro_batches;
}

}  // namespace wsc::firmware::plan
