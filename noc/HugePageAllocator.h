#pragma once
// A std allocator for the NoC's large per-router and per-link tables. Blocks of 32 MB and more
// are 2 MB aligned and marked MADV_HUGEPAGE: a large mesh touches its tables at random, and with
// 4 KB pages nearly every router visited also misses the TLB (a 128 x 128 mesh's tables span
// ~90 MB). Below 32 MB the tables fit the TLB's reach well enough and the rounding to whole 2 MB
// pages would be a visible share of the memory (ResourceEstimate extrapolates from small
// meshes). Linux's default THP mode ("madvise") honours the mark; elsewhere it is a no-op.
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace wsc::noc {

template <class T>
class HugePageAllocator {
  public:
    using value_type = T;
    static constexpr size_t kHuge = size_t{2} << 20;
    static constexpr size_t kThreshold = size_t{32} << 20;
    // Smaller blocks start on a cache line (Network's router storage is asked for by line).
    static constexpr size_t kAlign = alignof(T) > 64 ? alignof(T) : 64;

    HugePageAllocator() = default;
    template <class U>
    HugePageAllocator(const HugePageAllocator<U>&) {}

    T* allocate(size_t n) {
        const size_t bytes = n * sizeof(T);
        if (bytes < kThreshold)
            return static_cast<T*>(::operator new(bytes, std::align_val_t(kAlign)));
        const size_t size = (bytes + kHuge - 1) / kHuge * kHuge;
        void* p = std::aligned_alloc(kHuge, size);
        if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        madvise(p, size, MADV_HUGEPAGE);
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t n) {
        if (n * sizeof(T) < kThreshold)
            ::operator delete(p, std::align_val_t(kAlign));
        else
            std::free(p);
    }
    template <class U>
    bool operator==(const HugePageAllocator<U>&) const {
        return true;
    }
    template <class U>
    bool operator!=(const HugePageAllocator<U>&) const {
        return false;
    }
};

}  // namespace wsc::noc
