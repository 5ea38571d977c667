#pragma once
// Transparent huge pages for the whole heap of the wsc process.
//
// Wafer-sized runs are bound by cache and TLB misses: every core evaluation and every flit
// touches per-core and per-router state spread over gigabytes of heap, and with 4 KB pages
// nearly each of those touches also walks the page table. glibc (>= 2.35) backs its heap with
// transparent huge pages when the tunable glibc.malloc.hugetlb=1 is set, which made a 256 x 256
// LLaMA3-8B decode layer 13% faster (docs/results/waferllm_decode.md, "Simulation speed") and
// turned its 509k page faults into 8k. Tunables are read only when a process starts, so wsc adds
// the tunable to GLIBC_TUNABLES and executes itself again, once, before doing anything else.
// Results do not depend on it (only where the heap's pages come from).
//
// The second start puts the caller's GLIBC_TUNABLES back, so what wsc starts (sweep points, Slurm
// jobs, shells) inherits the environment it was given; a child wsc does the same for itself.
// Not done when GLIBC_TUNABLES already names glibc.malloc.hugetlb (the user's choice stands),
// when WSC_HUGEPAGES=0 (opt out; 1 is the default, anything else stops wsc with exit 2), when
// /proc/self/exe is not the program started (valgrind, an explicit ld.so, an emulator) or
// LD_PRELOAD is set (sanitizers, profilers' shims), or when the re-execution fails (the run goes on
// as it is). Debugging tools that trace the first process only may want WSC_HUGEPAGES=0.
namespace wsc::tb {

class HugePageHeap {
  public:
    // Call first thing in main(); returns only if no re-execution happened.
    static void enable(char** argv);
    // Whether glibc was given the tunable when this process started (header.heap_huge_pages;
    // the heap is then on transparent huge pages where the kernel's THP mode grants them).
    static bool active();
};

}  // namespace wsc::tb
