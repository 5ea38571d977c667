#include "testbench/FirmwareTestbench.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>

#include "core/CoreArray.h"
#include "hw/MemorySystem.h"
#include "noc/Network.h"
#include "noc/NocShell.h"

namespace wsc::tb {

bool FirmwareResult::correct() const {
    return unmatched.empty() && std::all_of(checks.begin(), checks.end(),
                                            [](const Check& c) { return c.mismatched == 0; });
}

FirmwareResult FirmwareTestbench::run(const hw::ScenarioConfig& sc, noc::NocShell& shell,
                                      nlohmann::json* stats) {
    const firmware::FirmwareWorkload& w = sc.firmware;
    core::CoreParams cp = sc.core;
    cp.functional = w.functional;
    hw::MemorySystem mem(cp, sc.noc.clock_hz);
    noc::Network net(sc.noc, 1);
    core::CoreArray cores(net, cp);
    cores.load(*w.fw);
    mem.attach(cores, shell, w.functional);
    for (const auto& in : w.init) {
        float* b = cores.core(in.core).buffer(in.buffer);
        const uint64_t n =
            w.fw->program(in.core).buffer(w.fw->program(in.core).findBuffer(in.buffer)).elems;
        std::fill(b, b + n, in.has_fill ? in.fill : 0.0f);
        std::copy(in.values.begin(), in.values.end(), b);
    }
    const uint64_t last = shell.run(net, cores);
    cores.finish(last);
    net.checkConservation();

    FirmwareResult r;
    r.cycles = last + 1;
    for (uint32_t c = 0; c < w.fw->cores(); ++c) {
        if (w.fw->program(c).empty()) continue;
        r.cores.push_back(
            {c, cores.name(c), cores.core(c).stats(), uint64_t(w.fw->program(c).code().size())});
    }
    for (uint32_t c = 0; c < w.fw->cores(); ++c) {
        const core::Mailbox& mb = cores.core(c).mailbox();
        if (mb.unmatched() == 0) continue;
        FirmwareResult::Unmatched u{c, mb.unmatched(), 0};
        for (const auto& a : mb.arrivals()) u.bytes += a.bytes;
        r.unmatched.push_back(u);
    }
    for (const auto& ex : w.expect) {
        FirmwareResult::Check k;
        k.core = ex.core;
        k.buffer = ex.buffer;
        const float* b = cores.core(ex.core).buffer(ex.buffer);
        for (size_t i = 0; i < ex.values.size(); ++i) {
            const double err = std::fabs(double(b[i]) - double(ex.values[i]));
            ++k.compared;
            k.max_abs_error = std::max(k.max_abs_error, err);
            if (!(err <= w.tolerance)) {  // NaN never passes
                if (k.mismatched++ == 0) k.first_bad = i, k.got = b[i], k.want = ex.values[i];
            }
        }
        r.checks.push_back(k);
    }
    if (stats) {
        nlohmann::json& j = *stats;
        cores.dumpStats(j["cores"]);
        net.dumpStats(j["noc"]);
        nlohmann::json checks = nlohmann::json::array();
        for (const auto& k : r.checks)
            checks.push_back({{"core", k.core},
                              {"buffer", k.buffer},
                              {"compared", k.compared},
                              {"mismatched", k.mismatched},
                              {"max_abs_error", k.max_abs_error}});
        j["firmware"] = {{"path", w.path},
                         {"cycles", r.cycles},
                         {"functional", w.functional},
                         {"checks", checks},
                         {"unmatched_messages",
                          [&] {
                              size_t n = 0;
                              for (const auto& u : r.unmatched) n += u.messages;
                              return n;
                          }()},
                         {"correct", r.correct()}};
    }
    return r;
}

void FirmwareTestbench::printReport(std::ostream& os, const hw::ScenarioConfig& sc,
                                    const FirmwareResult& r) {
    const auto& w = sc.firmware;
    fmt::print(os, "firmware {}: {} programs on a {}x{} NoC\n", w.path, r.cores.size(),
               sc.noc.topology.x, sc.noc.topology.y);
    fmt::print(os, "  cycles              {}\n", r.cycles);
    for (const auto& c : r.cores)
        fmt::print(os,
                   "  {:<18}  finished at cycle {}, {} instructions in its program, {} issued, "
                   "{} MACs, {} B sent, {} B received\n",
                   c.name, c.stats.finish_cycle, c.instructions, c.stats.instructions, c.stats.macs,
                   c.stats.bytes_out, c.stats.bytes_in);
    for (const auto& k : r.checks) {
        if (k.mismatched == 0)
            fmt::print(os,
                       "  check core {} {}: {} values match (max |error| {:g}, tolerance {:g})\n",
                       k.core, k.buffer, k.compared, k.max_abs_error, w.tolerance);
        else
            fmt::print(os,
                       "  check core {} {}: {} of {} values differ; first at element {}: got {:g}, "
                       "expected {:g} (tolerance {:g})\n",
                       k.core, k.buffer, k.mismatched, k.compared, k.first_bad, k.got, k.want,
                       w.tolerance);
    }
    for (const auto& u : r.unmatched)
        fmt::print(os,
                   "  unmatched           core {}: {} message(s), {} B, arrived and no recv took "
                   "them (a send without its recv)\n",
                   u.core, u.messages, u.bytes);
    if (!r.checks.empty() || !r.unmatched.empty())
        fmt::print(os, "  result              {}\n", r.correct() ? "correct" : "WRONG");
}

}  // namespace wsc::tb
