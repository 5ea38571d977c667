// Energy and run outputs of `wsc kernel` (issues 5 and 7): a kernel run's energy equals its
// counted events times the configured energies (FLOPs in closed form from the shape); --stats,
// --heatmap and --perfetto write files that parse, with one heatmap element per link, one
// Perfetto process per core and per-core counters that add up to the printed report; several
// runs write one file each.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "KernelTestUtil.h"
#include "hw/HardwareLoader.h"
#include "testbench/KernelCli.h"
#include "testbench/KernelTestbench.h"
#include "testbench/tests/wafer/XmlCheck.h"

using namespace wsc;

namespace {

// Link energies for the closed-form checks.
noc::NocParams wseNoc() {
    return test::wseNoc(0.1, 0.05);
}
using test::wseCore;

hw::EnergyParams energy() {
    hw::EnergyParams e;
    e.compute_pj_per_flop = 0.5;
    e.sram_pj_per_byte = 0.25;
    e.static_power_w = 2.0;
    return e;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    REQUIRE(f);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// The CLI exactly as `wsc` parses it; returns the exit code and the printed report.
int cli(const std::string& args, std::string& out) {
    tb::KernelCli::Options o;
    CLI::App app;
    CLI::App* k = tb::KernelCli::add(app, o);
    app.parse(args, false);
    std::ostringstream os;
    const int rc = tb::KernelCli::run(k, o, os);
    out = os.str();
    return rc;
}

std::string config() {
    return std::string(WSC_SOURCE_DIR) + "/configs/wse2_kernels.yaml";
}

// The first number after `label` in the report.
double reported(const std::string& report, const std::string& pattern) {
    std::smatch m;
    INFO(pattern);
    REQUIRE(std::regex_search(report, m, std::regex(pattern)));
    return std::stod(m[1]);
}

// Independent of hw::EnergyModel: the per-core and per-link counters of the stats JSON times
// the energies the test configured.
struct Counted {
    uint64_t macs = 0, velems = 0, sram = 0, dma = 0;
    std::map<std::string, uint64_t> bits;  // link kind -> bits
};
Counted counted(const nlohmann::json& stats) {
    Counted c;
    for (const auto& [name, s] : stats["cores"].items()) {
        c.macs += s["macs"].get<uint64_t>();
        c.velems += s["vector_elems"].get<uint64_t>();
        c.sram += s["bytes_in"].get<uint64_t>() + s["bytes_out"].get<uint64_t>() +
                  s["dma_bytes"].get<uint64_t>();
        c.dma += s["dma_bytes"].get<uint64_t>();
    }
    for (const auto& [name, l] : stats["noc"]["links"].items())
        c.bits[l["kind"].get<std::string>()] += l["bits"].get<uint64_t>();
    return c;
}

}  // namespace

TEST_CASE("kernel: GEMM energy equals MACs x 2 x pJ/FLOP plus counted bytes and bits") {
    const uint32_t M = 32, K = 48, N = 16;
    for (const char* algo : {"meshgemm", "cannon", "summa", "allgather"}) {
        INFO(algo);
        tb::KernelSpec s;
        s.op = "gemm", s.algo = algo, s.p = 4, s.m = M, s.k = K, s.n = N;
        tb::KernelRunOptions opt;
        opt.energy = energy();
        nlohmann::json stats;
        opt.stats = &stats;
        const tb::KernelResult r = tb::KernelTestbench::run(wseNoc(), wseCore(), s, opt);
        REQUIRE(r.correct);
        const Counted c = counted(stats);
        // Closed form: the GEMM does M K N MACs, 2 FLOPs each; a shift or broadcast GEMM adds
        // nothing on the vector unit.
        CHECK(c.macs == uint64_t(M) * K * N);
        CHECK(c.velems == 0);
        CHECK(c.dma == 0);  // operands are placed in SRAM
        const hw::EnergyReport& e = r.energy;
        CHECK(e.find("compute")->pj == 2.0 * M * K * N * 0.5);
        CHECK(e.find("sram")->pj == double(c.sram) * 0.25);
        CHECK(c.sram > 0);
        CHECK(e.find("noc links")->pj == Approx(double(c.bits.at("on-die")) * 0.1).epsilon(1e-12));
        CHECK(c.bits.at("on-die") > 0);
        CHECK(e.find("ni links")->pj ==
              Approx(double(c.bits.at("injection") + c.bits.at("ejection")) * 0.05).epsilon(1e-12));
        CHECK(e.find("d2d links")->pj == 0.0);
        CHECK(e.find("hbm read")->pj == 0.0);
        const double seconds = double(r.cycles) / 1.1e9;
        CHECK(e.find("static")->pj == Approx(seconds * 2.0 * 1e12).epsilon(1e-12));
        const double expected =
            2.0 * M * K * N * 0.5 + double(c.sram) * 0.25 + double(c.bits.at("on-die")) * 0.1 +
            double(c.bits.at("injection") + c.bits.at("ejection")) * 0.05 + seconds * 2.0 * 1e12;
        CHECK(e.total_pj == Approx(expected).epsilon(1e-12));
        CHECK(e.averagePowerW() == Approx(expected * 1e-12 / seconds).epsilon(1e-12));
        // Bytes in closed form. Tiles: A (M/P x K/P), B (K/P x N/P), fp32. Ring GEMMs send both
        // tiles from every core in each of P - 1 shift steps (in = out); SUMMA and allgather
        // multicast each tile once from its owner to the P - 1 others of its row or column.
        const uint64_t P = 4, tiles = (uint64_t(M / P) * (K / P) + uint64_t(K / P) * (N / P)) * 4;
        uint64_t in = 0, out = 0;
        for (const auto& [n, st] : stats["cores"].items())
            in += st["bytes_in"].get<uint64_t>(), out += st["bytes_out"].get<uint64_t>();
        const bool ring = std::string(algo) == "meshgemm" || std::string(algo) == "cannon";
        CHECK(out == (ring ? (P - 1) * P * P * tiles : P * P * tiles));
        CHECK(in == (P - 1) * P * P * tiles);
        CHECK(c.sram == in + out);
        // Each byte crosses each receiver's ejection link once, and its sender's injection link
        // once per packet stream: a multicast is split at its source into one stream per
        // direction, so an owner at position o of its line injects (o > 0) + (o < P - 1) times,
        // 2 (P - 1) over the P owners of a line.
        CHECK(c.bits.at("injection") == 8 * (ring ? out : 2 * (P - 1) * P * tiles));
        CHECK(c.bits.at("ejection") == 8 * in);
    }
}

TEST_CASE("kernel: GEMV energy counts 2 K N FLOPs plus the allreduce's (P - 1) N adds") {
    const uint32_t P = 4, K = 64, N = 64;
    for (const char* algo : {"meshgemv", "pipeline", "ring"}) {
        INFO(algo);
        tb::KernelSpec s;
        s.op = "gemv", s.algo = algo, s.p = P, s.m = 1, s.k = K, s.n = N;
        tb::KernelRunOptions opt;
        opt.energy = energy();
        nlohmann::json stats;
        opt.stats = &stats;
        const tb::KernelResult r = tb::KernelTestbench::run(wseNoc(), wseCore(), s, opt);
        REQUIRE(r.correct);
        const Counted c = counted(stats);
        CHECK(c.macs == uint64_t(K) * N);
        // Each column adds P partial vectors of N/P elements: (P - 1) N/P adds, P columns.
        CHECK(c.velems == uint64_t(P - 1) * N);
        CHECK(r.energy.find("compute")->pj == (2.0 * K * N + double(P - 1) * N) * 0.5);
        CHECK(r.events.flops == 2 * uint64_t(K) * N + uint64_t(P - 1) * N);
    }
}

TEST_CASE("kernel: outputs attached leave cycles and energy unchanged") {
    // Observers only read: the same kernel without outputs (the plain CoreArray::run loop) and
    // through the CLI with heatmap, trace and stats takes the same cycles and energy.
    const hw::HardwareConfig h = hw::HardwareLoader::loadFile(config());
    tb::KernelSpec s;
    s.op = "gemm", s.algo = "summa", s.p = 4, s.m = s.k = s.n = 32;
    tb::KernelRunOptions plainOpt;
    plainOpt.energy = h.energy;
    const tb::KernelResult plain = tb::KernelTestbench::run(h.noc, h.core, s, plainOpt);
    std::string report;
    REQUIRE(cli("kernel gemm --algo summa --mesh 4 --shape 32 --config " + config() +
                    " --heatmap ko_same.svg --perfetto ko_same.json --stats ko_same_stats.json",
                report) == 0);
    CHECK(reported(report, R"(cycles\s+(\d+))") == double(plain.cycles));
    const nlohmann::json st = nlohmann::json::parse(slurp("ko_same_stats.json"));
    CHECK(st["energy"]["total_pj"].get<double>() == plain.energy.total_pj);
    CHECK(plain.energy.total_pj > 0);
}

TEST_CASE("kernel: --stats, --heatmap and --perfetto parse and agree with the report") {
    std::string report;
    REQUIRE(cli("kernel gemm --algo meshgemm --mesh 4 --shape 32 --config " + config() +
                    " --stats ko_stats.json --heatmap ko_heat.svg --perfetto ko_trace.json",
                report) == 0);
    INFO(report);

    // Heatmap: XML, one element per router-to-router link (2 x 2 x 4 x 3 on a 4 x 4 mesh) and
    // per router.
    test::XmlSummary x = test::checkXml(slurp("ko_heat.svg"));
    CHECK(x.root == "svg");
    CHECK(x.classes["link"] == 48);
    CHECK(x.classes["router"] == 16);

    // Perfetto: one process per core, each with a state track.
    const nlohmann::json t = nlohmann::json::parse(slurp("ko_trace.json"));
    std::map<uint64_t, std::string> procs;
    for (const auto& e : t["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name") procs[e["pid"]] = e["args"]["name"];
    int coreProcs = 0;
    for (const auto& [pid, name] : procs) coreProcs += name.rfind("core ", 0) == 0;
    CHECK(coreProcs == 16);

    // Stats: per-core counters add up to the printed report.
    const nlohmann::json st = nlohmann::json::parse(slurp("ko_stats.json"));
    REQUIRE(st["cores"].size() == 16);
    uint64_t macs = 0, compute = 0, sram = 0, relays = 0;
    for (const auto& [name, c] : st["cores"].items()) {
        macs += c["macs"].get<uint64_t>();
        compute = std::max(
            compute, c["pe_busy_cycles"].get<uint64_t>() + c["vector_busy_cycles"].get<uint64_t>());
        sram = std::max(sram, c["sram_peak_bytes"].get<uint64_t>());
        CHECK(c["sram_peak_bytes"].get<uint64_t>() ==
              c["sram_used_bytes"].get<uint64_t>() + c["rx_held_peak_bytes"].get<uint64_t>());
        relays += c["relays"].get<uint64_t>();
        CHECK(c["cycles"].get<uint64_t>() == st["kernel"]["cycles"].get<uint64_t>());
    }
    CHECK(double(st["kernel"]["cycles"].get<uint64_t>()) == reported(report, R"(cycles\s+(\d+))"));
    CHECK(double(macs) == reported(report, R"(\((\d+) useful MACs)"));
    CHECK(macs == 32u * 32u * 32u);
    CHECK(double(compute) == reported(report, R"(compute / exposed comm (\d+))"));
    CHECK(double(sram) == reported(report, R"(SRAM per core\s+(\d+) bytes)"));
    CHECK(relays == st["kernel"]["relays"].get<uint64_t>());
    CHECK(st["kernel"]["routes_per_core"].get<double>() ==
          reported(report, R"(routes/router\s+(\d+))"));
    // Energy: the stats hold what the report printed, and the configured prices.
    const double pj = st["energy"]["total_pj"].get<double>();
    CHECK(pj > 0);
    CHECK(pj * 1e-6 == Approx(reported(report, R"(energy\s+([0-9.e+-]+) uJ)")).epsilon(1e-5));
    CHECK(st["energy"]["average_power_w"].get<double>() ==
          Approx(reported(report, R"(average power ([0-9.e+-]+) W)")).epsilon(1e-5));
    CHECK(st["energy"]["components"]["compute"]["pj_each"].get<double>() == 1.0);
    CHECK(st["energy"]["components"]["noc_links"]["pj_each"].get<double>() == Approx(0.1));
    CHECK(st["energy"]["events"]["flops"].get<uint64_t>() == 2u * 32u * 32u * 32u);
    // Every link of the network is in the stats.
    CHECK(st["noc"]["links"].size() >= 48);
}

TEST_CASE("kernel: --perfetto-cores traces only the named cores") {
    std::string report;
    REQUIRE(cli("kernel gemv --algo meshgemv --mesh 4 --shape 64 --timing-only --config " +
                    config() + " --perfetto ko_sub.json --perfetto-cores 0-2,5",
                report) == 0);
    const nlohmann::json t = nlohmann::json::parse(slurp("ko_sub.json"));
    std::vector<std::string> names;
    for (const auto& e : t["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name") {
            const std::string n = e["args"]["name"];
            if (n.rfind("core ", 0) == 0) names.push_back(n);
        }
    CHECK(names.size() == 4);
    CHECK_THAT(report, Catch::Contains("4 cores"));
}

TEST_CASE("kernel: --compare writes one file per run with .<algo>.<mesh> before the extension") {
    std::string report;
    REQUIRE(cli("kernel gemv --compare --mesh 2,4 --shape 32 --config " + config() +
                    " --stats ko_cmp.json --heatmap ko_cmp.svg",
                report) == 0);
    INFO(report);
    for (const char* a : {"meshgemv", "pipeline", "ring"})
        for (uint32_t p : {2u, 4u}) {
            const std::string base = std::string("ko_cmp.") + a + "." + std::to_string(p);
            INFO(base);
            const nlohmann::json st = nlohmann::json::parse(slurp(base + ".json"));
            CHECK(st["kernel"]["algo"] == a);
            CHECK(st["kernel"]["mesh_rows"] == p);
            CHECK(st["cores"].size() == p * p);
            test::XmlSummary x = test::checkXml(slurp(base + ".svg"));
            CHECK(x.classes["link"] == int(4 * p * (p - 1)));
            CHECK_THAT(report, Catch::Contains(base + ".json"));
        }
    // The table has the energy columns, filled.
    CHECK_THAT(report, Catch::Contains("| energy uJ | avg power W |"));
}

TEST_CASE(
    "kernel: --perfetto draws one arrow per message from its send to its receive, in cycles") {
    std::string report;
    REQUIRE(cli("kernel gemm --algo meshgemm --mesh 4 --shape 32 --config " + config() +
                    " --perfetto ko_flows.json --perfetto-unit cycles --stats ko_flows_stats.json",
                report) == 0);
    const nlohmann::json t = nlohmann::json::parse(slurp("ko_flows.json"));
    CHECK(t["otherData"]["time_unit"] == "cycles: the viewer's 1 us is 1 cycle");
    struct Span {
        uint64_t ts, end;
        std::string name;
        uint64_t ops;
    };
    std::map<std::pair<uint64_t, uint64_t>, std::vector<Span>> spans;  // (pid, tid) -> spans
    uint64_t sendOps = 0, recvOps = 0, lastEnd = 0;
    for (const auto& e : t["traceEvents"]) {
        if (e["ph"] != "X") continue;
        // Cycles: integers, a span's end is a cycle.
        REQUIRE(e["ts"].is_number_unsigned());
        REQUIRE(e["dur"].is_number_unsigned());
        const uint64_t ops = e.contains("args") ? e["args"].value("ops", uint64_t{1}) : 1;
        const Span s{e["ts"], e["ts"].get<uint64_t>() + e["dur"].get<uint64_t>(), e["name"], ops};
        spans[{e["pid"], e["tid"]}].push_back(s);
        sendOps += s.name == "send" ? ops : 0;
        recvOps += s.name == "recv" ? ops : 0;
        lastEnd = std::max(lastEnd, s.end);
    }
    // The trace ends at the kernel's last cycle (state tracks tile the run).
    const nlohmann::json st = nlohmann::json::parse(slurp("ko_flows_stats.json"));
    CHECK(lastEnd == st["kernel"]["cycles"].get<uint64_t>());
    // Every flow starts in a send span and finishes in a recv span of another core, with an id
    // used exactly twice ("s" then "f").
    std::map<uint64_t, int> ids;
    uint64_t starts = 0;
    for (const auto& e : t["traceEvents"]) {
        if (e["ph"] != "s" && e["ph"] != "f") continue;
        const std::string want = e["ph"] == "s" ? "send" : "recv";
        bool bound = false;
        for (const Span& s : spans[{e["pid"], e["tid"]}])
            bound = bound || (s.name == want && s.ts <= e["ts"].get<uint64_t>() &&
                              e["ts"].get<uint64_t>() < std::max(s.end, s.ts + 1));
        INFO(e.dump());
        CHECK(bound);
        if (e["ph"] == "f") CHECK(e["bp"] == "e");
        ++ids[e["id"].get<uint64_t>()];
        starts += e["ph"] == "s";
    }
    for (const auto& [id, n] : ids) CHECK(n == 2);
    // Every message between the (all traced) cores is drawn: one arrow per send op here, as no
    // two sends of this schedule merge into one span.
    CHECK(sendOps > 0);
    CHECK(sendOps == recvOps);
    CHECK(starts == sendOps);
}
