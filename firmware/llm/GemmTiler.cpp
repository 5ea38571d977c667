#include "firmware/llm/GemmTiler.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace wsc::firmware::llm {

namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}

// Candidate tile sizes for a dimension of length d: d itself and d / 2^i rounded up to `align`.
std::vector<uint64_t> candidates(uint64_t d, uint64_t align) {
    std::vector<uint64_t> c{d};
    for (uint64_t parts = 2; parts <= 4096 && parts <= d; parts *= 2) {
        uint64_t t = ceilDiv(d, parts);
        if (d > align) t = ceilDiv(t, align) * align;
        if (t == 0 || t >= d) continue;
        if (c.back() != t) c.push_back(t);
    }
    return c;
}

}  // namespace

GemmTiling GemmTiler::evaluate(uint64_t m, uint64_t k, uint64_t n, uint32_t e, uint64_t tm,
                               uint64_t tk, uint64_t tn) {
    GemmTiling t;
    t.tm = tm, t.tk = tk, t.tn = tn;
    t.mt = ceilDiv(m, tm), t.kt = ceilDiv(k, tk), t.nt = ceilDiv(n, tn);
    const uint64_t a = m * k * e, b = k * n * e, c = m * n * e;
    // A is re-read for every n-tile unless it is one tile that stays resident.
    const bool a_resident = t.mt == 1 && t.kt == 1;
    t.a_bytes = a * (a_resident ? 1 : t.nt);
    // B is re-read for every m-tile unless its n-tile (all of K) stays resident across m.
    t.b_resident = t.kt == 1;
    t.b_bytes = b * (t.b_resident ? 1 : t.mt);
    // k is the innermost loop: a C tile stays in SRAM over its k-tiles and is written once.
    t.c_bytes = c;
    // Double-buffered A and C tiles; B double-buffered too (its next n-tile loads while the
    // last m-tiles of this one compute).
    t.sram_bytes = 2 * (tm * tk + tk * tn + tm * tn) * e;
    return t;
}

GemmTiling GemmTiler::choose(uint64_t m, uint64_t k, uint64_t n, uint32_t e, uint64_t budget,
                             uint64_t align, uint64_t max_tiles) {
    if (m == 0 || k == 0 || n == 0) throw std::invalid_argument("gemm tiler: empty product");
    GemmTiling best;
    bool found = false;
    auto better = [&](const GemmTiling& x) {
        if (!found) return true;
        if (x.hbm_bytes() != best.hbm_bytes()) return x.hbm_bytes() < best.hbm_bytes();
        return x.tiles() < best.tiles();
    };
    for (uint64_t tk : candidates(k, align))
        for (uint64_t tn : candidates(n, align))
            for (uint64_t tm : candidates(m, align)) {
                const GemmTiling t = evaluate(m, k, n, e, tm, tk, tn);
                if (t.sram_bytes > budget || t.tiles() > max_tiles) continue;
                if (better(t)) best = t, found = true;
            }
    if (!found) {
        // Nothing fits both limits: the smallest tiles that fit the budget, however many.
        for (uint64_t tk : candidates(k, align))
            for (uint64_t tn : candidates(n, align))
                for (uint64_t tm : candidates(m, align)) {
                    const GemmTiling t = evaluate(m, k, n, e, tm, tk, tn);
                    if (t.sram_bytes > budget) continue;
                    if (better(t)) best = t, found = true;
                }
    }
    if (!found)
        throw std::invalid_argument(
            "gemm tiler: not even the smallest tile fits the SRAM budget (raise sram.capacity)");
    return best;
}

GemmTiling GemmTiler::chooseCapped(uint64_t m, uint64_t k, uint64_t n, uint32_t e, uint64_t cap_a,
                                   uint64_t cap_b, uint64_t cap_c, uint64_t align,
                                   uint64_t max_tiles) {
    if (m == 0 || k == 0 || n == 0) throw std::invalid_argument("gemm tiler: empty product");
    GemmTiling best;
    bool found = false;
    for (int pass = 0; pass < 2 && !found; ++pass)
        for (uint64_t tk : candidates(k, align))
            for (uint64_t tn : candidates(n, align))
                for (uint64_t tm : candidates(m, align)) {
                    if (tm * tk * e > cap_a || tk * tn * e > cap_b || tm * tn * e > cap_c) continue;
                    const GemmTiling t = evaluate(m, k, n, e, tm, tk, tn);
                    if (pass == 0 && t.tiles() > max_tiles) continue;
                    const bool better =
                        !found || t.hbm_bytes() < best.hbm_bytes() ||
                        (t.hbm_bytes() == best.hbm_bytes() && t.tiles() < best.tiles());
                    if (better) best = t, found = true;
                }
    if (!found)
        throw std::invalid_argument(
            "gemm tiler: not even the smallest tile fits the SRAM staging buffers (raise "
            "sram.capacity)");
    return best;
}

}  // namespace wsc::firmware::llm
