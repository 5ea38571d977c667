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
// Not done when GLIBC_TUNABLES already names glibc.malloc.hugetlb (the user's choice stands),
// when WSC_HUGEPAGES=0 (opt out), or when the re-execution fails (the run goes on as it is).
namespace wsc::tb {

class HugePageHeap {
  public:
    // Call first thing in main(); returns only if no re-execution happened.
    static void enable(char** argv);
    // Whether this process started with the tunable (header.heap_huge_pages).
    static bool active();
};

}  // namespace wsc::tb
