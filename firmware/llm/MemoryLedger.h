#pragma once
// Every die's memory (HBM) ledger: what a schedule holds where, when. The step builder
// allocates and frees in schedule order (weights and optimizer states at the start, a micro-
// batch's activations at its forward, freed after its backward, ...), so each die's peak and
// what filled it at that moment follow from the schedule itself — the early pipeline stages'
// activation skew (WATOS Fig. 5c) appears without being assumed. Addresses are real (first fit
// in [0, capacity)), so DMA traffic lands where the data is. Going over capacity is recorded and
// reported by check(), naming the die, the peak and the breakdown at the peak.
#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace wsc::firmware::llm {

enum class MemKind : uint8_t {
    Weights,      // fp16/bf16 weights in use (a shard, or gathered for FSDP)
    Gradients,    // weight gradients
    Optimizer,    // fp32 master weights and Adam moments
    Activations,  // saved for backward, per micro-batch
    Checkpoints,  // recomputation checkpoints (WATOS)
    KvCache,      // inference KV cache
    Buffers,      // communication and staging buffers in memory
    Count
};
const char* memKindName(MemKind k);

class OutOfMemoryError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class MemoryLedger {
  public:
    static constexpr size_t kKinds = static_cast<size_t>(MemKind::Count);
    using Breakdown = std::array<uint64_t, kKinds>;

    MemoryLedger(uint32_t dies, uint64_t capacity_bytes);
    uint32_t dies() const { return static_cast<uint32_t>(dies_.size()); }
    uint64_t capacity() const { return capacity_; }

    // Reserves `bytes` on `die` and returns its address. Past capacity (or with no free range
    // large enough) the block gets an address above capacity and the overflow is recorded.
    uint64_t alloc(uint32_t die, MemKind k, uint64_t bytes, const std::string& label);
    void free(uint32_t die, uint64_t address);

    uint64_t used(uint32_t die) const { return dies_.at(die).used; }
    uint64_t used(uint32_t die, MemKind k) const {
        return dies_.at(die).now[static_cast<size_t>(k)];
    }
    uint64_t peak(uint32_t die) const { return dies_.at(die).peak; }
    // The highest address any block reached (above capacity when a block did not fit): what
    // the die's address space must hold, fragmentation included (first fit can leave holes, so
    // it may exceed the peak). Another user of the die's memory reserved below everything else
    // fits as long as extent + its size <= capacity.
    uint64_t extent(uint32_t die) const { return dies_.at(die).extent; }
    const Breakdown& peakBreakdown(uint32_t die) const { return dies_.at(die).at_peak; }
    uint32_t peakDie() const;  // the die with the highest peak (lowest index on ties)
    bool overflowed() const;
    // Throws OutOfMemoryError for the die with the highest peak above capacity:
    //   "die 5 needs 81.2 GB at its peak, HBM holds 72.0 GB: weights 13.5 GB, gradients ...,
    //    activations 54.1 GB (largest: 'mb 0 layer 3 mlp.up' 2.1 GB, ...)"
    void check() const;
    // Human-readable size ("72.0 GB", binary GB).
    static std::string size(uint64_t bytes);

  private:
    struct Block {
        uint64_t bytes;
        MemKind kind;
        std::string label;
    };
    struct Die {
        uint64_t used = 0, peak = 0, extent = 0;
        Breakdown now{}, at_peak{};
        std::map<uint64_t, Block> blocks;        // address -> live block
        std::map<uint64_t, uint64_t> free_list;  // address -> length, in [0, capacity)
        uint64_t overflow_top = 0;               // next address above capacity
        std::vector<std::pair<std::string, uint64_t>> largest_at_peak;
    };
    uint64_t capacity_;
    std::vector<Die> dies_;
};

}  // namespace wsc::firmware::llm
