#pragma once
// Runs one linear operator's tensor-stream step (firmware/temp/TatpKernel: TATP or the naive
// ring, forward / backward / gradient) on every group of a die-level wafer at once, so groups
// share the D2D links as they would in a plan. Operands are placed in SRAM before the run; in
// functional mode the outputs are checked against a plain reference (O = I W, dI = dO W^T,
// dW = I^T dO). Reports cycles, compute utilisation, the busiest die's exposed communication,
// the chain and wrap hop lengths and the D2D link loads.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/CoreParams.h"
#include "firmware/temp/TatpKernel.h"
#include "firmware/temp/TrafficMap.h"
#include "hw/EnergyEvents.h"
#include "hw/EnergyParams.h"
#include "hw/EnergyReport.h"
#include "noc/NocParams.h"
#include "testbench/RunObserver.h"

namespace wsc::tb {

struct TatpRunSpec {
    std::string layout = "ring";  // GroupLayout policy: ring, tetris, or explicit groups
    uint32_t n = 4;               // dies per group
    firmware::temp::TatpKernel::Spec kernel;
    bool auto_stream = true;  // choose the streamed operand (TatpKernel::choose)
    bool functional = true;
    uint64_t seed = 1;
    // FSDP ring all-gathers beside the operator (explicit groups in ring order, "" for none),
    // each die contributing `fsdp_elems`; and the mapping: "smap" (the groups as given,
    // dimension-order routes) or "tcme" (TrafficMap's optimizer reorders groups and installs the
    // routes it picks).
    std::string fsdp;
    uint32_t fsdp_elems = 0;
    std::string mapping = "smap";
    firmware::temp::TrafficMap::Moves tcme_moves;  // what "tcme" may change
};

struct TatpResult {
    TatpRunSpec spec;
    std::string notes;
    std::vector<std::vector<uint32_t>> groups;   // dies in chain order
    uint32_t max_chain_hops = 0, wrap_hops = 0;  // the longest chain step and ring wrap
    uint64_t cycles = 0;
    uint64_t compute_cycles = 0;  // PE + vector busy cycles of the busiest die
    double efficiency = 0;        // useful MACs / (dies x peak x cycles)
    uint64_t useful_macs = 0;
    uint32_t slots = 0;
    uint64_t item_bytes = 0, sram_peak = 0;
    double link_max = 0, link_mean = 0;  // D2D links: busy cycles / run cycles (mean over all)
    // TCME's representation of the forward's flows (TrafficMap): flows per busiest (round, link),
    // how many (round, link) pairs carry that, mean flows per loaded pair; before and after the
    // optimizer (equal under smap), and the moves it kept.
    uint64_t load_max_before = 0, load_max = 0;
    uint32_t load_at_max_before = 0, load_at_max = 0;
    double load_mean_before = 0, load_mean = 0;
    std::vector<std::string> moves;
    uint32_t installed_routes = 0;  // table routes: Y-first paths and multicast trees
    uint32_t multicast_trees = 0;
    uint64_t d2d_flits = 0;
    bool checked = false, correct = false;
    double max_abs_error = 0;
    double wall_seconds = 0;
    hw::EnergyEvents events;  // every core and link of the wafer
    hw::EnergyReport energy;  // priced by hw::EnergyModel with the run's energy parameters
};

class TatpTestbench {
  public:
    // `np` and `cp` are a die-level hardware file's (one core per die). Throws
    // std::invalid_argument on a layout or shape that cannot be made.
    // `observers` (RunOutputs: heatmap, Perfetto) watch the run when given; `energy` prices it.
    static TatpResult run(const noc::NocParams& np, const core::CoreParams& cp,
                          const TatpRunSpec& s, const std::vector<RunObserver*>& observers = {},
                          const hw::EnergyParams& energy = {});
    static void printReport(std::ostream& os, const TatpResult& r);
    static void printTableHeader(std::ostream& os);
    static void printTableRow(std::ostream& os, const TatpResult& r);
};

}  // namespace wsc::tb
