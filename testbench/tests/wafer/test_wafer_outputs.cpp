// Energy, heatmap and Perfetto outputs of small runs (issue 5): the energy equals the counted
// events times their configured energies; the SVG parses as XML with one element per link; the
// trace parses with nlohmann-json and has a track group per core whose spans are exact.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/PeArray.h"
#include "hw/MemorySystem.h"
#include "hw/ScenarioLoader.h"
#include "noc/NocShell.h"
#include "testbench/GemmTestbench.h"
#include "testbench/NocTimelineRecorder.h"
#include "testbench/RunOutputs.h"
#include "testbench/TrafficTestbench.h"
#include "testbench/tests/noc/NocTestUtil.h"
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
    CHECK(stats["energy"]["components"]["d2d_links"]["pj"].get<double>() ==
          e.find("d2d links")->pj);
}

TEST_CASE("outputs: gemm run energy equals counted FLOPs, bytes and bits times their energies") {
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(config("small_wafer_gemm.yaml"));
    noc::NocShell shell("noc", sc.noc.clock_hz);
    hw::MemorySystem mem(sc.core, sc.noc.clock_hz);
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

namespace {
// The core side of a trace, back in cycles: per core process its tracks by name and their spans.
struct TraceSpan {
    std::string name;
    uint64_t begin, end;
    nlohmann::json args;
};
struct CoreTracks {
    std::map<std::string, std::vector<TraceSpan>> tracks;  // track name -> spans
    uint64_t total(const std::string& track) const {
        uint64_t n = 0;
        if (tracks.count(track))
            for (const auto& s : tracks.at(track)) n += s.end - s.begin;
        return n;
    }
    uint64_t sumArg(const std::string& prefix, const char* arg) const {
        uint64_t n = 0;
        for (const auto& [t, spans] : tracks)
            if (t.rfind(prefix, 0) == 0)
                for (const auto& s : spans) n += s.args.value(arg, uint64_t(0));
        return n;
    }
};

std::map<std::string, CoreTracks> coreTracks(const nlohmann::json& t, double clock_hz) {
    std::map<uint32_t, std::string> pname, tname;
    for (const auto& e : t["traceEvents"]) {
        if (e["ph"] != "M") continue;
        if (e["name"] == "process_name") pname[e["pid"]] = e["args"]["name"];
        if (e["name"] == "thread_name") tname[e["tid"]] = e["args"]["name"];
    }
    std::map<std::string, CoreTracks> out;
    for (const auto& [pid, name] : pname)
        if (name.rfind("core ", 0) == 0) out[name];
    const double cyclesPerUs = clock_hz / 1e6;
    for (const auto& e : t["traceEvents"]) {
        if (e["ph"] != "X") continue;
        const std::string& p = pname.at(e["pid"]);
        if (p.rfind("core ", 0) != 0) continue;
        const double ts = e["ts"].get<double>() * cyclesPerUs;
        const double dur = e["dur"].get<double>() * cyclesPerUs;
        const uint64_t b = std::llround(ts), d = std::llround(dur);
        REQUIRE(std::abs(ts - double(b)) < 1e-6);  // whole cycles survive the us conversion
        out[p].tracks[tname.at(e["tid"])].push_back(
            {e["name"], b, b + d, e.value("args", nlohmann::json::object())});
    }
    for (auto& [p, c] : out)
        for (auto& [name, spans] : c.tracks) {
            std::sort(spans.begin(), spans.end(),
                      [](const TraceSpan& a, const TraceSpan& b) { return a.begin < b.begin; });
            // Spans on one track never overlap (the JSON importer needs them nested).
            for (size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].begin >= spans[i - 1].end);
        }
    return out;
}

struct GemmTraceRun {
    hw::ScenarioConfig sc;
    tb::GemmResult r;
    nlohmann::json trace;
    std::string report;
};

GemmTraceRun gemmTrace(const char* cfg, const char* path, tb::CoreTimelineRecorder::Options o) {
    GemmTraceRun g;
    g.sc = hw::ScenarioLoader::loadFile(config(cfg));
    noc::NocShell shell("noc", g.sc.noc.clock_hz);
    hw::MemorySystem mem(g.sc.core, g.sc.noc.clock_hz);
    tb::RunOutputs out(g.sc, "", path, std::move(o));
    tb::GemmRunOptions opt;
    opt.observers = out.observers();
    g.r = tb::GemmTestbench::run(g.sc.noc, g.sc.core, g.sc.gemm, shell, mem, opt);
    std::ostringstream report;
    out.finishGemm(g.r, report, nullptr);
    g.report = report.str();
    g.trace = nlohmann::json::parse(slurp(path));
    return g;
}
}  // namespace

