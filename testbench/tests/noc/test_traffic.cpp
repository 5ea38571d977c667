// Acceptance runs of the synthetic-traffic testbench through the SystemC shell (one process per
// test case: SystemC elaborates once per process).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hw/HardwareLoader.h"
#include "noc/NocShell.h"
#include "testbench/TrafficTestbench.h"

using namespace wsc;

namespace {
noc::NocParams mesh8x8() {
    return hw::HardwareLoader::loadFile(std::string(WSC_SOURCE_DIR) + "/configs/mesh8x8.yaml").noc;
}
noc::TrafficParams uniform(double rate, uint64_t measure = 10000) {
    noc::TrafficParams t;
    t.pattern = "uniform";
    t.rate = rate;
    t.warmup_cycles = 1000;
    t.measure_cycles = measure;
    t.drain_cycles = 20000;
    return t;
}
}  // namespace

TEST_CASE("uniform 8x8 XY at 0.02 is within 5% of the zero-load closed form", "[noc][traffic]") {
    auto np = mesh8x8();
    noc::NocShell shell("noc", np.clock_hz);
    auto r = tb::TrafficTestbench::run(np, uniform(0.02), shell);
    const double k = 8, hops = 2 * (k * k - 1) / (3 * k);  // 5.25
    // Closed form averaged over all (src, dst) pairs: 2 + (D+1) P + D l with P = 2, l = 1.
    const double t0 = 2 + (hops + 1) * 2 + hops * 1;
    CHECK(r.zero_load_latency == Approx(t0).epsilon(1e-9));
    CHECK(r.hops_avg == Approx(hops).epsilon(0.03));
    CHECK(r.latency_avg >= t0 * 0.99);
    CHECK(r.latency_avg <= t0 * 1.05);
    CHECK(r.accepted == Approx(0.02).epsilon(0.1));
    CHECK(r.conservation_ok);
}

TEST_CASE("uniform 8x8 with 4 VCs x 8 flits and a 2-cycle router saturates above 0.40",
          "[noc][traffic]") {
    auto np = mesh8x8();
    REQUIRE(np.router.vcs == 4);
    REQUIRE(np.router.vc_buffer_flits == 8);
    REQUIRE(np.router.pipeline == 2);
    noc::NocShell shell("noc", np.clock_hz);
    auto r = tb::TrafficTestbench::run(np, uniform(0.5, 5000), shell);
    // Offered just beyond saturation (the knee is near 0.42): what the network accepts is its
    // saturation throughput, bounded above by the bisection limit 4/k = 0.5.
    CHECK(r.accepted >= 0.40);
    CHECK(r.accepted <= 0.5);
    CHECK(tb::TrafficTestbench::saturated(r));
}

TEST_CASE("2 VCs x 4-flit buffers saturate earlier than 4 VCs x 8", "[noc][traffic]") {
    auto np = mesh8x8();
    np.router.vcs = 2;
    np.router.vc_buffer_flits = 4;
    noc::NocShell shell("noc", np.clock_hz);
    auto small = tb::TrafficTestbench::run(np, uniform(0.5, 5000), shell);
    np.router.vcs = 4;
    np.router.vc_buffer_flits = 8;
    auto big = tb::TrafficTestbench::run(np, uniform(0.5, 5000), shell);
    CHECK(small.accepted < big.accepted);
    CHECK(small.accepted > 0.25);
}

TEST_CASE(
    "a stage-accurate 4-stage router saturates below the delay line of equal zero-load latency",
    "[noc][traffic][stages]") {
    // 2 VCs x 4 flits, uniform single flits at 0.4 (past both knees): the delay line with
    // pipeline 4 does RC, VA and SA in one cycle and frees a buffer slot at once; the staged
    // router allocates VCs and the switch in their own stages and a credit waits out the SA
    // stage, so it accepts less (docs/NOC.md, "Router stages"). Same zero-load latency.
    auto np = mesh8x8();
    np.router.vcs = 2;
    np.router.vc_buffer_flits = 4;
    np.router.pipeline = 4;
    noc::NocShell shell("noc", np.clock_hz);
    auto delay = tb::TrafficTestbench::run(np, uniform(0.4, 4000), shell);
    np.router.staged = true;
    np.router.stages = {1, 1, 1, 1};
    auto staged = tb::TrafficTestbench::run(np, uniform(0.4, 4000), shell);
    CHECK(staged.zero_load_latency == Approx(delay.zero_load_latency));
    INFO("accepted: delay line " << delay.accepted << ", staged " << staged.accepted);
    CHECK(staged.accepted < 0.97 * delay.accepted);
    CHECK(staged.accepted > 0.25);
}

TEST_CASE("the same seed gives identical results through the SystemC shell",
          "[noc][traffic][determinism]") {
    auto np = mesh8x8();
    noc::NocShell shell("noc", np.clock_hz);
    auto t = uniform(0.3, 3000);
    auto a = tb::TrafficTestbench::run(np, t, shell);
    auto b = tb::TrafficTestbench::run(np, t, shell);
    t.seed = 2;
    auto c = tb::TrafficTestbench::run(np, t, shell);
    CHECK(a.total_cycles == b.total_cycles);
    CHECK(a.latency_avg == b.latency_avg);
    CHECK(a.latency_max == b.latency_max);
    CHECK(a.flit_router_traversals == b.flit_router_traversals);
    CHECK(a.latency_avg != c.latency_avg);
}

TEST_CASE("every traffic pattern runs and conserves flits", "[noc][traffic]") {
    auto np = mesh8x8();
    noc::NocShell shell("noc", np.clock_hz);
    for (const char* pat : {"uniform", "transpose", "bitcomp", "bitrev", "shuffle", "tornado",
                            "neighbor", "hotspot"}) {
        auto t = uniform(0.05, 2000);
        t.pattern = pat;
        t.packet_flits = 3;
        auto r = tb::TrafficTestbench::run(np, t, shell);
        INFO(pat);
        CHECK(r.conservation_ok);
        CHECK(r.measured_packets > 0);
    }
}

