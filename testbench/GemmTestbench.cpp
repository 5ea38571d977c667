#include "testbench/GemmTestbench.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>

#include "core/CoreArray.h"
#include "firmware/ProgramText.h"
#include "firmware/ShiftGemmSchedule.h"
#include "hw/HierarchyStats.h"
#include "noc/Network.h"
#include "testbench/ObservedDriver.h"

namespace wsc::tb {

double GemmResult::utilization() const {
    const double peak = double(peak_macs_per_cycle) * double(cores.size()) * double(cycles);
    return peak > 0 ? double(macs) / peak : 0.0;
}

void GemmTestbench::operands(const firmware::GemmWorkload& w, std::vector<float>& a,
                             std::vector<float>& b) {
    // Small integers: every partial sum is exact in fp32, so any summation order gives the same
    // bits and "equals the reference" can be checked exactly.
    std::mt19937_64 rng(w.seed);
    std::uniform_int_distribution<int> d(-3, 3);
    a.resize(size_t(w.m) * w.k);
    b.resize(size_t(w.k) * w.n);
    for (float& x : a) x = float(d(rng));
    for (float& x : b) x = float(d(rng));
}

std::vector<float> GemmTestbench::reference(const firmware::GemmWorkload& w) {
    std::vector<float> a, b, c(size_t(w.m) * w.n, 0.0f);
    operands(w, a, b);
    for (uint32_t i = 0; i < w.m; ++i)
        for (uint32_t j = 0; j < w.n; ++j) {
            float s = 0;
            for (uint32_t x = 0; x < w.k; ++x) s += a[size_t(i) * w.k + x] * b[size_t(x) * w.n + j];
            c[size_t(i) * w.n + j] = s;
        }
    return c;
}

namespace {
firmware::ShiftGemmSchedule makeSchedule(const noc::NocParams& np,
                                         const firmware::GemmWorkload& w) {
    if (np.topology.local_ports != 1)
        throw std::invalid_argument(
            "gemm: the core model needs topology.local_ports = 1 (one core per router)");
    return firmware::ShiftGemmSchedule(np.topology.x, np.topology.y, w);
}

void checkCapacity(const firmware::ShiftGemmSchedule& sched, uint64_t capacity) {
    if (sched.memoryBytes() > capacity)
        throw std::invalid_argument(
            fmt::format("gemm: operands need {} bytes of memory, the port has {}",
                        sched.memoryBytes(), capacity));
}
}  // namespace

firmware::Firmware GemmTestbench::plan(const hw::HardwareConfig& hw,
                                       const firmware::GemmWorkload& w) {
    const firmware::ShiftGemmSchedule sched = makeSchedule(hw.noc, w);
    checkCapacity(sched, hw.hbm ? hw.hbm->stackCapacityBytes() : hw.core.memory.capacity_bytes);
    return sched.build();
}

GemmResult GemmTestbench::run(const noc::NocParams& np, const core::CoreParams& cp_in,
                              const firmware::GemmWorkload& w, noc::NocShell& shell,
                              hw::MemorySystem& mem, const GemmRunOptions& opt) {
    core::CoreParams cp = cp_in;
    cp.functional = w.functional;
    const firmware::ShiftGemmSchedule sched = makeSchedule(np, w);
    checkCapacity(sched, cp.memory.capacity_bytes);
    noc::Network net(np, w.seed);
    core::CoreArray cores(net, cp);
    firmware::Firmware fw = sched.build();
    if (!opt.firmware_dump.empty()) firmware::ProgramText::saveFile(fw, opt.firmware_dump);
    cores.load(std::move(fw));
    if (w.memory_over_noc) {
        std::vector<std::vector<uint32_t>> nodes;
        for (uint32_t p = 0; p < mem.ports(); ++p) nodes.push_back({p % net.nodes()});
        mem.attachOverNoc(cores, shell, net, w.functional, nodes);
    } else {
        mem.attach(cores, shell, w.functional);
    }
    return execute(w, sched, net, cores, shell, mem, opt);
}

GemmResult GemmTestbench::run(hw::Wafer& wafer, const firmware::GemmWorkload& w,
                              const GemmRunOptions& opt) {
    const hw::HardwareConfig& hw = wafer.config();
    core::CoreParams cp = hw.core;
    cp.functional = w.functional;
    const firmware::ShiftGemmSchedule sched = makeSchedule(hw.noc, w);
    if (!hw.hbm) throw std::invalid_argument("gemm on a wafer: the hardware has no hbm: section");
    checkCapacity(sched, hw.hbm->stackCapacityBytes());
    noc::Network& net = wafer.buildNetwork(w.seed);
    core::CoreArray& cores = wafer.buildCores(cp);
    firmware::Firmware fw = sched.build();
    if (!opt.firmware_dump.empty()) firmware::ProgramText::saveFile(fw, opt.firmware_dump);
    cores.load(std::move(fw));
    wafer.attachMemory(w.functional, w.memory_over_noc);
    GemmResult r = execute(w, sched, net, cores, wafer.shell(), wafer, opt);
    if (opt.stats) hw::HierarchyStats::dump(wafer, (*opt.stats)["wafer"]);
    return r;
}

GemmResult GemmTestbench::execute(const firmware::GemmWorkload& w,
                                  const firmware::ShiftGemmSchedule& sched, noc::Network& net,
                                  core::CoreArray& cores, noc::NocShell& shell,
                                  hw::MemoryPorts& mem, const GemmRunOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    const uint32_t P = sched.p(), tm = sched.tileM(), tk = sched.tileK(), tn = sched.tileN();
    if (w.functional) {
        // Every port holds all A and B tiles: a core loads them from whichever port it uses.
        std::vector<float> a, b;
        operands(w, a, b);
        std::vector<float> tile;
        for (uint32_t port = 0; port < mem.ports(); ++port) {
            for (uint32_t bi = 0; bi < P; ++bi)
                for (uint32_t bk = 0; bk < P; ++bk) {
                    tile.clear();
                    for (uint32_t r = 0; r < tm; ++r)
                        for (uint32_t x = 0; x < tk; ++x)
                            tile.push_back(a[size_t(bi * tm + r) * w.k + bk * tk + x]);
                    mem.hostWrite(port, sched.aTile(bi, bk), tile.data(), tile.size() * 4);
                }
            for (uint32_t bk = 0; bk < P; ++bk)
                for (uint32_t bj = 0; bj < P; ++bj) {
                    tile.clear();
                    for (uint32_t x = 0; x < tk; ++x)
                        for (uint32_t cc = 0; cc < tn; ++cc)
                            tile.push_back(b[size_t(bk * tk + x) * w.n + bj * tn + cc]);
                    mem.hostWrite(port, sched.bTile(bk, bj), tile.data(), tile.size() * 4);
                }
        }
    }

    ObservedDriver observed(cores, opt.observers, net, &cores);
    const uint64_t last = opt.observers.empty() ? shell.run(net, cores) : shell.run(net, observed);
    cores.finish(last);
    observed.finish(last);
    net.checkConservation();

    GemmResult r;
    r.cycles = last + 1;
    r.p = P, r.tile_m = tm, r.tile_k = tk, r.tile_n = tn;
    r.peak_macs_per_cycle = cores.peakMacsPerCycle();
    r.sram_bytes_per_core = sched.sramBytes();
    r.evaluations = cores.evaluations();
    r.memory_transactions = mem.transactions();
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            const uint32_t id = sched.core(i, j);
            r.cores.push_back(id);
            r.names.push_back(cores.name(id));
            r.stats.push_back(cores.core(id).stats());
            r.macs += cores.core(id).stats().macs;
        }
    if (w.functional) {
        r.c.assign(size_t(w.m) * w.n, 0.0f);
        std::vector<float> tile(size_t(tm) * tn);
        for (uint32_t bi = 0; bi < P; ++bi)
            for (uint32_t bj = 0; bj < P; ++bj) {
                mem.hostRead(mem.portOfCore(sched.core(bi, bj)), sched.cTile(bi, bj), tile.data(),
                             tile.size() * 4);
                for (uint32_t x = 0; x < tm; ++x)
                    for (uint32_t y = 0; y < tn; ++y)
                        r.c[size_t(bi * tm + x) * w.n + bj * tn + y] = tile[size_t(x) * tn + y];
            }
        const std::vector<float> ref = reference(w);
        r.checked = true;
        r.correct = true;
        for (size_t i = 0; i < ref.size(); ++i) {
            r.max_abs_error = std::max(r.max_abs_error, double(std::fabs(ref[i] - r.c[i])));
            r.correct &= ref[i] == r.c[i];
        }
    }
    if (opt.stats) {
        nlohmann::json& j = *opt.stats;
        cores.dumpStats(j["cores"]);
        net.dumpStats(j["noc"]);
        j["gemm"] = {{"m", w.m},
                     {"k", w.k},
                     {"n", w.n},
                     {"mesh", P},
                     {"cycles", r.cycles},
                     {"utilization", r.utilization()},
                     {"functional", w.functional},
                     {"checked", r.checked},
                     {"correct", r.correct},
                     {"max_abs_error", r.max_abs_error},
                     {"memory_path", w.memory_over_noc ? "noc" : "direct"}};
    }
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

void GemmTestbench::printReport(std::ostream& os, const firmware::GemmWorkload& w,
                                const GemmResult& r) {
    fmt::print(os,
               "gemm {}x{}x{} on a {}x{} core block: tiles {}x{}x{}, {} bytes of SRAM per core\n",
               w.m, w.k, w.n, r.p, r.p, r.tile_m, r.tile_k, r.tile_n, r.sram_bytes_per_core);
    fmt::print(os, "  cycles              {}\n", r.cycles);
    fmt::print(os, "  utilization         {:.1f}% of peak ({} MACs, {} MACs/cycle per core)\n",
               100 * r.utilization(), r.macs, r.peak_macs_per_cycle);
    if (r.checked)
        fmt::print(os, "  result              {} (max |C - reference| = {:g})\n",
                   r.correct ? "equals the reference GEMM" : "DIFFERS from the reference GEMM",
                   r.max_abs_error);
    else
        fmt::print(os, "  result              not checked (timing-only mode)\n");
    fmt::print(os, "  wall time           {:.3f} s, {} core evaluations, {} memory transactions\n",
               r.wall_seconds, r.evaluations, r.memory_transactions);
    fmt::print(os,
               "\n  {:<14} {:>6} {:>7} {:>7} | stall: {:>6} {:>7} {:>5} {:>6} {:>6} {:>6} {:>5} | "
               "{:>7} {:>8} {:>8}\n",
               "core", "util", "busy", "idle", "data", "credits", "sram", "pe", "vector", "dma",
               "sync", "MACs", "bytes in", "bytes out");
    for (size_t i = 0; i < r.cores.size(); ++i) {
        const core::CoreStats& s = r.stats[i];
        auto st = [&](core::StallCause c) { return s.stall[static_cast<size_t>(c)]; };
        fmt::print(os,
                   "  {:<14} {:>5.1f}% {:>7} {:>7} |        {:>6} {:>7} {:>5} {:>6} {:>6} {:>6} "
                   "{:>5} | {:>7} {:>8} {:>8}\n",
                   r.names[i], 100 * s.utilization(r.peak_macs_per_cycle, s.cycles()), s.busy,
                   s.idle, st(core::StallCause::Data), st(core::StallCause::Credits),
                   st(core::StallCause::Sram), st(core::StallCause::Pe),
                   st(core::StallCause::Vector), st(core::StallCause::Dma),
                   st(core::StallCause::Sync), s.macs, s.bytes_in, s.bytes_out);
    }
}

}  // namespace wsc::tb
