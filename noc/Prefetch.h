#pragma once
// Cache hints shared by the loops that walk a wafer's routers, NIs and cores (their state
// misses in cache on large meshes, so the loops ask for it a few entries ahead).
#include <cstddef>

namespace wsc::noc {

// One cache line, for writing. Not __builtin_prefetch: GCC's pure/const analysis does not count
// a prefetch as a side effect, so a helper holding only prefetches that it did not inline
// became "pure" and its calls were deleted (Network::prefetchArrivals compiled to a bare return
// until 2026-11-28). A volatile asm is never deleted, wherever it ends up.
inline void prefetchLine(const void* p) {
#if defined(__GNUC__) && defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
    __builtin_prefetch(p, 1);
#endif
}

// Every 64-byte line of [p, p + bytes), for writing.
inline void prefetchLines(const void* p, size_t bytes) {
    const auto* c = static_cast<const char*>(p);
    for (size_t b = 0; b < bytes; b += 64) prefetchLine(c + b);
}

}  // namespace wsc::noc
