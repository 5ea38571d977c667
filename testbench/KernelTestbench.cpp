#include "testbench/KernelTestbench.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <random>
#include <stdexcept>

#include "core/CoreArray.h"
#include "firmware/GemvSchedule.h"
#include "firmware/LoopUnroller.h"
#include "firmware/ProgramText.h"
#include "firmware/RectRingGemmSchedule.h"
#include "firmware/RingGemmSchedule.h"
#include "firmware/RingGemmTSchedule.h"
#include "firmware/RoutePlanner.h"
#include "firmware/SummaGemmSchedule.h"
#include "firmware/waferllm/DecodeAttentionSchedule.h"
#include "firmware/waferllm/KvReplacement.h"
#include "firmware/waferllm/PrefillLayerSchedule.h"
#include "firmware/waferllm/WeightReplacement.h"
#include "hw/EnergyModel.h"
#include "noc/Network.h"
#include "testbench/ObservedDriver.h"
#include "testbench/PhaseSplit.h"
#include "testbench/ProgressLine.h"

namespace wsc::tb {

namespace {

// The kernel occupies a P x Q block of cores. On a one-die config the config supplies router,
// link and core parameters and the kernel the extent. On a config of several dies the block is
// laid onto its dies from the top-left core: the network is the whole dies that block covers,
// with the config's die size and pitches, so a neighbour across a die edge is a D2D link with
// its latency, bandwidth and FEC (by length). A block larger than the wafer is refused.
noc::NocParams kernelNoc(const noc::NocParams& np, uint32_t p, uint32_t cols) {
    noc::NocParams q = np;
    const noc::TopologyParams& t = np.topology;
    const uint32_t dx = t.die_x ? t.die_x : t.x, dy = t.die_y ? t.die_y : t.y;
    if (dx < t.x || dy < t.y) {
        if (cols > t.x || p > t.y)
            throw std::invalid_argument(fmt::format(
                "kernel: a {}x{} core mesh does not fit the config's {}x{} cores ({}x{} dies of "
                "{}x{} cores); use a mesh of at most {}x{}",
                p, cols, t.y, t.x, t.y / dy, t.x / dx, dy, dx, t.y, t.x));
        q.topology.x = (cols + dx - 1) / dx * dx;
        q.topology.y = (p + dy - 1) / dy * dy;
        q.topology.die_x = dx, q.topology.die_y = dy;
    } else {
        q.topology.y = p, q.topology.x = cols;
        q.topology.die_x = q.topology.die_y = 0;
    }
    q.topology.local_ports = 1;
    q.topology.wrap = false;
    q.faults = {};
    q.rtl_routers.clear();
    return q;
}

firmware::KernelPlan makePlan(const KernelSpec& s, noc::Network& net) {
    const uint32_t X = net.topology().routers() ? net.params().topology.x : 0,
                   Y = net.params().topology.y;
    const uint32_t Q = KernelTestbench::cols(s);
    if (Q != s.p) {
        // Non-square: K is cut into lcm(P, Q) blocks (WaferLLM Sec. 5.4) for the shift and
        // broadcast GEMMs; GEMV's columns reduce independently and need no rule.
        if (s.op == "gemm" && (s.algo == "meshgemm" || s.algo == "cannon")) {
            if (s.shift_align)
                throw std::invalid_argument(fmt::format(
                    "kernel gemm {}: --shift-align needs a square mesh (a {}x{} mesh is aligned "
                    "by placement only)",
                    s.algo, s.p, Q));
            return firmware::RectRingGemmSchedule(s.algo == "meshgemm"
                                                      ? firmware::RingOrder::Kind::Interleave
                                                      : firmware::RingOrder::Kind::Linear,
                                                  X, Y, s.p, Q, s.m, s.k, s.n)
                .build(net);
        }
        if (s.op == "gemm" && s.algo == "meshgemm-t")
            throw std::invalid_argument(fmt::format(
                "kernel gemm meshgemm-t: needs a square mesh, got {}x{}: B's N-blocks move along "
                "the columns ({} of them) while C's sit along the rows ({}), and no lcm form of "
                "dist-GEMM-T is implemented",
                s.p, Q, s.p, Q));
        if (s.op == "gemm" && (s.algo == "summa" || s.algo == "allgather"))
            return firmware::SummaGemmSchedule(X, Y, s.p, Q, s.m, s.k, s.n, s.algo == "allgather")
                .build(net);
    }
    if (s.op == "gemm") {
        if (s.algo == "meshgemm" || s.algo == "cannon")
            return firmware::RingGemmSchedule(s.algo == "meshgemm"
                                                  ? firmware::RingOrder::Kind::Interleave
                                                  : firmware::RingOrder::Kind::Linear,
                                              X, Y, s.p, s.m, s.k, s.n, s.shift_align)
                .build(net);
        if (s.algo == "meshgemm-t")
            return firmware::RingGemmTSchedule(X, Y, s.p, s.m, s.k, s.n, s.tree_k).build(net);
        if (s.algo == "summa" || s.algo == "allgather")
            return firmware::SummaGemmSchedule(X, Y, s.p, s.p, s.m, s.k, s.n, s.algo == "allgather")
                .build(net);
    } else if (s.op == "gemv") {
        using A = firmware::GemvSchedule::Allreduce;
        const A a = s.algo == "meshgemv" ? A::KTree : s.algo == "pipeline" ? A::Pipeline : A::Ring;
        if (s.algo == "meshgemv" || s.algo == "pipeline" || s.algo == "ring")
            return firmware::GemvSchedule(a, X, Y, s.p, KernelTestbench::cols(s), s.k, s.n,
                                          s.tree_k, s.broadcast)
                .build(net);
    } else if (s.op == "attention") {
        if (s.algo == "shift" || s.algo == "concat") {
            firmware::waferllm::DecodeAttentionSchedule::Spec a;
            a.mesh_x = X, a.mesh_y = Y, a.rows = s.p, a.cols = KernelTestbench::cols(s);
            a.head_dim = s.k, a.q_heads = s.m;
            a.policy = firmware::waferllm::KvCache::parse(s.algo);
            a.prompt = s.prompt, a.generated = s.generated, a.tree_k = s.tree_k;
            a.sram_bytes = s.sram_bytes, a.functional = s.functional, a.seed = s.seed;
            return firmware::waferllm::DecodeAttentionSchedule(a).build(net);
        }
    } else if (s.op == "decode") {
        if (s.algo == "shift" || s.algo == "concat") {
            firmware::waferllm::DecodeLayerSchedule::Spec d;
            d.mesh_x = X, d.mesh_y = Y, d.rows = s.p, d.cols = KernelTestbench::cols(s);
            d.layer = s.layer, d.layers = s.layers;
            d.policy = firmware::waferllm::KvCache::parse(s.algo);
            d.prompt = s.prompt, d.generated = s.generated, d.tree_k = s.tree_k;
            d.sram_bytes = s.sram_bytes, d.functional = s.functional, d.seed = s.seed;
            d.data = s.decode_data;
            return firmware::waferllm::DecodeLayerSchedule(d).build(net);
        }
    } else if (s.op == "kv-replace") {
        if (s.algo == "shift" || s.algo == "concat") {
            if (s.prompt > UINT32_MAX)
                throw std::invalid_argument("kernel kv-replace: the prompt does not fit 32 bits");
            firmware::waferllm::KvReplacement::Spec d;
            d.mesh_x = X, d.mesh_y = Y, d.p = std::min(s.p, KernelTestbench::cols(s));
            d.rows = s.p, d.cols = KernelTestbench::cols(s);
            d.layer = s.layer, d.layers = s.layers, d.prompt = uint32_t(s.prompt);
            d.policy = firmware::waferllm::KvCache::parse(s.algo);
            d.functional = s.functional, d.seed = s.seed, d.data = s.decode_data;
            return firmware::waferllm::KvReplacement(d).build(net);
        }
    } else if (s.op == "weight-replace") {
        if (s.algo == "shift") {
            if (s.prompt > UINT32_MAX)
                throw std::invalid_argument(
                    "kernel weight-replace: the prompt does not fit 32 bits");
            firmware::waferllm::WeightReplacement::Spec d;
            d.mesh_x = X, d.mesh_y = Y, d.p = std::min(s.p, KernelTestbench::cols(s));
            d.rows = s.p, d.cols = KernelTestbench::cols(s);
            d.layer = s.layer, d.layers = s.layers, d.prompt = uint32_t(s.prompt);
            d.functional = s.functional, d.seed = s.seed, d.data = s.decode_data;
            return firmware::waferllm::WeightReplacement(d).build(net);
        }
    } else if (s.op == "prefill") {
        if (s.algo == "meshgemm") {
            if (KernelTestbench::cols(s) != s.p)
                throw std::invalid_argument(fmt::format(
                    "kernel prefill: the prefill runs on a square P x P block (MeshGEMM), not "
                    "{}x{}",
                    s.p, KernelTestbench::cols(s)));
            if (s.prompt > UINT32_MAX)
                throw std::invalid_argument("kernel prefill: the prompt does not fit 32 bits");
            firmware::waferllm::PrefillLayerSchedule::Spec d;
            d.mesh_x = X, d.mesh_y = Y, d.p = s.p;
            d.layer = s.layer, d.layers = s.layers, d.prompt = uint32_t(s.prompt);
            d.tree_k = s.tree_k, d.sram_bytes = s.sram_bytes, d.functional = s.functional;
            d.seed = s.seed, d.data = s.decode_data, d.product_attention = s.product_attention;
            return firmware::waferllm::PrefillLayerSchedule(d).build(net);
        }
    } else {
        throw std::invalid_argument(fmt::format(
            "kernel: unknown operation '{}' (expected gemm, gemv, attention, decode, prefill, "
            "kv-replace or weight-replace)",
            s.op));
    }
    std::string names;
    for (const auto& a : KernelTestbench::algorithms(s.op))
        names += (names.empty() ? "" : ", ") + a;
    throw std::invalid_argument(
        fmt::format("kernel {}: unknown algorithm '{}' (expected one of {})", s.op, s.algo, names));
}

void operands(const KernelSpec& s, std::vector<float>& a, std::vector<float>& b) {
    // Small integers: every partial sum is exact in fp32, so any reduction order gives the same
    // bits and the check can be exact.
    std::mt19937_64 rng(s.seed);
    std::uniform_int_distribution<int> d(-3, 3);
    const uint32_t m = s.op == "gemv" ? 1 : s.m;
    a.resize(size_t(m) * s.k);
    b.resize(size_t(s.k) * s.n);
    for (float& x : a) x = float(d(rng));
    for (float& x : b) x = float(d(rng));
}

}  // namespace

std::string KernelTestbench::meshName(const KernelSpec& s) {
    return s.q && s.q != s.p ? fmt::format("{}x{}", s.p, s.q) : std::to_string(s.p);
}

bool KernelTestbench::transB(const KernelSpec& s) {
    return s.op == "gemm" && s.algo == "meshgemm-t";
}

bool KernelTestbench::known(const std::string& op, const std::string& algo) {
    const auto& v = algorithms(op);
    return std::find(v.begin(), v.end(), algo) != v.end() || (op == "gemm" && algo == "meshgemm-t");
}

const std::vector<std::string>& KernelTestbench::algorithms(const std::string& op) {
    static const std::vector<std::string> gemm{"meshgemm", "cannon", "summa", "allgather"};
    static const std::vector<std::string> gemv{"meshgemv", "pipeline", "ring"};
    static const std::vector<std::string> attention{"shift", "concat"};
    static const std::vector<std::string> prefill{"meshgemm"};
    if (op == "prefill") return prefill;
    if (op == "gemm") return gemm;
    if (op == "gemv") return gemv;
    static const std::vector<std::string> weights{"shift"};
    if (op == "weight-replace") return weights;
    if (op == "attention" || op == "decode" || op == "kv-replace") return attention;
    throw std::invalid_argument(fmt::format(
        "kernel: unknown operation '{}' (expected gemm, gemv, attention, decode, prefill, "
        "kv-replace or weight-replace)",
        op));
}

noc::NocParams KernelTestbench::meshNoc(const noc::NocParams& np, const KernelSpec& s) {
    return kernelNoc(np, s.p, cols(s));
}

firmware::KernelPlan KernelTestbench::plan(const noc::NocParams& np, const KernelSpec& s) {
    noc::Network net(kernelNoc(np, s.p, cols(s)), s.seed);
    return makePlan(s, net);
}

uint64_t KernelTestbench::pathCycles(const noc::Network& net, const core::CoreParams& cp,
                                     const firmware::CriticalPath& p) {
    if (p.stages == 0) return 0;
    if (!p.legs.empty()) {
        // Each stage a whole message core to core at zero load on the actual links (D2D and
        // FEC included), every stage after the first behind a software forward.
        return firmware::RoutePlanner::zeroLoadCycles(net, p) +
               uint64_t(p.stages - 1) * cp.relay_cycles;
    }
    const noc::NocParams& np = net.params();
    const uint64_t flits = std::max<uint64_t>(1, (p.bytes + np.flit_bytes - 1) / np.flit_bytes);
    const uint64_t per_hop = np.router.hopCycles() + np.link.latency;
    // Each stage: out of the core, through its router, hops, into the next core; the message
    // must have arrived whole before the next stage (a core forwards whole messages).
    const uint64_t stage_fixed =
        2 * uint64_t(np.local_link.latency) + np.router.hopCycles() + flits - 1;
    return p.hops * per_hop + p.stages * stage_fixed + uint64_t(p.stages - 1) * cp.relay_cycles;
}

KernelResult KernelTestbench::run(const noc::NocParams& np_in, const core::CoreParams& cp_in,
                                  const KernelSpec& s, const KernelRunOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    if (s.p == 0) throw std::invalid_argument("kernel: --mesh must be at least 1");
    const noc::NocParams np = kernelNoc(np_in, s.p, cols(s));
    core::CoreParams cp = cp_in;
    cp.functional = s.functional;
    noc::Network net(np, s.seed);
    KernelSpec ps = s;  // the attention schedule checks its buffers against the core's SRAM
    if (!ps.sram_bytes) ps.sram_bytes = cp.sram.capacity_bytes;
    firmware::KernelPlan plan = makePlan(ps, net);
    if (s.unroll) plan.fw = firmware::LoopUnroller::unroll(plan.fw);
    if (!opt.firmware_text.empty()) firmware::ProgramText::saveFile(plan.fw, opt.firmware_text);
    core::CoreArray cores(net, cp);
    cores.load(std::move(plan.fw));

    std::vector<float> a, b;
    const uint32_t m = s.op == "gemv" ? 1 : s.m;
    if (s.functional && !plan.preset.empty()) {
        // A kernel that made its own operands (decode attention).
        for (const auto& v : plan.preset) {
            float* d = cores.core(v.core).buffer(v.buffer);
            if (!d) throw std::logic_error("kernel: preset names a missing buffer " + v.buffer);
            std::copy(v.v.begin(), v.v.end(), d);
        }
    } else if (s.functional) {
        operands(s, a, b);
        auto place = [&](const std::vector<firmware::TilePlacement>& ts,
                         const std::vector<float>& mat, uint32_t cols) {
            for (const auto& t : ts) {
                float* d = cores.core(t.core).buffer(t.buffer);
                if (!d)
                    throw std::logic_error("kernel: placement names a missing buffer " + t.buffer);
                for (uint32_t r = 0; r < t.rows; ++r)
                    for (uint32_t c = 0; c < t.cols; ++c)
                        d[size_t(r) * t.rowStride() + c] =
                            mat[size_t(t.row0 + r) * cols + t.col0 + c];
            }
        };
        place(plan.a, a, s.k);
        place(plan.b, b, transB(s) ? s.k : s.n);  // B^T kernels: B is stored [n x k]
    }

    std::unique_ptr<ProgressLine> progress;
    if (s.progress)
        progress = std::make_unique<ProgressLine>([&cores, &net](uint64_t) {
            return fmt::format("{}/{} cores done, {} flits in flight", cores.finishedCores(),
                               cores.cores(), net.flitsInNetwork());
        });
    std::function<void(uint64_t)> tick;
    if (progress) tick = [p = progress.get()](uint64_t c) { p->tick(c); };
    // Observers see the run through a wrapper driver; without them the loop calls the cores
    // directly, so a run with no outputs pays nothing for them.
    ObservedDriver observed(cores, opt.observers, net, &cores);
    std::unique_ptr<PhaseSplit> phases;
    if (!plan.phases.empty()) phases = std::make_unique<PhaseSplit>(cores, plan);
    const uint64_t last = opt.observers.empty() ? cores.run(noc::kNever, tick)
                                                : cores.run(noc::kNever, observed, tick);
    if (progress) progress->clear();
    cores.finish(last);
    observed.finish(last);
    net.checkConservation();

    KernelResult r;
    r.spec = s;
    r.notes = plan.notes;
    // The kernel is over when its last core retires its last instruction (the result is in
    // SRAM); the network may still be returning credits (a D2D credit takes the link's latency).
    r.cycles = cores.lastFinish() + 1;
    r.clock_hz = np.clock_hz;
    if (phases) r.phase_cycles = phases->split(r.cycles);
    r.useful_macs = plan.useful_macs;
    r.peak_macs_per_cycle = cores.peakMacsPerCycle();
    r.routes_per_core = plan.routes_per_core;
    r.direct_routes = plan.direct_routes, r.relayed_paths = plan.relayed_paths;
    r.rejected_multicasts = plan.rejected_multicasts;
    r.steps = plan.steps;
    r.step_path = plan.step_path, r.total_path = plan.total_path;
    r.step_path_cycles = pathCycles(net, cp, plan.step_path);
    r.evaluations = cores.evaluations();
    for (uint32_t id : plan.cores) {
        const core::Core& c = cores.core(id);
        const core::CoreStats& st = c.stats();
        r.macs += st.macs;
        r.compute_cycles = std::max(r.compute_cycles, st.pe_busy + st.vector_busy);
        r.sram_bytes = std::max(r.sram_bytes, c.sram().peak());
        r.sram_buffer_bytes = std::max(r.sram_buffer_bytes, c.sram().used());
        r.relays += st.relays, r.relay_cycles += st.relay_cycles;
        const firmware::Program& prog = cores.firmware().program(id);
        r.program_instructions = std::max<uint64_t>(r.program_instructions, prog.code().size());
        r.program_bytes = std::max(r.program_bytes, prog.codeBytes());
    }
    r.exposed_comm = r.cycles > r.compute_cycles ? r.cycles - r.compute_cycles : 0;
    const double peak =
        double(r.peak_macs_per_cycle) * double(plan.cores.size()) * double(r.cycles);
    r.efficiency = peak > 0 ? double(r.useful_macs) / peak : 0;

    // Energy: every core and link of the mesh, priced as in every other run (no HBM: the
    // operands sit in SRAM and nothing uses a memory port).
    r.events.cycles = r.cycles;
    hw::EnergyModel::countNetwork(r.events, net);
    for (uint32_t id = 0; id < cores.cores(); ++id)
        hw::EnergyModel::countCore(r.events, cores.core(id).stats());
    r.energy = hw::EnergyModel(np, opt.energy, std::nullopt).evaluate(r.events);

    if (s.functional && !plan.expect.empty()) {
        r.checked = true, r.correct = true;
        for (const auto& v : plan.expect) {
            const float* d = cores.core(v.core).buffer(v.buffer);
            if (!d) throw std::logic_error("kernel: expected values name a missing buffer");
            for (size_t i = 0; i < v.v.size(); ++i) {
                const double e = std::fabs(double(d[i]) - double(v.v[i]));
                r.max_abs_error = std::max(r.max_abs_error, e);
                r.correct &= e <= plan.tolerance;
            }
        }
    } else if (s.functional) {
        std::vector<float> ref(size_t(m) * s.n, 0.0f);
        for (uint32_t i = 0; i < m; ++i)
            for (uint32_t x = 0; x < s.k; ++x) {
                const float av = a[size_t(i) * s.k + x];
                for (uint32_t j = 0; j < s.n; ++j)
                    ref[size_t(i) * s.n + j] +=
                        av * (transB(s) ? b[size_t(j) * s.k + x] : b[size_t(x) * s.n + j]);
            }
        std::vector<uint8_t> covered(ref.size(), 0);
        r.checked = true, r.correct = true;
        for (const auto& t : plan.c) {
            const float* d = cores.core(t.core).buffer(t.buffer);
            for (uint32_t i = 0; i < t.rows; ++i)
                for (uint32_t j = 0; j < t.cols; ++j) {
                    const size_t at = size_t(t.row0 + i) * s.n + t.col0 + j;
                    const float v = d[size_t(i) * t.rowStride() + j];
                    r.max_abs_error = std::max(r.max_abs_error, double(std::fabs(v - ref[at])));
                    r.correct &= v == ref[at];
                    covered[at] = 1;
                }
        }
        // Every element of C must have been produced somewhere.
        r.correct &= std::all_of(covered.begin(), covered.end(), [](uint8_t c) { return c != 0; });
    }
    if (opt.stats) {
        nlohmann::json& j = *opt.stats;
        cores.dumpStats(j["cores"]);
        net.dumpStats(j["noc"]);
        j["kernel"] = {{"op", s.op},
                       {"algo", s.algo},
                       {"mesh_rows", s.p},
                       {"mesh_cols", cols(s)},
                       {"m", m},
                       {"k", s.k},
                       {"n", s.n},
                       {"tree_k", s.tree_k},
                       {"broadcast", s.broadcast},
                       {"shift_align", s.shift_align},
                       {"unroll", s.unroll},
                       {"functional", s.functional},
                       {"notes", r.notes},
                       {"cycles", r.cycles},
                       {"macs", r.macs},
                       {"useful_macs", r.useful_macs},
                       {"peak_macs_per_cycle", r.peak_macs_per_cycle},
                       {"efficiency", r.efficiency},
                       {"compute_cycles", r.compute_cycles},
                       {"exposed_comm_cycles", r.exposed_comm},
                       {"routes_per_core", r.routes_per_core},
                       {"direct_routes", r.direct_routes},
                       {"relayed_paths", r.relayed_paths},
                       {"rejected_multicasts", r.rejected_multicasts},
                       {"steps", r.steps},
                       {"step_path_hops", r.step_path.hops},
                       {"step_path_stages", r.step_path.stages},
                       {"step_path_cycles", r.step_path_cycles},
                       {"sram_bytes", r.sram_bytes},
                       {"sram_buffer_bytes", r.sram_buffer_bytes},
                       {"relays", r.relays},
                       {"relay_cycles", r.relay_cycles},
                       {"program_instructions", r.program_instructions},
                       {"program_bytes", r.program_bytes},
                       {"checked", r.checked},
                       {"correct", r.correct},
                       {"max_abs_error", r.max_abs_error},
                       {"cores", plan.cores}};
        if (s.op == "attention" || s.op == "decode" || s.op == "prefill")
            j["kernel"]["prompt"] = s.prompt, j["kernel"]["generated"] = s.generated;
        if (s.op == "decode" || s.op == "prefill") {
            j["kernel"]["layers"] = s.layers;
            nlohmann::json ph = nlohmann::json::object();
            for (const auto& [name, c] : r.phase_cycles) ph[name] = c;
            j["kernel"]["phases"] = ph;
        }
    }
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

void KernelTestbench::printReport(std::ostream& os, const KernelResult& r) {
    const KernelSpec& s = r.spec;
    const uint32_t m = s.op == "gemv" ? 1 : s.m;
    if (s.op == "attention")
        fmt::print(os,
                   "attention {}: decode step {} of one KV head (D = {}, {} query head{}) on a "
                   "{}x{} core mesh ({})\n",
                   s.algo, s.generated + 1, s.k, s.m, s.m == 1 ? "" : "s", s.p, cols(s), r.notes);
    else if (s.op == "decode")
        fmt::print(os,
                   "decode {}: step {} (token {}) through {} layer{} on a {}x{} core mesh ({})\n",
                   s.algo, s.generated + 1, s.prompt + s.generated, s.layers,
                   s.layers == 1 ? "" : "s", s.p, cols(s), r.notes);
    else if (s.op == "weight-replace")
        fmt::print(os, "weight-replace: {} layer{} of weights on a {}x{} core mesh ({})\n",
                   s.layers, s.layers == 1 ? "" : "s", s.p, cols(s), r.notes);
    else if (s.op == "kv-replace")
        fmt::print(os,
                   "kv-replace {}: the KV cache of a {}-token prompt, {} layer{}, on a {}x{} core "
                   "mesh ({})\n",
                   s.algo, s.prompt, s.layers, s.layers == 1 ? "" : "s", s.p, cols(s), r.notes);
    else if (s.op == "prefill")
        fmt::print(os, "prefill: a {}-token prompt through {} layer{} on a {}x{} core mesh ({})\n",
                   s.prompt, s.layers, s.layers == 1 ? "" : "s", s.p, cols(s), r.notes);
    else if (transB(s))
        fmt::print(os, "{} {} [{}x{}] x [{}x{}]^T on a {}x{} core mesh ({})\n", s.op, s.algo, m,
                   s.k, s.n, s.k, s.p, cols(s), r.notes);
    else
        fmt::print(os, "{} {} [{}x{}] x [{}x{}] on a {}x{} core mesh ({})\n", s.op, s.algo, m, s.k,
                   s.k, s.n, s.p, cols(s), r.notes);
    fmt::print(os, "  cycles                 {}\n", r.cycles);
    if (!r.phase_cycles.empty()) {
        std::string parts;
        for (const auto& [name, c] : r.phase_cycles)
            parts += fmt::format("{}{} {} ({:.1f}%)", parts.empty() ? "" : ", ", name, c,
                                 r.cycles ? 100.0 * double(c) / double(r.cycles) : 0.0);
        fmt::print(os, "  cycles by operation    {}\n", parts);
    }
    if (s.op == "decode" && s.model_layers && r.cycles) {
        // Identical layers do not overlap (tested): L layers take L (T1 - 1) + 1 cycles.
        const uint64_t per = (r.cycles - 1) / s.layers;
        const uint64_t step = uint64_t(s.model_layers) * per + 1;
        const double us = double(step) / r.clock_hz * 1e6;
        fmt::print(os,
                   "  model step             {} layers x {} + 1 = {} cycles = {:.1f} us: {:.0f} "
                   "tokens/s (embedding and LM head not simulated)\n",
                   s.model_layers, per, step, us, 1e6 / us);
    }
    if (s.op == "prefill" && s.model_layers && r.cycles) {
        // Decode's rule, an upper bound here: prefill layers overlap by 0.2-0.7% (rows that
        // finish early start the next norm; tested against 2-layer programs simulated whole).
        const uint64_t per = (r.cycles - 1) / s.layers;
        const uint64_t all = uint64_t(s.model_layers) * per + 1;
        const double ms = double(all) / r.clock_hz * 1e3;
        fmt::print(
            os,
            "  model prefill          {} layers x {} + 1 = {} cycles (at most) = {:.3f} ms to "
            "the first token: {:.0f} prompt tokens/s (embedding and LM head not "
            "simulated)\n",
            s.model_layers, per, all, ms, double(s.prompt) / ms * 1e3);
    }
    const bool moves = s.op == "kv-replace" || s.op == "weight-replace";  // data, no MACs
    if (!moves)
        fmt::print(os, "  compute efficiency     {:.1f}% ({} useful MACs, {} MAC/cycle per core)\n",
                   100 * r.efficiency, r.useful_macs, r.peak_macs_per_cycle);
    fmt::print(os, "  compute / exposed comm {} / {} cycles ({:.1f}% communication)\n",
               r.compute_cycles, r.exposed_comm,
               r.cycles ? 100.0 * double(r.exposed_comm) / double(r.cycles) : 0.0);
    fmt::print(os,
               "  PLMR R: routes/router  {} (max entries; {} direct routes, {} relayed paths, {} "
               "multicasts refused)\n",
               r.routes_per_core, r.direct_routes, r.relayed_paths, r.rejected_multicasts);
    if (moves)
        fmt::print(os,
                   "  PLMR L: critical path  {} hops, {} routing stages, ~{} cycles zero-load for "
                   "the longest message ({} messages)\n",
                   r.step_path.hops, r.step_path.stages, r.step_path_cycles, r.steps);
    else
        fmt::print(os,
                   "  PLMR L: critical path  {} hops, {} routing stages, ~{} cycles zero-load per "
                   "step ({} steps)\n",
                   r.step_path.hops, r.step_path.stages, r.step_path_cycles, r.steps);
    fmt::print(os,
               "  PLMR M: SRAM per core  {} bytes at peak ({} in buffers, the rest messages "
               "waiting for their recv)\n",
               r.sram_bytes, r.sram_buffer_bytes);
    fmt::print(os, "  program per core       {} instructions, {} bytes (the largest)\n",
               r.program_instructions, r.program_bytes);
    if (r.relays)
        fmt::print(os, "  software relays        {} ({} controller cycles)\n", r.relays,
                   r.relay_cycles);
    if (r.checked)
        fmt::print(os, "  result                 {} (max |C - reference| = {:g})\n",
                   r.correct ? "equals the reference" : "DIFFERS from the reference",
                   r.max_abs_error);
    else
        fmt::print(os, "  result                 not checked (timing-only mode)\n");
    r.energy.print(os);
    fmt::print(os, "  wall time              {:.3f} s, {} core evaluations\n", r.wall_seconds,
               r.evaluations);
}

void KernelTestbench::printTableHeader(std::ostream& os) {
    fmt::print(os,
               "| algo | P | cycles | efficiency | compute | exposed comm | routes/router | crit. "
               "path hops | stages | path cycles | SRAM B/core | relays | energy uJ | avg power W "
               "| result |\n");
    fmt::print(os, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
}

void KernelTestbench::printTableRow(std::ostream& os, const KernelResult& r) {
    if (r.cycles == 0) {  // did not run: the SRAM does not hold its buffers (PLMR M)
        const bool dl = r.notes == "NoC deadlock";
        fmt::print(os, "| {} | {} | - | - | - | - | - | - | - | - | {} | - | - | - | {} |\n",
                   r.spec.algo, meshName(r.spec), dl ? "-" : "> SRAM",
                   dl ? "NoC deadlock" : "does not fit");
        return;
    }
    fmt::print(os,
               "| {} | {} | {} | {:.1f}% | {} | {} | {} | {} | {} | {} | {} | {} | {:.4g} | {:.4g} "
               "| {} |\n",
               r.spec.algo, meshName(r.spec), r.cycles, 100 * r.efficiency, r.compute_cycles,
               r.exposed_comm, r.routes_per_core, r.step_path.hops, r.step_path.stages,
               r.step_path_cycles, r.sram_bytes, r.relays, r.energy.total_pj * 1e-6,
               r.energy.averagePowerW(), r.checked ? (r.correct ? "ok" : "WRONG") : "timing");
}

uint64_t KernelTestbench::peakRssKb() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6));
    return 0;
}

}  // namespace wsc::tb
