#pragma once
// Chooses how a die computes a large matrix product whose operands live in its HBM: the
// product is cut into SRAM tiles [tm x tk] x [tk x tn] that fit a budget with double buffering,
// and the order (n-tiles outer, m-tiles inner, k innermost) re-reads A once per n-tile and B once
// per m-tile unless a whole operand stays resident. Among the tilings that fit, the one moving
// the fewest HBM bytes wins (ties: fewer tiles). Pure arithmetic, unit-tested.
//
// HBM bytes of a tiling (e = bytes per element, nt = ceil(N/tn), mt = ceil(M/tm),
// kt = ceil(K/tk)):
//   A: M K e x (nt, or 1 when kt = 1 and the A tile is the whole of A)
//   B: K N e x (mt, or 1 when kt = 1 and tn = N: B stays resident)
//   C: M N e written once (k is innermost: a C tile accumulates in SRAM over its k-tiles)
#include <cstdint>

namespace wsc::firmware::llm {

struct GemmTiling {
    uint64_t tm = 0, tk = 0, tn = 0;
    uint64_t mt = 0, kt = 0, nt = 0;                 // tile counts
    uint64_t a_bytes = 0, b_bytes = 0, c_bytes = 0;  // HBM traffic of each operand
    uint64_t hbm_bytes() const { return a_bytes + b_bytes + c_bytes; }
    uint64_t tiles() const { return mt * kt * nt; }
    bool b_resident = false;  // B loaded once per n-tile and reused over all m-tiles
    uint64_t sram_bytes = 0;  // double-buffered footprint
};

class GemmTiler {
  public:
    // m x k times k x n, `elem` bytes per element, tiles within `budget` bytes of SRAM (double
    // buffered), each dimension a multiple of `align` elements unless the whole dimension is
    // smaller. `max_tiles` bounds the instruction count (a coarser tiling is taken if needed).
    static GemmTiling choose(uint64_t m, uint64_t k, uint64_t n, uint32_t elem, uint64_t budget,
                             uint64_t align = 64, uint64_t max_tiles = 4096);
    // The same with a cap per operand tile instead of one budget (a die's staging buffers are
    // fixed: A, B and C tiles each get their own pair of SRAM buffers of these many bytes).
    static GemmTiling chooseCapped(uint64_t m, uint64_t k, uint64_t n, uint32_t elem,
                                   uint64_t cap_a, uint64_t cap_b, uint64_t cap_c,
                                   uint64_t align = 64, uint64_t max_tiles = 4096);
    static GemmTiling evaluate(uint64_t m, uint64_t k, uint64_t n, uint32_t elem, uint64_t tm,
                               uint64_t tk, uint64_t tn);
};

}  // namespace wsc::firmware::llm
