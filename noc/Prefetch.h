#pragma once
// Cache hints shared by the loops that walk a wafer's routers, NIs and cores (their state
// misses in cache on large meshes, so the loops ask for it a few entries ahead).
#include <cstddef>

namespace wsc::noc {

// Every 64-byte line of [p, p + bytes), for writing.
inline void prefetchLines(const void* p, size_t bytes) {
    const auto* c = static_cast<const char*>(p);
    for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(c + b, 1);
}

}  // namespace wsc::noc