TEST_CASE("the stats JSON holds every router and link and the VCD opens with its signals",
          "[noc][traffic][outputs]") {
    auto np = mesh8x8();
    noc::NocShell shell("noc", np.clock_hz);
    nlohmann::json j;
    tb::TrafficRunOptions opt;
    opt.stats = &j;
    opt.vcd_path = "test_trace.vcd";
    opt.trace_routers = {0, 27};
    auto r = tb::TrafficTestbench::run(np, uniform(0.1, 500), shell, opt);
    CHECK(j["noc"]["routers"].size() == 64);
    // 2 * (2 * 8 * 7) mesh links + 64 injection + 64 ejection links.
    CHECK(j["noc"]["links"].size() == 224 + 128);
    CHECK(j["traffic"]["flits_ejected"] == r.flits_ejected);
    uint64_t sum = 0;
    for (auto& [name, rt] : j["noc"]["routers"].items())
        sum += rt["flit_traversals"].get<uint64_t>();
    CHECK(sum == r.flit_router_traversals);
    std::ifstream f("test_trace.vcd");
    REQUIRE(f.good());
    std::stringstream ss;
    ss << f.rdbuf();
    std::string vcd = ss.str();
    CHECK(vcd.find("$enddefinitions") != std::string::npos);
    // Dotted names become GTKWave scopes: r3_3 / out_E / flit_valid.
    CHECK(vcd.find("$scope module r3_3 $end") != std::string::npos);
    CHECK(vcd.find("$scope module out_E $end") != std::string::npos);
    CHECK(vcd.find("$scope module in_L0 $end") != std::string::npos);
    auto id = [&](const std::string& var) {
        size_t at = vcd.find(" " + var + " ");
        REQUIRE(at != std::string::npos);
        size_t line = vcd.rfind("$var", at);
        std::istringstream ls(vcd.substr(line, at - line));
        std::string kw, type, width, code;
        ls >> kw >> type >> width >> code;
        return code;
    };
    CHECK(id("credits_vc3").size() > 0);
    CHECK(id("occupancy").size() > 0);
    // Some flit left a traced router during the run: a 1-bit flit_valid went high.
    std::string valid = id("flit_valid");
    CHECK(vcd.find("\n1" + valid + "\n") != std::string::npos);

    // Flit identity: every flit leaving r3_3's ejection port (router 27's local port, node 27) is
    // for node 27 and comes from a node of the mesh; the cycle counter counts cycles.
    std::map<std::string, std::string> code;  // "scope.var" -> VCD id, from the $scope nesting
    {
        std::istringstream in(vcd);
        std::vector<std::string> scope;
        std::string line;
        while (std::getline(in, line) && line.find("$enddefinitions") == std::string::npos) {
            std::istringstream ls(line);
            std::string kw, a, b, c, d;
            ls >> kw;
            if (kw == "$scope") {
                ls >> a >> b;
                scope.push_back(b);
            } else if (kw == "$upscope") {
                scope.pop_back();
            } else if (kw == "$var") {
                ls >> a >> b >> c >> d;
                std::string path;
                for (const auto& sc : scope) path += sc + ".";
                code[path + d] = c;
            }
        }
    }
    const std::string v27 = code.at("SystemC.r3_3.out_L0.flit_valid");
    const std::string d27 = code.at("SystemC.r3_3.out_L0.dst");
    const std::string s27 = code.at("SystemC.r3_3.out_L0.src");
    const std::string cyc = code.at("SystemC.cycle");
    std::map<std::string, uint64_t> val;
    uint64_t ejected = 0, checked_cycles = 0;
    auto check = [&] {
        if (val[v27] != 1) return;
        ++ejected;
        CHECK(val[d27] == 27);
        CHECK(val[s27] < 64);  // a node of the mesh (uniform traffic may send to itself)
    };
    {
        std::istringstream in(vcd.substr(vcd.find("$enddefinitions")));
        std::string tok;
        uint64_t t = 0;
        bool first = true;
        while (in >> tok) {
            if (tok == "$comment") {
                while (in >> tok && tok != "$end") {
                }
                continue;
            }
            if (tok[0] == '$') continue;  // $dumpvars, $end
            if (tok[0] == '#') {
                if (!first) check();
                first = false;
                const uint64_t nt = std::stoull(tok.substr(1));
                // One dump per cycle at 1 GHz (1000 ps): the counter says which.
                if (nt % 1000 == 0 && val.count(cyc)) {
                    CHECK(val[cyc] * 1000 == t);
                    ++checked_cycles;
                }
                t = nt;
            } else if (tok[0] == 'b') {
                std::string id;
                in >> id;
                val[id] = std::stoull(tok.substr(1), nullptr, 2);
            } else if (tok[0] == '0' || tok[0] == '1') {
                val[tok.substr(1)] = tok[0] - '0';
            }
        }
        check();
    }
    CHECK(ejected > 10);
    CHECK(checked_cycles > 400);

    // The GTKWave save file beside it names the dump and the new signals.
    std::ifstream g("test_trace.gtkw");
    REQUIRE(g.good());
    std::stringstream gs;
    gs << g.rdbuf();
    CHECK_THAT(gs.str(), Catch::Contains("[dumpfile] \"test_trace.vcd\""));
    CHECK_THAT(gs.str(), Catch::Contains("SystemC.r3_3.out_L0.packet[31:0]"));
    CHECK_THAT(gs.str(), Catch::Contains("SystemC.cycle[63:0]"));
}
