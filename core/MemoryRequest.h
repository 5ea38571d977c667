#pragma once
// One memory-port transaction of a core's DMA engine, queued into the port's MemoryBridge and
// handed back when the target answered. `data` is used only in functional mode.
#include <cstdint>
#include <vector>

namespace wsc::core {

struct MemoryRequest {
    uint32_t core = 0;
    uint32_t op = 0;   // the DMA operation (slot) this chunk belongs to
    uint16_t buf = 0;  // SRAM buffer and byte offset in it
    uint64_t buf_offset = 0;
    uint64_t addr = 0;  // memory address
    uint32_t bytes = 0;
    bool write = false;  // SRAM -> memory
    uint64_t ready = 0;  // cycle the answer is visible to the core (set by the bridge)
    // Which of a stack's NoC ports (core::NocMemoryPort, one per attach router) issued this
    // transaction to the stack's bridge; the bridge leaves it alone, so the answer goes back
    // to that port (hw::MemoryStack). 0 for a core's own request.
    uint16_t via = 0;
    std::vector<uint8_t> data;
};

}  // namespace wsc::core