TEST_CASE("outputs: the Perfetto trace of a gemm run has a track group per core with exact spans") {
    const GemmTraceRun g = gemmTrace("gemm_2x2.yaml", "gemm_trace.json", {});
    REQUIRE(g.r.correct);
    const auto cores = coreTracks(g.trace, g.sc.noc.clock_hz);
    REQUIRE(cores.size() == 4);  // one process (track group) per core of the 2 x 2 mesh
    const core::PeArray pe(g.sc.core.pe);
    const core::PeTiming tile = pe.timing(16, 16, 16, firmware::DType::FP32);
    for (size_t i = 0; i < g.r.stats.size(); ++i) {
        INFO(g.r.names[i]);
        REQUIRE(cores.count(g.r.names[i]));
        const CoreTracks& c = cores.at(g.r.names[i]);
        const core::CoreStats& st = g.r.stats[i];
        for (const char* t : {"state", "compute", "send", "receive", "dma"})
            CHECK(c.tracks.count(t) == 1);
        // The state track tiles the run: busy, each stall cause and idle as the counters say.
        const auto& state = c.tracks.at("state");
        CHECK(state.front().begin == 0);
        CHECK(state.back().end == g.r.cycles);
        CHECK(c.total("state") == g.r.cycles);
        std::map<std::string, uint64_t> by;
        for (const auto& s : state) by[s.name] += s.end - s.begin;
        CHECK(by["busy"] == st.busy);
        CHECK(by["idle"] == st.idle);
        for (size_t k = 0; k < st.stall.size(); ++k) {
            const std::string cause = core::stallName(static_cast<core::StallCause>(k));
            INFO(cause);
            CHECK(by["stall: " + cause] == st.stall[k]);
        }
        for (size_t k = 1; k < state.size(); ++k)  // merged: neighbours differ
            CHECK(state[k].name != state[k - 1].name);
        // Units: every GEMM is the fold model's cycles for a 16^3 tile; totals equal the stats.
        CHECK(c.total("compute") == st.pe_busy);
        for (const auto& s : c.tracks.at("compute")) {
            CHECK(s.name == "gemm");
            const uint64_t ops = s.args.value("ops", uint64_t(1));
            CHECK(s.end - s.begin == ops * tile.cycles);
            CHECK(s.args["macs"].get<uint64_t>() == ops * tile.macs);
        }
        CHECK(c.sumArg("compute", "macs") == st.macs);
        CHECK(c.sumArg("send", "bytes") == st.bytes_out);
        CHECK(c.sumArg("receive", "bytes") == st.bytes_in);
        CHECK(c.sumArg("dma", "bytes") == st.dma_bytes);
    }
    CHECK_THAT(g.report, Catch::Contains("4 cores"));
}

// SystemC elaborates once per process: one traced run per test case.
TEST_CASE("outputs: the Perfetto trace keeps only the cores asked for") {
    const GemmTraceRun g = gemmTrace("small_wafer_gemm.yaml", "gemm_trace_some.json", {{1, 2}});
    REQUIRE(g.r.correct);
    const auto two = coreTracks(g.trace, g.sc.noc.clock_hz);
    REQUIRE(two.size() == 2);
    CHECK(two.begin()->first.rfind("core 1 ", 0) == 0);
    CHECK(two.rbegin()->first.rfind("core 2 ", 0) == 0);
    for (const auto& [name, c] : two) CHECK(c.total("state") == g.r.cycles);
    CHECK_THAT(g.report, Catch::Contains("2 cores"));
}

TEST_CASE("outputs: the Perfetto core tracks stop at one cycle when the span cap is reached") {
    tb::CoreTimelineRecorder::Options capped;
    capped.max_spans = 20;
    const GemmTraceRun g = gemmTrace("small_wafer_gemm.yaml", "gemm_trace_cut.json", capped);
    REQUIRE(g.r.correct);  // the run itself goes on to the end
    CHECK_THAT(g.report, Catch::Contains("stop at cycle"));
    const auto cc = coreTracks(g.trace, g.sc.noc.clock_hz);
    REQUIRE(cc.size() == 4);
    // Every core's state track ends at the same cut, before the run's end; nothing after it.
    uint64_t at = 0;
    size_t spans = 0;
    for (const auto& [name, c] : cc) {
        INFO(name);
        const uint64_t end = c.tracks.at("state").back().end;
        if (!at) at = end;
        CHECK(end == at);
        CHECK(c.total("state") == at);
        for (const auto& [t, v] : c.tracks) {
            spans += v.size();
            for (const auto& s : v) CHECK(s.end <= at);
        }
    }
    CHECK(at > 0);
    CHECK(at < g.r.cycles);
    CHECK(spans < 20 + 4 * 8);  // the cap, plus what was in flight at the cut
}

