#include "hw/NocConfigLoader.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/FaultConfigLoader.h"
#include "hw/InputLimits.h"
#include "noc/Link.h"

namespace wsc::hw {

namespace {

constexpr uint32_t kMaxMeshSide = 65535;  // x * y then always fits uint32_t
constexpr uint64_t kMaxFlitBytes = 64 * 1024;
constexpr double kMm = 1e-3;  // metres per millimetre
constexpr double kPjPerJ = 1e12;
constexpr uint32_t kMaxLatency = limits::kMaxLatencyCycles;

// A clock in [1 MHz, 1 THz] (hw/InputLimits.h): catches unit slips ("1e9 GHz", "1 Hz") and keeps
// every default time (210 ns FEC, HBM refresh) a sane number of cycles.
void checkClock(const YamlReader& r, const std::string& key, double hz) {
    if (!(hz >= limits::kMinClockHz) || hz > limits::kMaxClockHz)
        r.fail(key, "a frequency between 1 MHz and 1000 GHz");
}

bool needsD2D(const noc::TopologyParams& t) {
    const bool multiDie = t.die_x != 0 && (t.die_x < t.x || t.die_y < t.y);
    return multiDie || t.wrap;
}

}  // namespace

noc::NocParams NocConfigLoader::load(const YamlReader& n) {
    return load(n, nullptr);
}

noc::NocParams NocConfigLoader::load(const YamlReader& n, const noc::TopologyParams* fromWafer) {
    n.checkKeys({"clock", "flit_size", "topology", "routing", "route_limit", "router", "link",
                 "local_link", "d2d", "w2w", "watchdog", "rtl_routers", "faults", "injection",
                 "threads"});
    noc::NocParams p;
    // Clock first: every time given in ns/us below is converted to cycles at this clock.
    p.clock_hz = n.getQuantity("clock", Dim::Frequency);
    checkClock(n, "clock", p.clock_hz);
    p.flit_bytes = static_cast<uint32_t>(n.getBytes("flit_size", 1, kMaxFlitBytes));

    if (!fromWafer) {
        loadTopology(n.child("topology"), p);
    } else if (n.has("topology")) {
        throw n.errorAt("topology",
                        "the wafer: section gives the topology (dies x cores per die); "
                        "remove noc.topology or the wafer: section");
    } else {
        p.topology = *fromWafer;
    }

    const std::string routing = n.getEnum("routing", {"xy", "yx", "table"}, "xy");
    p.routing = routing == "xy"   ? noc::RoutingAlgo::XY
                : routing == "yx" ? noc::RoutingAlgo::YX
                                  : noc::RoutingAlgo::Table;
    p.route_limit = n.getUInt("route_limit", 1, 1024, p.route_limit);

    loadRouter(n, p);

    p.link = loadLink(n.child("link"), p, p.link, true);
    // The NI link defaults to one flit per cycle in one cycle: an NI never throttles the router.
    noc::LinkParams localDefaults;
    localDefaults.latency = 1;
    localDefaults.width_bytes = p.flit_bytes;
    localDefaults.credit_latency = 1;
    localDefaults.energy_pj_per_bit = 0.0;
    const auto local = n.optionalChild("local_link");
    p.local_link = local ? loadLink(*local, p, localDefaults, false) : localDefaults;

    loadD2D(n, p);
    loadW2W(n, p);

    p.interleave_injection = n.getEnum("injection", {"fifo", "interleave"}, "fifo") == "interleave";
    p.watchdog_cycles =
        n.getCycles64("watchdog", p.clock_hz, 100, limits::kMaxPhaseCycles, p.watchdog_cycles);
    p.threads = n.getUInt("threads", 1, 256, p.threads);

    // Positions co-simulated with the RTL router (hw/rtl): a list of router indices y * x + x.
    if (n.has("rtl_routers")) {
        const YamlReader list = n.entry("rtl_routers");
        if (!list.isSequence()) n.fail("rtl_routers", "a list of router indices, e.g. [5, 6]");
        const uint32_t routers = p.topology.x * p.topology.y;
        for (const YamlReader& e : list.elements()) {
            const std::string text = e.scalar("a router index");
            const std::string expected = fmt::format("a router index in [0, {}]", routers - 1);
            if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
                text.size() > 10 || std::stoull(text) >= routers)
                e.failHere(expected);
            const uint32_t r = static_cast<uint32_t>(std::stoull(text));
            for (uint32_t seen : p.rtl_routers)
                if (seen == r) e.failHere("each router at most once");
            p.rtl_routers.push_back(r);
        }
        if (p.router.staged && !p.rtl_routers.empty())
            n.fail("rtl_routers",
                   "no RTL routers unless router.model is delay_line (the Verilated router "
                   "implements the delay line; without that key the router is the "
                   "stage-accurate one)");
    }
    if (const auto f = n.optionalChild("faults"))
        p.faults = FaultConfigLoader::load(*f, p.topology, p.router.vcs);
    return p;
}

