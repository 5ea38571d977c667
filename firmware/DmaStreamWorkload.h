#pragma once
// DMA streaming workload (scenario `workload: {type: dma_stream}`; see docs/CONFIG.md and the
// "DMA through the NoC" section of docs/HBM.md): `cores` cores each dma.load a tensor of `bytes`
// from a memory port attached at NoC router (port_x, port_y), or at several routers
// (attach_routers, from `port: attach` and the hardware's hbm.attach), into their SRAM, across the
// NoC. With several routers each core streams through the one nearest to it.
#include <cstdint>
#include <string>
#include <vector>

namespace wsc::firmware {

struct DmaStreamWorkload {
    uint64_t bytes = 64 * 1024;  // tensor bytes per streaming core
    uint32_t cores = 1;          // streaming cores, farthest from the port first
    uint64_t chunk = 0;          // bytes per dma.load instruction; 0 = the whole tensor at once
    uint32_t port_x = 0, port_y = 0;  // router the memory port attaches to (its first core node)
    // If not empty: the memory port attaches at the first core node of each of these routers
    // (global indices, in attach order) instead of (port_x, port_y).
    std::vector<uint32_t> attach_routers;
    std::string memory = "hbm";  // target behind the port: hbm (dram::HbmTarget) | simple
    uint32_t header_bytes = 16;  // request / response header on the NoC
    uint32_t port_window = 32;   // bursts the port buffers (issued .. response delivered)
    bool functional = true;      // carry the tensor's values and check them in SRAM
    uint64_t seed = 1;           // tensor values
};

}  // namespace wsc::firmware