TEST_CASE("outputs: the gemm heatmap has one element per link") {
    const hw::ScenarioConfig sc = hw::ScenarioLoader::loadFile(config("small_wafer_gemm.yaml"));
    noc::NocShell shell("noc", sc.noc.clock_hz);
    hw::MemorySystem mem(sc.core, sc.noc.clock_hz);
    tb::RunOutputs out(sc, "gemm_heat.svg", "");
    tb::GemmRunOptions opt;
    opt.observers = out.observers();
    const tb::GemmResult r = tb::GemmTestbench::run(sc.noc, sc.core, sc.gemm, shell, mem, opt);
    std::ostringstream report;
    out.finishGemm(r, report, nullptr);
    // The heatmap of the single "run" phase: 2 x 2 mesh = 8 links.
    test::XmlSummary x = test::checkXml(slurp("gemm_heat.svg"));
    CHECK(x.classes["link"] == 8);
}

TEST_CASE("outputs: NoC counter samples grow with the log of the run length, not the length") {
    noc::Network net(test::meshParams(2, 2));
    hw::PerfettoTrace trace(1e9);
    tb::NocTimelineRecorder rec(trace, {{"run", 0}}, 1);
    rec.attach(net, nullptr);
    const uint64_t cycles = 1000000;
    for (uint64_t c = 0; c < cycles; ++c) rec.afterStep(c);
    rec.finish(cycles - 1);
    // Every cycle for 4000 samples, then every 2, 4, ... cycles: 4000 samples per doubling
    // up to 2^8 (1,020,000 cycles), two counters per sample, plus the final one.
    CHECK(trace.counters() < 2 * 4000 * 8 + 1);
    CHECK(trace.counters() > 2 * 4000 * 7);
    CHECK(trace.spans() == 1);
}

TEST_CASE("outputs: a Perfetto trace in cycles or ns, with flow arrows") {
    hw::PerfettoTrace trace(1.5e9);  // 666.67 ps a cycle: ns values are not whole
    const uint32_t p = trace.process("core 0"), q = trace.process("core 1");
    const uint32_t ts = trace.track(p, "send", 1), tr = trace.track(q, "receive", 1);
    trace.span(p, ts, "send", 3, 10);
    trace.span(q, tr, "recv", 2, 40);
    trace.flow("message", p, ts, 3, q, tr, 2);
    CHECK(trace.flows() == 1);
    auto parsed = [&] {
        std::ostringstream os;
        trace.write(os);
        return nlohmann::json::parse(os.str());
    };
    auto find = [](const nlohmann::json& j, const std::string& ph) {
        for (const auto& e : j["traceEvents"])
            if (e["ph"] == ph) return e;
        FAIL("no event " << ph);
        return nlohmann::json();
    };
    // Default: microseconds at the clock, exact to the picosecond.
    nlohmann::json j = parsed();
    CHECK(j["otherData"]["time_unit"] == "real time at the NoC clock");
    CHECK(find(j, "X")["ts"].get<double>() == Approx(0.002));      // 3 cycles = 2 ns
    CHECK(find(j, "X")["dur"].get<double>() == Approx(0.004667));  // 7 cycles
    CHECK(find(j, "s")["ts"].get<double>() == Approx(0.002));
    // Cycles: the cycle numbers themselves.
    trace.setUnit(hw::PerfettoTrace::parseUnit("cycles"));
    j = parsed();
    CHECK(j["otherData"]["time_unit"] == "cycles: the viewer's 1 us is 1 cycle");
    CHECK(find(j, "X")["ts"] == 3);
    CHECK(find(j, "X")["dur"] == 7);
    const nlohmann::json s = find(j, "s"), f = find(j, "f");
    CHECK(s["ts"] == 3);
    CHECK(s["pid"] == p);
    CHECK(s["tid"] == ts);
    CHECK(f["ts"] == 2);
    CHECK(f["pid"] == q);
    CHECK(f["tid"] == tr);
    CHECK(f["bp"] == "e");  // bound to the enclosing slice: the receive
    CHECK(s["id"] == f["id"]);
    CHECK_THROWS_AS(hw::PerfettoTrace::parseUnit("us"), std::invalid_argument);
}
