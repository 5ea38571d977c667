// Energy, heatmap and Perfetto outputs of small runs (issue 5): the energy equals the counted
// events times their configured energies; the SVG parses as XML with one element per link; the
// trace parses with nlohmann-json and has one track per core.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hw/ScenarioLoader.h"
#include "noc/NocShell.h"
#include "testbench/GemmTestbench.h"
#include "testbench/MemorySystem.h"
#include "testbench/RunOutputs.h"
#include "testbench/TrafficTestbench.h"
#include "testbench/tests/wafer/XmlCheck.h"

using namespace wsc;

namespace {
std::string config(const char* name) {
    return std::string(WSC_SOURCE_DIR) + "/configs/" + name;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    REQUIRE(f);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Link bits by kind from the stats JSON (the network's own per-link counters).
std::map<std::string, uint64_t> bitsByKind(const nlohmann::json& stats) {
    std::map<std::string, uint64_t> b;
    for (const auto& [name, l] : stats["noc"]["links"].items())
        b[l["kind"].get<std::string>()] += l["bits"].get<uint64_t>();
    return b;
}
}  // namespace

TEST_CASE("outputs: traffic run energy equals counted bits times configured pJ/bit") {
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(config("small_wafer_traffic.yaml"));
    noc::NocShell shell("noc", sc.noc.clock_hz);
    tb::RunOutputs out(sc, "", "");
    tb::TrafficRunOptions opt;
    nlohmann::json stats;
    opt.stats = &stats;
    opt.observers = out.observers();
    const tb::TrafficResult r = tb::TrafficTestbench::run(sc.noc, sc.traffic, shell, opt);
    std::ostringstream report;
    out.finishTraffic(r, report, &stats);
    REQUIRE(r.conservation_ok);

    // Independently: bits per link kind from the per-link stats, times the YAML's energies.
    const auto bits = bitsByKind(stats);
    REQUIRE(bits.at("d2d") > 0);
    REQUIRE(bits.at("on-die") > 0);
    const hw::EnergyReport& e = out.energy();
    CHECK(e.find("noc links")->pj == double(bits.at("on-die")) * 0.1);
    CHECK(e.find("d2d links")->pj == double(bits.at("d2d")) * 2.0);
    CHECK(e.find("ni links")->pj == double(bits.at("injection") + bits.at("ejection")) * 0.05);
    const double seconds = double(r.total_cycles) / 1e9;
    CHECK(e.find("static")->pj == Approx(seconds * 1.0 * 1e12).epsilon(1e-12));
    CHECK(e.find("compute")->pj == 0.0);  // synthetic traffic computes nothing
    const double expected = double(bits.at("on-die")) * 0.1 + double(bits.at("d2d")) * 2.0 +
                            double(bits.at("injection") + bits.at("ejection")) * 0.05 +
                            seconds * 1e12;
    CHECK(e.total_pj == Approx(expected).epsilon(1e-12));
    // The network's own link energy (each link's bits x its spec) agrees with the model.
    CHECK(e.find("noc links")->pj + e.find("d2d links")->pj + e.find("ni links")->pj ==
          Approx(r.link_energy_pj).epsilon(1e-12));
    CHECK(e.averagePowerW() == Approx(expected * 1e-12 / seconds).epsilon(1e-12));
    // Reported and in the stats JSON.
    CHECK_THAT(report.str(), Catch::Contains("average power") && Catch::Contains("d2d links"));
    CHECK(stats["energy"]["total_pj"].get<double>() == e.total_pj);
    CHECK(stats["energy"]["components"]["d2d links"]["pj"].get<double>() ==
          e.find("d2d links")->pj);
}

TEST_CASE("outputs: gemm run energy equals counted FLOPs, bytes and bits times their energies") {
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(config("small_wafer_gemm.yaml"));
    noc::NocShell shell("noc", sc.noc.clock_hz);
    tb::MemorySystem mem(sc.core, sc.noc.clock_hz);
    tb::RunOutputs out(sc, "", "");
    tb::GemmRunOptions opt;
    nlohmann::json stats;
    opt.stats = &stats;
    opt.observers = out.observers();
    const tb::GemmResult r = tb::GemmTestbench::run(sc.noc, sc.core, sc.gemm, shell, mem, opt);
    std::ostringstream report;
    out.finishGemm(r, report, &stats);
    REQUIRE(r.correct);

    uint64_t macs = 0, velems = 0, sramBytes = 0, dma = 0;
    for (const auto& [name, c] : stats["cores"].items()) {
        macs += c["macs"].get<uint64_t>();
        velems += c["vector_elems"].get<uint64_t>();
        sramBytes += c["bytes_in"].get<uint64_t>() + c["bytes_out"].get<uint64_t>() +
                     c["dma_bytes"].get<uint64_t>();
        dma += c["dma_bytes"].get<uint64_t>();
    }
    REQUIRE(macs == 32u * 32u * 32u);
    auto bits = bitsByKind(stats);
    const hw::EnergyReport& e = out.energy();
    CHECK(e.find("compute")->pj == double(2 * macs + velems) * 0.5);
    CHECK(e.find("sram")->pj == Approx(double(sramBytes) * 0.2).epsilon(1e-12));
    CHECK(e.find("noc links")->pj == double(bits["on-die"]) * 0.1);
    CHECK(e.find("d2d links")->pj == double(bits["d2d"]) * 1.0);
    CHECK(bits["d2d"] > 0);  // the shifts along x cross the die boundary
    CHECK(e.find("hbm read")->pj == double(8 * dma) * 6.0);  // hbm: HBM3 default 6 pJ/bit
    const double expected = double(2 * macs + velems) * 0.5 + double(sramBytes) * 0.2 +
                            double(bits["on-die"]) * 0.1 + double(bits["d2d"]) * 1.0 +
                            double(8 * dma) * 6.0;
    CHECK(e.total_pj == Approx(expected).epsilon(1e-12));
}

TEST_CASE("outputs: the heatmap SVG parses as XML and has one element per link, per phase") {
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(config("small_wafer_traffic.yaml"));
    noc::NocShell shell("noc", sc.noc.clock_hz);
    tb::RunOutputs out(sc, "wafer_heat.svg", "wafer_trace.json");
    tb::TrafficRunOptions opt;
    opt.observers = out.observers();
    const tb::TrafficResult r = tb::TrafficTestbench::run(sc.noc, sc.traffic, shell, opt);
    std::ostringstream report;
    out.finishTraffic(r, report, nullptr);

    // 4 x 4 mesh: 2 x 4 x 3 channels x 2 directions = 48 router-to-router links; 16 routers;
    // 2 x 2 dies.
    for (const char* path : {"wafer_heat.svg", "wafer_heat.warm-up.svg", "wafer_heat.drain.svg"}) {
        INFO(path);
        test::XmlSummary x = test::checkXml(slurp(path));
        CHECK(x.root == "svg");
        CHECK(x.classes["link"] == 48);
        CHECK(x.classes["router"] == 16);
        CHECK(x.classes["die"] == 4);
    }
    // The measurement-window map carries the same utilization the recorder measured.
    const auto& phases = out.links().phases();
    REQUIRE(phases.size() == 3);
    CHECK(phases[1].name == "measure");
    CHECK(phases[1].end - phases[1].begin == sc.traffic.measure_cycles);
    double maxUtil = 0;
    for (const auto& l : phases[1].links) maxUtil = std::max(maxUtil, l.utilization);
    CHECK(maxUtil == Approx(r.link_util_max).epsilon(1e-9));

    // Traffic has no cores: the trace holds the NoC phases and counters only.
    const nlohmann::json t = nlohmann::json::parse(slurp("wafer_trace.json"));
    int spans = 0, counters = 0;
    for (const auto& e : t["traceEvents"]) {
        spans += e["ph"] == "X";
        counters += e["ph"] == "C";
    }
    CHECK(spans == 3);
    CHECK(counters > 10);
}

TEST_CASE(
    "outputs: the Perfetto trace of a gemm run has one track per core with spans that tile time") {
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(config("small_wafer_gemm.yaml"));
    noc::NocShell shell("noc", sc.noc.clock_hz);
    tb::MemorySystem mem(sc.core, sc.noc.clock_hz);
    tb::RunOutputs out(sc, "gemm_heat.svg", "gemm_trace.json");
    tb::GemmRunOptions opt;
    opt.observers = out.observers();
    const tb::GemmResult r = tb::GemmTestbench::run(sc.noc, sc.core, sc.gemm, shell, mem, opt);
    std::ostringstream report;
    out.finishGemm(r, report, nullptr);

    const nlohmann::json t = nlohmann::json::parse(slurp("gemm_trace.json"));
    std::map<uint32_t, std::string> pids, tids;  // id -> name
    for (const auto& e : t["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name") pids[e["pid"]] = e["args"]["name"];
    uint32_t corePid = 0;
    for (const auto& [pid, name] : pids)
        if (name == "cores") corePid = pid;
    REQUIRE(corePid != 0);
    for (const auto& e : t["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == corePid)
            tids[e["tid"]] = e["args"]["name"];
    CHECK(tids.size() == 4);  // one track per core of the 2 x 2 mesh
    // Per core: busy + stall spans cover exactly the cycles the core counted as busy or stalled.
    std::map<uint32_t, double> covered;
    std::map<std::string, int> names;
    for (const auto& e : t["traceEvents"])
        if (e["ph"] == "X" && e["pid"] == corePid) {
            covered[e["tid"]] += e["dur"].get<double>();
            ++names[e["name"].get<std::string>()];
        }
    REQUIRE(r.stats.size() == 4);
    for (size_t i = 0; i < r.stats.size(); ++i) {
        const uint32_t tid = [&] {
            for (const auto& [id, n] : tids)
                if (n == r.names[i]) return id;
            return 0u;
        }();
        REQUIRE(tid != 0);
        const double us = double(r.stats[i].busy + r.stats[i].stalls()) / sc.noc.clock_hz * 1e6;
        CHECK(covered[tid] == Approx(us).epsilon(1e-9));
    }
    CHECK(names["compute"] > 0);
    CHECK(names["send"] > 0);
    // The heatmap of the single "run" phase: 2 x 2 mesh = 8 links.
    test::XmlSummary x = test::checkXml(slurp("gemm_heat.svg"));
    CHECK(x.classes["link"] == 8);
}
