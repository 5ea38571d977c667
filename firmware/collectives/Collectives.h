#pragma once
// The collectives library: per-rank instruction streams for ring all-reduce, reduce-scatter
// and all-gather (unidirectional or bidirectional, on any ring of nodes, or hierarchical on a
// rows x cols grid), direct all-to-all (uniform, or all-to-all-v with per-pair sizes:
// CollectiveSpec::counts), broadcast and reduce trees and point-to-point transfers,
// appended to the programs of the ranks' NoC nodes. Plain C++ on the instruction set: it runs on
// a die-level NoC (one core per die) as on any core mesh. docs/COLLECTIVES.md has every
// algorithm, the buffer naming and data layout, memory staging and the closed-form times
// (CollectiveTiming).
//
// Buffers: a collective declares its buffers on every rank as "<prefix>.<name>" in a fixed order
// and reuses a buffer of that name if the program has one (SRAM is allocated in declaration
// order and never freed, so a hundred all-reduces of one size with one prefix cost SRAM once).
// Instructions address whole buffers, so a tensor is a list of buffers; the layout says which.
//
//   CollectiveSpec s;
//   s.kind = Collective::AllReduce, s.algo = Algorithm::Ring, s.ranks = {a, b, c, d};
//   s.elems = 1 << 20, s.prefix = "tp0.ar", s.pieces = 4;
//   Staging st{8 << 20, {addr_a, addr_b, addr_c, addr_d}};  // tensor in HBM, 8 MB of SRAM
//   Collectives::emitStaged(fw, s, st);                     // or emit(fw, s) + own dma.load/store
#include <cstdint>

#include "firmware/Firmware.h"
#include "firmware/collectives/CollectiveLayout.h"
#include "firmware/collectives/CollectiveSpec.h"

namespace wsc::firmware::coll {

class Collectives {
  public:
    // Throws std::invalid_argument naming what is wrong (unknown combination, ranks off the
    // chip or repeated, grid that does not match, zero sizes, ...). `nodes`: the chip's nodes.
    static void validate(const CollectiveSpec& s, uint32_t nodes);
    // Appends the collective to the ranks' programs; the caller fills the input buffers before
    // and reads the output buffers after (in program order).
    static CollectiveLayout emit(Firmware& fw, const CollectiveSpec& s);
    // The same for a tensor in each rank's memory port: segment by segment through SRAM within
    // st.budget_bytes per rank, two buffer sets in turn ("<prefix>.s0.*", "<prefix>.s1.*"): the
    // loads of segment s+1 and the stores of segment s-1 are spread through segment s's
    // communication, so memory traffic overlaps it. Memory layout per kind: docs/COLLECTIVES.md.
    static StagedPlan emitStaged(Firmware& fw, const CollectiveSpec& s, const Staging& st);
    // Bytes of SRAM emit() would use per rank at most (its buffers, whether new or reused).
    static uint64_t sramBytes(const CollectiveSpec& s);
};

}  // namespace wsc::firmware::coll