void NocConfigLoader::loadTopology(const YamlReader& t, noc::NocParams& p) {
    t.checkKeys({"mesh", "die", "core_pitch", "die_pitch", "wrap", "local_ports"});
    noc::TopologyParams& topo = p.topology;

    const YamlReader mesh = t.child("mesh");
    mesh.checkKeys({"x", "y"});
    topo.x = mesh.getUInt("x", 1, kMaxMeshSide);
    topo.y = mesh.getUInt("y", 1, kMaxMeshSide);
    topo.local_ports = t.getUInt("local_ports", 1, 4, 1);
    if (uint64_t{topo.x} * topo.y * topo.local_ports > YamlReader::kMaxU32)
        mesh.failHere("a mesh with at most 2^32-1 network ports (x * y * local_ports)");

    topo.core_pitch_mm = t.getQuantity("core_pitch", Dim::Length, 1.0 * kMm) / kMm;
    if (!(topo.core_pitch_mm > 0.0)) t.fail("core_pitch", "a length > 0");
    topo.die_pitch_mm = t.getQuantity("die_pitch", Dim::Length, 26.0 * kMm) / kMm;
    if (!(topo.die_pitch_mm > 0.0)) t.fail("die_pitch", "a length > 0");

    topo.die_x = topo.die_y = 0;  // 0 = the whole mesh is one die
    if (const auto die = t.optionalChild("die")) {
        die->checkKeys({"x", "y"});
        topo.die_x = die->getUInt("x", 1, kMaxMeshSide);
        topo.die_y = die->getUInt("y", 1, kMaxMeshSide);
        if (topo.x % topo.die_x != 0)
            die->fail("x", fmt::format("a divisor of the mesh width {} (routers per die along x)",
                                       topo.x));
        if (topo.y % topo.die_y != 0)
            die->fail("y", fmt::format("a divisor of the mesh height {} (routers per die along y)",
                                       topo.y));
        // Neighbouring dies' edge routers must be apart, or a D2D link gets no length: the die
        // pitch must exceed the span of a die's routers (same rule as noc::Topology).
        const auto tooSmall = [&](uint32_t perDie, uint32_t meshSide) {
            return perDie < meshSide && topo.die_pitch_mm <= (perDie - 1) * topo.core_pitch_mm;
        };
        if (tooSmall(topo.die_x, topo.x) || tooSmall(topo.die_y, topo.y)) {
            const uint32_t span = std::max(topo.die_x, topo.die_y) - 1;
            const std::string expected = fmt::format(
                "a die pitch > {:g} mm ({} core pitches of {:g} mm: the span of a die's routers)",
                span * topo.core_pitch_mm, span, topo.core_pitch_mm);
            if (t.has("die_pitch")) t.fail("die_pitch", expected);
            throw die->errorHere("expected " + expected + ", but die_pitch is the default " +
                                 fmt::format("{:g} mm", topo.die_pitch_mm));
        }
    }
    topo.wrap = t.getBool("wrap", false);
}

