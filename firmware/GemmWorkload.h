#pragma once
// A distributed GEMM workload, C[m x n] = A[m x k] * B[k x n], on a P x P block of cores
// (scenario `workload: {type: gemm}`; see docs/CONFIG.md).
#include <cstdint>

namespace wsc::firmware {

struct GemmWorkload {
    uint32_t m = 32, k = 32, n = 32;
    uint32_t mesh = 0;       // P; 0 = the largest square that fits the NoC mesh
    bool functional = true;  // carry and check real values
    uint64_t seed = 1;       // operand values
    // false: DMA goes straight to the memory bridges; true: memory port p sits at NoC node
    // p % nodes and every burst crosses the NoC (core::NocMemoryPort), `memory_path: noc`.
    bool memory_over_noc = false;
};

}  // namespace wsc::firmware
