#pragma once
// The dies the plain-C++ LLM tests build steps for, as LlmTestbench::dieSpec reads them from the
// configs named (kept here once so the tests agree with each other).
#include "firmware/llm/DieSpec.h"

namespace wsc::test {

// configs/temp_4x8_die_level.yaml: 96 GB of HBM, 80 MB of SRAM, 450,560 MACs per cycle at 2 GHz.
inline firmware::llm::DieSpec tempDie() {
    firmware::llm::DieSpec d;
    d.sram_bytes = 80ull << 20;
    d.hbm_bytes = 96ull << 30;
    d.hbm_bytes_per_cycle = 1.075e12 * 0.95 / 2e9;
    d.peak_macs_per_cycle = 64 * 55 * 2 * 64;
    d.vector_lanes = 4096;
    d.dma_burst = 1 << 20;
    d.clock_hz = 2e9;
    return d;
}

// configs/moentwine_4x4_b200.yaml: 180 GB at 8 TB/s, 160 MB of SRAM, 2250 TFLOPS at 1 GHz.
inline firmware::llm::DieSpec b200Die() {
    firmware::llm::DieSpec d;
    d.sram_bytes = 160ull << 20;
    d.hbm_bytes = 180ull << 30;
    d.hbm_bytes_per_cycle = 8e12 * 0.95 / 1e9;
    d.peak_macs_per_cycle = 125 * 125 * 72;
    d.vector_lanes = 32768;
    d.dma_burst = 1 << 20;
    d.clock_hz = 1e9;
    return d;
}

}  // namespace wsc::test