void NocConfigLoader::loadRouter(const YamlReader& n, noc::NocParams& p) {
    const auto r = n.optionalChild("router");
    // No router map: the 2-cycle preset, as `pipeline: 2 cycles` would give.
    if (!r) p.router.usePreset(p.router.pipeline);
    if (r) {
        r->checkKeys({"model", "pipeline", "vcs", "vc_buffer", "stages", "preset"});
        // model: staged (allocation in its own stage, validated against BookSim2) or delay_line
        // (every stage at once after `pipeline` cycles: the model the shipped configs and their
        // results use). pipeline: N cycles is the delay line's length, or under staged the
        // shorthand for the preset with N cycles per hop.
        const bool delay = r->getEnum("model", {"staged", "delay_line"}, "staged") == "delay_line";
        const bool stages = r->has("stages"), preset = r->has("preset");
        if (delay && (stages || preset))
            r->fail(stages ? "stages" : "preset",
                    "no stages or preset with model: delay_line (its timing is pipeline: N "
                    "cycles); for the stage-accurate router drop model, or with --set replace "
                    "the whole map: --set \"noc.router={preset: NAME, vcs: V, vc_buffer: B "
                    "flits}\"");
        if ((stages || preset) && r->has("pipeline"))
            r->fail(stages ? "stages" : "preset",
                    "only one of pipeline (shorthand for the preset with that many cycles per "
                    "hop), preset and stages");
        if (stages && preset) r->fail("stages", "either preset or stages, not both");
        if (!stages && !preset) {
            // 0 under the delay line: the router forwards in the cycle a flit arrives.
            p.router.pipeline = r->getCycles("pipeline", p.clock_hz, 0, 4, p.router.pipeline);
            if (delay)
                p.router.staged = false;
            else
                p.router.usePreset(p.router.pipeline);
        }
        if (preset) {
            std::vector<std::string> names;
            for (uint32_t c = 0; c < noc::RouterParams::kPresets; ++c)
                names.push_back(noc::RouterParams::presetName(c));
            const std::string name = r->getEnum("preset", names);
            for (uint32_t c = 0; c < noc::RouterParams::kPresets; ++c)
                if (name == names[c]) p.router.usePreset(c);
        }
        if (stages) {
            const YamlReader s = r->entry("stages");
            if (!s.isMap()) r->fail("stages", "a map {rc: N cycles, va: N, sa: N, st: N}");
            s.checkKeys({"rc", "va", "sa", "st"});
            auto& st = p.router.stages;
            st.rc = s.getCycles("rc", p.clock_hz, 0, 4, st.rc);
            st.va = s.getCycles("va", p.clock_hz, 0, 4, st.va);
            st.sa = s.getCycles("sa", p.clock_hz, 0, 4, st.sa);
            st.st = s.getCycles("st", p.clock_hz, 0, 4, st.st);
            p.router.staged = true;
        }
        p.router.vcs = r->getUInt("vcs", 1, 16, p.router.vcs);
        p.router.vc_buffer_flits =
            r->getFlits("vc_buffer", p.flit_bytes, 1, 255, p.router.vc_buffer_flits);
    }
    if (p.topology.wrap && p.router.vcs < 2) {
        // A torus breaks the ring's cyclic channel dependency with a dateline between two VC
        // classes; one VC cannot do that and would deadlock.
        const std::string expected =
            "at least 2 virtual channels when topology.wrap is true (a torus needs two VC "
            "classes for the dateline)";
        r->fail("vcs", expected);  // vcs < 2 here means the user set it: r exists
    }
}

noc::LinkParams NocConfigLoader::loadLink(const YamlReader& l, const noc::NocParams& p,
                                          const noc::LinkParams& defaults, bool required) {
    l.checkKeys({"latency", "width", "credit_latency", "energy"});
    const auto opt = [required](uint32_t v) {
        return required ? std::nullopt : std::optional<uint32_t>(v);
    };
    noc::LinkParams link;
    link.latency = l.getCycles("latency", p.clock_hz, 1, kMaxLatency, opt(defaults.latency));
    const auto width = required ? std::nullopt : std::optional<uint64_t>(defaults.width_bytes);
    link.width_bytes = static_cast<uint32_t>(l.getBytes("width", 1, limits::kMaxWidthBytes, width));
    // A router keeps a port's cycles per flit in 16 bits (Router::Peer::ser).
    if ((uint64_t{p.flit_bytes} + link.width_bytes - 1) / link.width_bytes > UINT16_MAX)
        l.fail("width", fmt::format("a width that moves a {}-byte flit in at most {} cycles",
                                    p.flit_bytes, UINT16_MAX));
    link.credit_latency =
        l.getCycles("credit_latency", p.clock_hz, 1, kMaxLatency, defaults.credit_latency);
    link.energy_pj_per_bit =
        l.getQuantity("energy", Dim::EnergyPerBit, defaults.energy_pj_per_bit / kPjPerJ) * kPjPerJ;
    return link;
}

void NocConfigLoader::loadD2D(const YamlReader& n, noc::NocParams& p) {
    noc::D2DParams& d = p.d2d;
    const uint32_t defaultFec = Units::toCycles("210 ns", p.clock_hz);
    const auto s = n.optionalChild("d2d");
    if (!s) {
        if (needsD2D(p.topology))
            throw n.errorAt("d2d", "missing required key: the topology has die-to-die links (" +
                                       std::string(p.topology.wrap ? "wrap-around links"
                                                                   : "more than one die") +
                                       "), which need d2d.bandwidth and d2d.latency");
        d.fec_latency = defaultFec;
        return;
    }
    d = loadLinkClass(*s, p);
}

