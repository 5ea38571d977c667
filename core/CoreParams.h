#pragma once
// Typed parameters of one core (the `core:` section of a hardware YAML, see docs/CONFIG.md).
// hw/CoreConfigLoader fills these with units already converted to cycles and bytes at the NoC
// clock; core/ never sees YAML, so cores can be built directly from C++ in tests.
#include <array>
#include <cstddef>
#include <cstdint>

namespace wsc::core {

enum class DataflowKind { OutputStationary, WeightStationary, InputStationary };

struct PeArrayParams {
    uint32_t rows = 4, cols = 4;
    uint32_t macs_per_cycle = 1;  // MACs per PE per cycle at the native data width
    uint32_t data_bits = 32;      // native operand width; narrower types pack, wider take passes
    // Independent R x C arrays sharing one GEMM (a die-level core stands for a die's cores): the
    // folds are dealt to them in turn and the GEMM ends when the busiest array does.
    uint32_t arrays = 1;
    DataflowKind dataflow = DataflowKind::OutputStationary;
};

struct VectorParams {
    uint32_t lanes = 4;
    uint32_t latency = 2;          // pipeline depth of simple ops (add, mul, max, copy, scale)
    uint32_t special_latency = 8;  // exp, reciprocal, rsqrt, SiLU, GeLU
    // Per-op pipeline depth, indexed by opcode - VAdd (vadd .. vsqsum in Opcode order); 0 = the
    // op's class latency above (so an unset op keeps today's timing).
    static constexpr std::size_t kOps = 16;
    std::array<uint32_t, kOps> op_latency{};
    uint32_t latencyOf(std::size_t op_index, bool special) const {
        const uint32_t l = op_index < kOps ? op_latency[op_index] : 0;
        return l ? l : (special ? special_latency : latency);
    }
};

struct SramParams {
    uint64_t capacity_bytes = 48 * 1024;
    uint32_t banks = 8;
    // Bytes one bank delivers per cycle. 0 = ideal interleaving (no bank conflicts, the old model).
    // Otherwise a stream holds ceil(port_bytes / bank_width) consecutive banks from each operand
    // buffer's base bank ((offset / bank_width) % banks) until it ends; a stream that needs a
    // bank another stream holds waits (an SRAM stall) — accesses to one bank serialize.
    uint32_t bank_width = 0;
    uint32_t ports = 2;           // concurrent streams (PE array, vector unit, egress, DMA)
    uint32_t port_bytes = 16;     // bytes per cycle per port
    uint32_t access_latency = 1;  // cycles, for the optional TLM target
};

struct DmaParams {
    uint32_t queue = 4;          // outstanding DMA operations per core
    uint32_t burst_bytes = 256;  // largest memory-port transaction
};

// The simple memory behind a memory port until the HBM controller replaces it.
struct MemoryParams {
    uint32_t ports = 1;            // memory ports; core c uses port c % ports
    uint64_t latency_ps = 100000;  // request to first data
    double bytes_per_ns = 1000.0;  // per port
    uint64_t capacity_bytes = 1ull << 30;
    uint32_t max_outstanding = 16;  // transactions in flight per port
};

// core.rx_buffer: the most bytes of early arrivals (data messages whose recv is not posted yet) a
// core keeps in its SRAM. They count against the SRAM's capacity and in its peak; a flit that
// would exceed it stays in the network and back-pressures the sender through credits.
// kRxFreeSram (the default) = whatever SRAM the program's buffers leave free; a size is reserved
// next to the buffers (a program whose buffers and receive buffer overflow the SRAM is refused).
constexpr uint64_t kRxFreeSram = ~uint64_t{0};

struct CoreParams {
    PeArrayParams pe;
    VectorParams vector;
    SramParams sram;
    DmaParams dma;
    MemoryParams memory;
    uint32_t relay_cycles = 8;  // PLMR beta: a software relay's fixed cost on the relaying core
    uint32_t tx_queue = 4;      // egress credits: packets the NI may hold before SEND stalls
    uint64_t rx_buffer_bytes = kRxFreeSram;  // see kRxFreeSram
    bool functional = true;  // carry real fp32 values (timing is identical either way)
};

}  // namespace wsc::core
