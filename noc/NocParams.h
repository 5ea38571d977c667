#pragma once
// Typed NoC parameters. hw/ fills these from YAML (units already converted to cycles and bytes);
// noc/ never sees YAML, so the network can be built directly from C++ in tests and generators.
#include <cstdint>
#include <string>
#include <vector>

namespace wsc::noc {

enum class RoutingAlgo { XY, YX, Table };

// An on-die link between neighbouring routers (also used for the NI<->router local links).
struct LinkParams {
    uint32_t latency = 1;         // cycles from switch grant to arrival in the next buffer, >= 1
    uint32_t width_bytes = 16;    // bytes crossing per cycle; a wider flit takes ceil(flit/width)
    uint32_t credit_latency = 1;  // cycles for a credit to travel back, >= 1
    double energy_pj_per_bit = 0.0;  // per traversal of this link (a "hop")
};

// A die-to-die link (SerDes + optional FEC). Used where a link crosses a die boundary and for
// every wrap-around (torus) link. Lengths come from the topology's geometry.
//
// Clock: with clock_hz 0 (or equal to the NoC clock) the link runs on the NoC clock and every
// cycle count below is a NoC cycle. With its own clock, widths and cycle counts are in D2D
// cycles and Link converts them to NoC cycles through a noc::ClockDomainCrossing at each end
// (`sync` destination cycles each way): see Link.h and docs/NOC.md, "D2D clock".
struct D2DParams {
    uint32_t width_bytes = 16;       // bytes per (D2D) cycle = bandwidth / clock
    uint32_t latency = 1;            // cycles: wire + protocol latency, >= 1
    uint32_t serdes_latency = 0;     // cycles added by serialiser/deserialiser
    double fec_threshold_mm = 50.0;  // links longer than this need FEC (TEMP)
    uint32_t fec_latency = 0;        // cycles added when FEC is needed (TEMP: 210 ns)
    double clock_hz = 0.0;           // 0 = the NoC clock (no crossing)
    uint32_t sync = 2;               // synchronizer cycles per crossing (own clock only)
    double energy_pj_per_bit = 0.0;
    double ber = 0.0;  // bit-error rate; a corrupted flit is NACKed and resent
};

struct TopologyParams {
    uint32_t x = 8, y = 8;          // routers in the mesh
    uint32_t die_x = 0, die_y = 0;  // routers per die; 0 means "the whole mesh is one die"
    uint32_t local_ports = 1;       // NI ports per router
    double core_pitch_mm = 1.0;     // distance between neighbouring routers on a die
    double die_pitch_mm = 26.0;     // distance between neighbouring dies' origins
    bool wrap = false;              // torus: add wrap-around links (always D2D links)
    // Several wafers joined edge to edge (a multi-wafer system): routers per wafer along x and
    // y, 0 = the whole mesh is one wafer. A link between two wafers is a wafer-to-wafer link
    // (NocParams::w2w).
    uint32_t wafer_x = 0, wafer_y = 0;
};

struct RouterParams {
    uint32_t vcs = 4;              // virtual channels per input port
    uint32_t vc_buffer_flits = 8;  // buffer depth per VC
    // Cycles from buffer arrival to switch grant (0..4). 0 is the single-cycle hop: route
    // computation (lookahead), VA, SA and switch traversal in the cycle the flit arrives, so a
    // hop costs only the link (docs/NOC.md, "Timing"). The delay-line model: allocation happens
    // once the cycles have passed, all stages at once.
    uint32_t pipeline = 2;
    // Stage-accurate timing (YAML router.pipeline as a preset's shorthand, router.preset or
    // router.stages; docs/NOC.md, "Router stages"):
    // each stage takes its cycles and allocation happens in its own stage. A head may request
    // VC allocation `rc` cycles after it arrives (rc 0: lookahead routing); once granted it
    // requests switch allocation `va` cycles later (va 0: speculative, VA and SA in one cycle);
    // a body flit requests the switch rc + va cycles after it arrives; a flit that wins the
    // switch leaves its buffer (its credit goes back) `sa` cycles later and enters the link
    // `sa + st` cycles later. Zero load: rc + va + sa + st cycles per router.
    struct Stages {
        uint32_t rc = 1, va = 1, sa = 1, st = 1;
    };
    bool staged = false;
    Stages stages;
    // Not configurable: false sends a delay line's VC allocation through the general allocator
    // even when every head is a plain unicast (a test compares the two; Router::evaluate).
    bool unicast_va = true;
    // The named stage-accurate presets, indexed by their cycles per hop (0..4): what the YAML
    // shorthand `pipeline: N cycles` and `wsc traffic --pipelines` name (docs/NOC.md, "Router
    // stages").
    static constexpr uint32_t kPresets = 5;
    static const char* presetName(uint32_t cycles) {
        constexpr const char* names[kPresets] = {"single_cycle", "one_stage", "lookahead",
                                                 "speculative", "four_stage"};
        return names[cycles];
    }
    static Stages presetStages(uint32_t cycles) {
        constexpr Stages stages[kPresets] = {{0, 0, 0, 0},   // everything in the arrival cycle
                                             {0, 0, 1, 0},   // VA + SA at arrival, leave after
                                             {0, 0, 1, 1},   // lookahead RC, VA + SA, ST
                                             {1, 0, 1, 1},   // RC, VA + SA, ST
                                             {1, 1, 1, 1}};  // RC, VA, SA, ST
        return stages[cycles];
    }
    // This router becomes the preset with `cycles` per hop.
    void usePreset(uint32_t cycles) {
        staged = true;
        stages = presetStages(cycles);
        pipeline = cycles;
    }
    // Zero-load cycles a flit spends in a router (the per-hop router term of every closed form).
    uint32_t hopCycles() const {
        return staged ? stages.rc + stages.va + stages.sa + stages.st : pipeline;
    }
};

// How unicast traffic is routed when anything failed: Escape = shortest surviving paths on VCs
// 1..n-1 with an up*/down* escape VC 0 (noc/EscapeRouting; with 1 VC the network falls back to
// UpDown); UpDown = up*/down* on every VC (noc/UpDownRouting). Both are deadlock-free on any
// surviving graph.
enum class FaultRouting { Escape, UpDown };

// Failed hardware. A failed link takes both directions of a mesh link out; a failed router takes
// its core's NI with it.
struct FaultParams {
    struct LinkFault {
        uint32_t x = 0, y = 0;
        uint8_t port = 0;  // Topology port: 0 E, 1 W, 2 N, 3 S
    };
    std::vector<LinkFault> links;
    std::vector<uint32_t> routers;  // router indices (y * x + x)
    double link_rate = 0.0;         // each mesh link fails independently with this probability
    uint64_t seed = 1;
    bool allow_partition = false;  // run even if some nodes cannot reach others (skip those pairs)
    bool force_updown = false;     // fault routing even with nothing failed (a fair baseline)
    FaultRouting routing = FaultRouting::Escape;
    bool any() const { return !links.empty() || !routers.empty() || link_rate > 0 || force_updown; }
    // Unicast routing around failures takes the escape policy (it needs 2 VCs; else up*/down*).
    bool escape(uint32_t vcs) const { return any() && routing == FaultRouting::Escape && vcs >= 2; }
};

struct NocParams {
    double clock_hz = 1e9;
    uint32_t flit_bytes = 16;
    RoutingAlgo routing = RoutingAlgo::XY;
    uint32_t route_limit = 24;  // table entries per router (WaferLLM PLMR "R")
    TopologyParams topology;
    RouterParams router;
    LinkParams link;        // router <-> router on a die
    LinkParams local_link;  // NI <-> router
    D2DParams d2d;
    // Links between wafers (TopologyParams::wafer_x / wafer_y): their own bandwidth, latency and
    // energy, D2D links in every other respect (MoEntwine: 9 TB/s per wafer border).
    D2DParams w2w;
    uint64_t watchdog_cycles = 10000;  // no flit moved this long with flits in flight = deadlock
    // Simulation, not hardware: threads that visit a cycle's routers (Network::setThreads;
    // results are the same for every count). `noc.threads` or `--threads`.
    uint32_t threads = 1;
    // How an NI picks its next packet: in arrival order (false), or the oldest packet bound for a
    // destination other than the previous packet's (true: a node sending to several neighbours
    // at once, like a die's DMA channels, interleaves them; each destination stays in order).
    bool interleave_injection = false;
    FaultParams faults;
    // Router indices (y * x + x) simulated by the Verilated RTL router (hw/rtl) instead of
    // noc::Router; the network itself ignores this, the testbench installs them.
    std::vector<uint32_t> rtl_routers;
};

}  // namespace wsc::noc
