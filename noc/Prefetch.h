#pragma once
// Cache hints shared by the loops that walk a wafer's routers, NIs and cores (their state
// misses in cache on large meshes, so the loops ask for it a few entries ahead).
#include <cstddef>
#include <cstdint>

namespace wsc::noc {

// One cache line, for writing. Every helper that holds only prefetches must be always inlined
// (WSC_PREFETCH): GCC's pure/const analysis does not count a prefetch as a side effect, so a
// helper it did not inline became "pure" and its calls were deleted (Network::prefetchArrivals
// compiled to a bare return until 2026-11-28). A volatile asm would be safe without that rule
// but measured 4% slower on the 8x8 mesh (bench/noc.md, "Prefetching that works").
#define WSC_PREFETCH [[gnu::always_inline]] inline
WSC_PREFETCH void prefetchLine(const void* p) {
    __builtin_prefetch(p, 1);
}

// Every 64-byte line of [p, p + bytes), for writing.
WSC_PREFETCH void prefetchLines(const void* p, size_t bytes) {
    const auto* c = static_cast<const char*>(p);
    for (size_t b = 0; b < bytes; b += 64) prefetchLine(c + b);
}

// Every 64-byte line [p, p + bytes) overlaps, for writing.
WSC_PREFETCH void prefetchRange(const void* p, size_t bytes) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t l = a & ~uintptr_t(63); l < a + bytes; l += 64)
        prefetchLine(reinterpret_cast<const void*>(l));
}

}  // namespace wsc::noc