void NocConfigLoader::loadW2W(const YamlReader& n, noc::NocParams& p) {
    const bool wafers = p.topology.wafer_x || p.topology.wafer_y;
    const auto s = n.optionalChild("w2w");
    if (!wafers) {
        if (s)
            throw n.errorAt("w2w",
                            "a w2w: section needs wafer.wafers of more than one wafer (one "
                            "wafer has no wafer-to-wafer links)");
        return;
    }
    if (!s)
        throw n.errorAt("w2w",
                        "missing required key: the wafer has several wafers "
                        "(wafer.wafers), whose links need w2w.bandwidth and w2w.latency");
    p.w2w = loadLinkClass(*s, p);
}

noc::D2DParams NocConfigLoader::loadLinkClass(const YamlReader& s, const noc::NocParams& p) {
    noc::D2DParams d;
    s.checkKeys({"bandwidth", "latency", "serdes_latency", "fec_threshold", "fec_latency", "energy",
                 "ber", "clock", "sync"});
    // The D2D clock (default: the NoC clock). Every D2D width and cycle count is in its cycles;
    // noc::Link converts a link on its own clock to NoC cycles (docs/NOC.md, "D2D clock").
    const double clock = s.getQuantity("clock", Dim::Frequency, p.clock_hz);
    checkClock(s, "clock", clock);
    d.clock_hz = s.has("clock") ? clock : 0.0;
    // Width is ROUNDED DOWN to whole bytes per cycle: the model never exceeds the specified
    // bandwidth. Values within 1e-9 of a whole number snap to it (floating-point noise).
    const double bandwidth = s.getQuantity("bandwidth", Dim::Bandwidth);
    double perCycle = bandwidth / clock;
    const double nearest = std::nearbyint(perCycle);
    if (std::fabs(perCycle - nearest) <= 1e-9 * std::max(1.0, nearest)) perCycle = nearest;
    if (perCycle < 1.0)
        s.fail("bandwidth", fmt::format("a bandwidth of at least 1 byte per cycle ({:g} GB/s at "
                                        "the {:g} GHz {}clock)",
                                        clock / 1e9, clock / 1e9, s.has("clock") ? "D2D " : ""));
    if (perCycle > limits::kMaxWidthBytes)
        s.fail("bandwidth",
               fmt::format("a bandwidth of at most {} bytes per cycle ({:g} GB/s at "
                           "the {:g} GHz {}clock)",
                           limits::kMaxWidthBytes, limits::kMaxWidthBytes * clock / 1e9,
                           clock / 1e9, s.has("clock") ? "D2D " : ""));
    d.width_bytes = static_cast<uint32_t>(std::floor(perCycle));
    d.latency = s.getCycles("latency", clock, 1, kMaxLatency);
    d.serdes_latency = s.getCycles("serdes_latency", clock, 0, kMaxLatency, 0);
    d.fec_threshold_mm = s.getQuantity("fec_threshold", Dim::Length, 50.0 * kMm) / kMm;
    d.fec_latency =
        s.getCycles("fec_latency", clock, 0, kMaxLatency, Units::toCycles("210 ns", clock));
    // Synchronizer stages of each crossing (NoC -> D2D and back), only used on an own clock.
    d.sync = s.getCycles("sync", clock, 0, 64, d.sync);
    d.energy_pj_per_bit = s.getQuantity("energy", Dim::EnergyPerBit, 0.0) * kPjPerJ;
    d.ber = s.getDouble("ber", 0.0, 1e-3, 0.0);
    // The longest D2D link as noc::Link builds it (with FEC; on an own clock converted to NoC
    // cycles): a BER that corrupts most flits, or a flight beyond the engine's cycle limit, is
    // refused here where the section is known rather than when the network is built.
    noc::Link::Spec spec;
    spec.kind = noc::Link::Kind::D2D;
    spec.latency = d.latency;
    spec.serdes = d.serdes_latency;
    spec.fec = d.fec_latency;
    spec.width_bytes = d.width_bytes;
    spec.ber = d.ber;
    spec.clock_hz = d.clock_hz;
    spec.noc_clock_hz = p.clock_hz;
    spec.sync = d.sync;
    try {
        if (noc::Link(spec, p.flit_bytes, 0).serialization() > UINT16_MAX)
            s.fail("bandwidth", fmt::format("a bandwidth that moves a {}-byte flit in at most {} "
                                            "NoC cycles",
                                            p.flit_bytes, UINT16_MAX));
    } catch (const std::invalid_argument& e) {
        throw s.errorHere(e.what());
    }
    return d;
}

}  // namespace wsc::hw
